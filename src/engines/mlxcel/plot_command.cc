// The mlxcel profile's plot hook (engine.h): memory against context for
// each KV width, and with quants for each MLX weight mode
// (compute_plot, plot.h); options as plot_query.h reads them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/mlxcel/commands.h"
#include "engines/shared/plot/plot_query.h"
#include "memfit/memory_size.h"
#include "memfit/quant_schemes.h"
#include "memfit/untrusted_text.h"

namespace memfit::engines {
namespace {

// The rows: the checkpoint as it is, and with quants each MLX weight mode
// that shrinks it (as recommend-quant: one with no fewer bits than the
// checkpoint's own saves no memory, so it is not drawn, with a warning).
Result<std::vector<PlotWeightMode>> weight_modes(const PlotQuery& q, const CommandQuery& query,
                                                 const Model& model,
                                                 std::vector<Warning>& warnings) {
  if (!q.quants) return std::vector<PlotWeightMode>{{"as-is", model.weights.bytes}};
  if (model.tensors.empty()) warnings.push_back(no_headers_warning());
  std::vector<PlotWeightMode> modes;
  std::vector<std::string> skipped;
  for (const QuantScheme& scheme : mlx_quant_schemes()) {
    if (!scheme.as_is && !shrinks_checkpoint(scheme, model.spec)) {
      skipped.push_back(scheme.name);
      continue;
    }
    Result<uint64_t> bytes = candidate_weights_bytes(scheme, model, model.tensors);
    if (!bytes) return bytes.error().within(quote_untrusted(query.request.model));
    modes.push_back({scheme.name, *bytes});
  }
  if (!skipped.empty()) {
    warnings.push_back(Warning{WarningKind::kRequest,
                               fmt::format("--quants: {} not drawn: the checkpoint is already "
                                           "quantized to as few bits or fewer",
                                           fmt::join(skipped, ", "))});
  }
  return modes;
}

}  // namespace

// Errors within the model's name; the weight modes' warnings join the
// request's.
Result<CommandAnswer> MlxcelCommands::plot(const CommandQuery& query, PreparedRequest c) const {
  Result<PlotQuery> q = read_plot_query(query, *c.model);
  if (!q) return q.error();
  PlotRequest request;
  request.title = q->title;
  request.max_tokens = q->max_tokens;
  if (q->kv_width_given) request.kv_elements = {c.inputs.kv_element};
  Result<std::vector<PlotWeightMode>> modes = weight_modes(*q, query, *c.model, c.warnings);
  if (!modes) return modes.error();
  request.weight_modes = std::move(*modes);
  Result<PlotData> data = compute_plot(*c.model, c.inputs, c.settings, c.platform, c.budget, request);
  if (!data) return data.error().within(quote_untrusted(query.request.model));
  nlohmann::ordered_json json =
      plot_summary_json(*q, c.engine->name(), *data, "batch", data->batch, c.warnings);
  std::string text = fmt::format(
      "wrote {}: {} to {} tokens, batch {}, budget {}; largest context that fits: {}\n", q->out,
      data->min_tokens, data->max_tokens, data->batch, format_bytes(data->budget_bytes),
      plot_fits_text(*q, *data));
  return plot_answer(*data, std::move(json), std::move(text), std::move(c.warnings));
}

}  // namespace memfit::engines
