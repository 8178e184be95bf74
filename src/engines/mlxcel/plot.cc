// The data behind `memfit plot` for mlxcel: estimate_mlxcel() at each sampled
// context for each weight mode and KV width, and solve_mlxcel()'s largest context
// that fits.
//
// Samples are spaced evenly on a log2 axis (context lengths people choose
// are powers of two, and a useful range spans two or three orders of
// magnitude), chosen with integer arithmetic only so the same range always
// gives the same points.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/plot.h"
#include "memfit/mlxcel_solver.h"
#include "engines/shared/plot/series.h"

namespace memfit {
namespace {

// Quarter-octave steps as fractions: 2^(1/4) ~ 19/16, 2^(1/2) ~ 181/128,
// 2^(3/4) ~ 215/128 (each within 0.2 %).
struct Step {
  uint64_t num;
  uint64_t den;
};
constexpr std::array<Step, 4> kOctaveSteps = {{{1, 1}, {19, 16}, {181, 128}, {215, 128}}};

// Largest power of two a sample loop may reach without overflowing the
// numerators above.
constexpr uint64_t kMaxPowerOfTwo = 1ull << 55;

// In plot_mlxcel's order.
PlotSample mlxcel_sample(const MlxcelEstimate& e) {
  PlotSample s;
  s.tokens = e.inputs.max_tokens;
  s.bytes = {e.weights_bytes, e.kv.total_bytes, e.allocator_overhead_bytes, e.activation_bytes,
             e.backend_inflight_bytes};
  s.total_bytes = e.total_bytes;
  return s;
}

Result<PlotPanel> mlxcel_panel(const Model& model, const MlxcelInputs& inputs,
                                const MlxcelSettings& settings, const Platform& platform,
                                const MemoryBudget& budget, const PlotWeightMode& mode,
                                KvElement element, std::vector<uint64_t> tokens) {
  Model variant = model;
  variant.weights.bytes = mode.weights_bytes;
  MlxcelInputs in = inputs;
  in.kv_element = element;

  PlotPanel panel;
  panel.weights_mode = mode.name;
  panel.kv_element = element;
  panel.kv_cache_mode = std::string(to_string(element));
  panel.weights_bytes = mode.weights_bytes;
  panel.title = fmt::format("{} weights ({}) · {} KV cache", mode.name,
                            format_bytes(mode.weights_bytes), to_string(element));
  Result<MlxcelSolution> solution = solve_mlxcel(MlxcelSolveFor::kMaxTokens, variant, in, settings, platform, budget);
  if (!solution) return solution.error().within("largest context that fits");
  panel.max_tokens_that_fit = solution->value;
  panel.capped = solution->capped;
  for (uint64_t t : with_crossing(std::move(tokens), panel.max_tokens_that_fit)) {
    in.max_tokens = t;
    Result<MlxcelEstimate> e = estimate_mlxcel(variant, in, settings, platform, budget);
    if (!e) return e.error().within(fmt::format("at {} tokens", t));
    panel.samples.push_back(mlxcel_sample(*e));
  }
  return panel;
}

}  // namespace

std::vector<uint64_t> with_crossing(std::vector<uint64_t> tokens, std::optional<uint64_t> crossing) {
  if (crossing && !tokens.empty() && *crossing > tokens.front() && *crossing < tokens.back()) {
    tokens.insert(std::upper_bound(tokens.begin(), tokens.end(), *crossing), *crossing);
    tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  }
  return tokens;
}

uint64_t plot_min_tokens(uint64_t max_tokens) {
  return max_tokens >= 2 * kPlotMinTokens ? kPlotMinTokens : 1;
}

std::vector<uint64_t> plot_context_samples(uint64_t min_tokens, uint64_t max_tokens) {
  std::vector<uint64_t> out;
  if (min_tokens == 0 || min_tokens > max_tokens) return out;
  out.push_back(min_tokens);
  for (uint64_t p = 1; p <= max_tokens && p <= kMaxPowerOfTwo; p *= 2) {
    for (Step step : kOctaveSteps) {
      uint64_t t = p * step.num / step.den;
      if (t > min_tokens && t < max_tokens) out.push_back(t);
    }
  }
  out.push_back(max_tokens);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<PlotData> compute_plot(const Model& model, const MlxcelInputs& inputs,
                              const MlxcelSettings& settings, const Platform& platform,
                              const MemoryBudget& budget, const PlotRequest& request) {
  if (request.weight_modes.empty()) return Error("plot: no weight mode to draw");
  if (request.kv_elements.empty()) return Error("plot: no KV cache width to draw");
  if (request.max_tokens < 2) {
    return Error(fmt::format("plot: a context range needs at least 2 tokens, got {}",
                             request.max_tokens));
  }
  PlotData data;
  data.title = request.title;
  data.batch = inputs.batch;
  data.fixed_settings = fmt::format("batch {}", inputs.batch);
  data.min_tokens = plot_min_tokens(request.max_tokens);
  data.max_tokens = request.max_tokens;
  data.budget_bytes = budget.budget_bytes;
  data.budget_source = std::string(to_string(budget.source));
  data.columns = request.kv_elements.size();
  data.components = mlxcel_plot_components();
  std::vector<uint64_t> tokens = plot_context_samples(data.min_tokens, data.max_tokens);
  for (const PlotWeightMode& mode : request.weight_modes) {
    for (KvElement element : request.kv_elements) {
      Result<PlotPanel> panel =
          mlxcel_panel(model, inputs, settings, platform, budget, mode, element, tokens);
      if (!panel) {
        return panel.error().within(
            fmt::format("plot {} weights, {} KV cache", mode.name, to_string(element)));
      }
      data.panels.push_back(std::move(*panel));
    }
  }
  return data;
}

}  // namespace memfit
