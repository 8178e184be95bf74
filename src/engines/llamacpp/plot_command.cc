// The llamacpp profile's plot hook (engine.h): --ctx-size on the x axis,
// one panel per cache type (or the one the request names), with
// llama.cpp's flags as given (compute_llamacpp_plot, plot.h); options as
// plot_query.h reads them, without quants.
#include <fmt/format.h>

#include "engines/llamacpp/commands.h"
#include "engines/shared/plot/plot_query.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::engines {
namespace {

// The settings every panel shares; the cache types are the panels'.
nlohmann::ordered_json shared_settings(const LlamaCppSettings& s) {
  return {{"parallel", s.parallel},       {"batch_size", s.batch_size},
          {"ubatch_size", s.ubatch_size}, {"flash_attn", to_string(s.flash_attn)},
          {"swa_full", s.swa_full},       {"kv_unified", s.kv_unified}};
}

}  // namespace

// Errors come back as the user should read them: usage errors (settings
// llama.cpp refuses) name their field, others the model.
Result<CommandAnswer> LlamaCppCommands::plot(const CommandQuery& query, PreparedRequest c) const {
  Result<PlotQuery> q = read_plot_query(query, *c.model);
  if (!q) return q.error();
  if (q->quants) {
    return Error::usage("quants", "MLX weight modes are not llama.cpp's: it draws the model as "
                                  "it is, without --quants");
  }
  LlamaCppPlotRequest request;
  request.title = q->title;
  request.settings = c.llamacpp_settings;
  request.each_cache_type = !q->kv_width_given;
  request.max_tokens = q->max_tokens;
  Result<PlotData> data = compute_llamacpp_plot(*c.model, c.budget, request);
  if (!data) {
    if (data.error().kind() == ErrorKind::kUsage) return data.error();
    return data.error().within(quote_untrusted(query.request.model));
  }
  nlohmann::ordered_json json = plot_summary_json(*q, c.engine->name(), *data, "llamacpp",
                                                  shared_settings(c.llamacpp_settings), c.warnings);
  std::string text = fmt::format(
      "wrote {}: --ctx-size {} to {}, llama.cpp, budget {}; largest --ctx-size that fits: {}\n",
      q->out, data->min_tokens, data->max_tokens, format_bytes(data->budget_bytes),
      plot_fits_text(*q, *data));
  return plot_answer(*data, std::move(json), std::move(text), std::move(c.warnings));
}

}  // namespace memfit::engines
