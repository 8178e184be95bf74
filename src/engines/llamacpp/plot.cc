// The data behind `memfit plot` for llama.cpp: estimate_llamacpp() at each
// sampled --ctx-size for each cache type, and solve_llamacpp()'s largest
// --ctx-size that fits.
//
// The solver stops at the model's training context. A range drawn past it
// (--max-tokens above it) is solved up to the range end instead: llama.cpp
// runs a context past its training one (it warns), and a crossing left
// unmarked where the drawn stack meets the budget would mislead. So the
// model is taken with its training context raised to the range end; the
// estimate reads it only for a --ctx-size of 0, which nothing here asks,
// and the samples use the same model as the solver, so the crossing's
// sample is the solver's estimate.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "memfit/llamacpp_solver.h"
#include "memfit/memory_size.h"
#include "memfit/plot.h"
#include "engines/shared/plot/series.h"

namespace memfit {
namespace {

// In plot_llamacpp's order.
PlotSample llamacpp_sample(uint64_t tokens, const LlamaCppEstimate& e) {
  PlotSample s;
  s.tokens = tokens;
  s.bytes = {e.model_bytes, e.kv_bytes, e.recurrent_bytes, e.output_bytes, e.compute_bytes};
  s.total_bytes = e.total_bytes;
  return s;
}

// "f16", or "q8_0/f16" when K and V differ.
std::string cache_types_name(const LlamaCppSettings& s) {
  std::string_view k = ggml_type_traits(s.cache_type_k).name;
  std::string_view v = ggml_type_traits(s.cache_type_v).name;
  return k == v ? std::string(k) : fmt::format("{}/{}", k, v);
}

// The subtitle's head: the settings every panel shares, as llama.cpp's
// flags spell them ("llama.cpp -np 1 -ub 512 -fa auto").
std::string fixed_settings_of(const LlamaCppSettings& s) {
  std::string text = fmt::format("llama.cpp -np {} -ub {} -fa {}", s.parallel, s.ubatch_size,
                                 to_string(s.flash_attn));
  if (s.kv_unified) text += " --kv-unified";
  if (s.swa_full) text += " --swa-full";
  return text;
}

// Usage errors (settings llama.cpp refuses) name their field and go out as
// they are; others say where they happened.
Error in_context(const Error& error, const std::string& where) {
  return error.kind() == ErrorKind::kUsage ? error : error.within(where);
}

Result<PlotPanel> llamacpp_panel(const Model& model, const LlamaCppSettings& settings,
                                const LlamaCppSolution& solution, const MemoryBudget& budget,
                                const std::vector<uint64_t>& tokens) {
  PlotPanel panel;
  panel.weights_mode = "as-is";
  panel.kv_cache_mode = cache_types_name(settings);
  panel.weights_bytes = model.weights.bytes;
  panel.title =
      fmt::format("{} cache · model {}", panel.kv_cache_mode, format_bytes(model.weights.bytes));
  panel.max_tokens_that_fit = solution.value;
  panel.capped = solution.capped;
  LlamaCppSettings at = settings;
  for (uint64_t t : with_crossing(tokens, panel.max_tokens_that_fit)) {
    at.ctx_size = t;
    Result<LlamaCppEstimate> e = estimate_llamacpp(model, at, budget);
    if (!e) return in_context(e.error(), fmt::format("at --ctx-size {}", t));
    panel.samples.push_back(llamacpp_sample(t, *e));
  }
  return panel;
}

}  // namespace

Result<PlotData> compute_llamacpp_plot(const Model& model, const MemoryBudget& budget,
                                       const LlamaCppPlotRequest& request) {
  if (request.max_tokens < 2) {
    return Error(fmt::format("plot: a context range needs at least 2 tokens, got {}",
                             request.max_tokens));
  }
  PlotData data;
  data.title = request.title;
  data.fixed_settings = fixed_settings_of(request.settings);
  data.min_tokens = plot_min_tokens(request.max_tokens);
  data.max_tokens = request.max_tokens;
  data.budget_bytes = budget.budget_bytes;
  data.budget_source = std::string(to_string(budget.source));
  data.components = llamacpp_plot_components();
  data.capped_fits_any_context = false;
  data.context_label = "--ctx-size: context in tokens, over all sequences";

  Model ceiling = model;  // the solver's ceiling: see the note at the top
  ceiling.spec.max_position_tokens = std::max(model.spec.max_position_tokens, request.max_tokens);
  std::vector<std::pair<LlamaCppSettings, LlamaCppSolution>> panels;
  if (request.each_cache_type) {
    Result<std::vector<LlamaCppSolution>> all =
        solve_llamacpp_each_cache_type(LlamaCppSolveFor::kCtxSize, ceiling, request.settings, budget);
    if (!all) return in_context(all.error(), "largest --ctx-size that fits");
    for (LlamaCppSolution& s : *all) {
      LlamaCppSettings at = request.settings;
      at.cache_type_k = at.cache_type_v = s.cache_type;
      panels.emplace_back(at, std::move(s));
    }
  } else {
    Result<LlamaCppSolution> s =
        solve_llamacpp(LlamaCppSolveFor::kCtxSize, ceiling, request.settings, budget);
    if (!s) return in_context(s.error(), "largest --ctx-size that fits");
    panels.emplace_back(request.settings, std::move(*s));
  }

  std::vector<uint64_t> tokens = plot_context_samples(data.min_tokens, data.max_tokens);
  for (const auto& [settings, solution] : panels) {
    Result<PlotPanel> panel = llamacpp_panel(ceiling, settings, solution, budget, tokens);
    if (!panel) {
      return in_context(panel.error(), fmt::format("plot {} cache", cache_types_name(settings)));
    }
    data.panels.push_back(std::move(*panel));
  }
  data.columns = std::max<size_t>(data.panels.size(), 1);
  return data;
}

}  // namespace memfit
