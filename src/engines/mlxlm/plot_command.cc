// The mlx-lm profile's plot hook (engine.h): the peak mx.get_peak_memory()
// reports against --prompt-tokens, --max-tokens and every other setting as
// the request gives them, one panel at the request's KV cache (fp16, or
// --kv-bits), stacked as weights, KV cache, recurrent state and transient
// (estimate_mlxlm(), mlxlm.h). The crossing is solve_mlxlm()'s largest
// prompt that fits (mlxcel_solver.h), sampled when it falls inside the range.
// Options as plot_query.h reads them, without quants.
#include <fmt/format.h>

#include "engines/mlxlm/commands.h"
#include "engines/mlxlm/solver.h"
#include "engines/shared/plot/plot_query.h"
#include "engines/shared/plot/series.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::engines {
namespace {

// Bottom to top; PlotSample::bytes in this order.
const std::vector<PlotComponent>& mlxlm_plot_components() {
  static const std::vector<PlotComponent> components = {
      {"weights", "weights", "weights", "weights", "#4c72b0", true},
      {"kv", "kv", "KV cache", "KV cache", "#dd8452", true},
      {"recurrent", "recurrent", "recurrent state", "recurrent", "#da8bc3", false},
      {"transient", "transient", "transient (buffers in flight)", "transient", "#55a868", true}};
  return components;
}

std::string kv_name(const MlxLmSettings& s) {
  return s.kv_bits == 0 ? "fp16" : fmt::format("{}-bit", s.kv_bits);
}

Error in_context(const Error& error, const std::string& where) {
  return error.kind() == ErrorKind::kUsage ? error : error.within(where);
}

// The one panel: the peak at each sampled prompt length.
Result<PlotPanel> prompt_panel(const Model& model, const MlxLmSettings& settings,
                               const MemoryBudget& budget, const std::vector<uint64_t>& tokens) {
  Result<MlxLmSolution> solution =
      solve_mlxlm(MlxLmSolveFor::kPromptTokens, model, settings, budget);
  if (!solution) return in_context(solution.error(), "largest --prompt-tokens that fits");
  PlotPanel panel;
  panel.weights_mode = "as-is";
  panel.kv_cache_mode = kv_name(settings);
  panel.weights_bytes = model.weights.bytes;
  panel.title = fmt::format("{} KV cache · weights {}", panel.kv_cache_mode,
                            format_bytes(model.weights.bytes));
  panel.max_tokens_that_fit = solution->value;
  panel.capped = solution->capped;
  MlxLmSettings at = settings;
  for (uint64_t t : with_crossing(tokens, panel.max_tokens_that_fit)) {
    at.prompt_tokens = t;
    Result<MlxLmEstimate> e = estimate_mlxlm(model, at, budget);
    if (!e) return in_context(e.error(), fmt::format("at --prompt-tokens {}", t));
    panel.samples.push_back(PlotSample{
        t, {e->weights_bytes, e->kv_bytes, e->recurrent_bytes, e->transient_bytes}, e->total_bytes});
  }
  return panel;
}

}  // namespace

Result<CommandAnswer> MlxLmCommands::plot(const CommandQuery& query, PreparedRequest p) const {
  Result<PlotQuery> q = read_plot_query(query, *p.model);
  if (!q) return q.error();
  if (q->quants) {
    return Error::usage("quants", "is mlxcel's: mlx-lm's plot draws the model as it is");
  }
  const MlxLmSettings& s = p.mlxlm_settings;
  PlotData data;
  data.title = q->title;
  data.batch = s.batch;
  data.fixed_settings = fmt::format("mlx_lm.generate --max-tokens {} --batch-size {}",
                                    s.max_tokens, s.batch);
  data.context_label = "--prompt-tokens: the prompt, before --max-tokens are generated";
  data.min_tokens = plot_min_tokens(q->max_tokens);
  data.max_tokens = q->max_tokens;
  data.budget_bytes = p.budget.budget_bytes;
  data.budget_source = std::string(to_string(p.budget.source));
  data.components = mlxlm_plot_components();
  data.capped_fits_any_context = false;
  Result<PlotPanel> panel = prompt_panel(*p.model, s, p.budget,
                                         plot_context_samples(data.min_tokens, data.max_tokens));
  if (!panel) return in_context(panel.error(), quote_untrusted(query.request.model));
  data.panels.push_back(std::move(*panel));
  nlohmann::ordered_json settings = {{"max_tokens", s.max_tokens},
                                     {"batch", s.batch},
                                     {"prefill_step_size", s.prefill_step_size},
                                     {"kv_bits", s.kv_bits == 0 ? nlohmann::ordered_json(nullptr)
                                                                : nlohmann::ordered_json(s.kv_bits)}};
  nlohmann::ordered_json json =
      plot_summary_json(*q, p.engine->name(), data, "mlxlm", std::move(settings), p.warnings);
  std::string text = fmt::format(
      "wrote {}: --prompt-tokens {} to {}, --max-tokens {}, batch {}, budget {}; largest "
      "--prompt-tokens that fits: {}\n",
      q->out, data.min_tokens, data.max_tokens, s.max_tokens, s.batch,
      format_bytes(data.budget_bytes), plot_fits_text(*q, data));
  return plot_answer(data, std::move(json), std::move(text), std::move(p.warnings));
}

}  // namespace memfit::engines
