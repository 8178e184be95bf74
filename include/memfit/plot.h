// Memory against context, drawn: `memfit plot`.
//
// compute_plot() evaluates the one estimator (estimate.h) at a set of
// context lengths for each weight mode (the checkpoint as it is, or each
// quantization candidate of quant_schemes.h) and each KV width, keeping the
// components apart so they can be stacked, and asks the solver (solver.h)
// for the largest context that fits: the crossing with the budget is
// solve()'s exact answer, never read off the drawn curve.
//
// render_plot_svg() turns that data into one self-contained SVG document
// (no scripts, fonts or links; a viewBox so it scales to any width). Every
// sample carries its exact byte counts in data-* attributes and a <title>,
// so a test or a reader can check the picture against `memfit inspect`.
//
// Both are pure: data in, data or text out. Nothing here touches the disk.
#ifndef MEMFIT_PLOT_H_
#define MEMFIT_PLOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/estimate.h"
#include "memfit/kv_cache.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/settings.h"

namespace memfit {

// The x range when neither the user nor the config names one.
inline constexpr uint64_t kPlotDefaultMaxTokens = 131072;
// The smallest context drawn: one KV allocation block (kKvBlockTokens).
inline constexpr uint64_t kPlotMinTokens = 256;

// The components of one estimate at one context length, in bytes. The
// five components sum to total_bytes (estimate.h's invariant).
struct PlotSample {
  uint64_t tokens = 0;
  uint64_t weights_bytes = 0;
  uint64_t kv_bytes = 0;
  uint64_t allocator_overhead_bytes = 0;
  uint64_t activation_bytes = 0;
  uint64_t backend_inflight_bytes = 0;
  uint64_t total_bytes = 0;
};

// One weight mode at one KV width: one panel of the figure.
struct PlotPanel {
  std::string weights_mode;  // "as-is", "int8", "int4"
  KvElement kv_element = KvElement::kFp16;
  uint64_t weights_bytes = 0;
  std::vector<PlotSample> samples;  // ascending tokens, min..max of PlotData
  // solve(kMaxTokens): the largest context that fits; nullopt when not even
  // one token does. capped: it is the solver's ceiling (the cache stops
  // growing, so any context fits).
  std::optional<uint64_t> max_tokens_that_fit;
  bool capped = false;
};

struct PlotData {
  std::string title;  // the model as the figure names it
  uint64_t batch = 1;
  uint64_t min_tokens = kPlotMinTokens;
  uint64_t max_tokens = kPlotDefaultMaxTokens;
  uint64_t budget_bytes = 0;
  std::string budget_source;  // "explicit", "meminfo", ...
  // Row-major: one row per weight mode, `columns` KV widths per row.
  std::vector<PlotPanel> panels;
  size_t columns = 1;
};

// A weight mode to draw and what its weights take (candidate_weights_bytes()).
struct PlotWeightMode {
  std::string name;
  uint64_t weights_bytes = 0;
};

struct PlotRequest {
  std::string title;
  std::vector<PlotWeightMode> weight_modes;  // rows; at least one
  std::vector<KvElement> kv_elements{kAllKvElements.begin(), kAllKvElements.end()};  // columns
  uint64_t max_tokens = kPlotDefaultMaxTokens;  // at least 2
};

// The context lengths sampled between min_tokens and max_tokens, both
// included, ascending, without repeats: every power of two and three
// points between each pair (x 19/16, x 181/128, x 215/128, within 0.2 % of
// the quarter-octave steps), so the points are evenly spaced on the log
// axis. Integers only. Empty when min_tokens is 0 or above max_tokens.
std::vector<uint64_t> plot_context_samples(uint64_t min_tokens, uint64_t max_tokens);

// The first context drawn for a range ending at max_tokens: kPlotMinTokens,
// or 1 when max_tokens is too short for a range starting there.
uint64_t plot_min_tokens(uint64_t max_tokens);

// Evaluates every panel: `inputs` fixes the batch (its max_tokens and
// kv_element are replaced per sample and per panel), each weight mode
// replaces model.weights.bytes. The crossing of each panel is solve()'s,
// and it is also sampled when it falls inside the range, so the drawn
// stack touches the budget exactly there.
// Fails on a request with no weight modes or KV widths, max_tokens < 2, and
// on arithmetic overflow in the estimator; the error names the panel.
Result<PlotData> compute_plot(const Model& model, const EstimateInputs& inputs,
                              const EstimateSettings& settings, const Platform& platform,
                              const MemoryBudget& budget, const PlotRequest& request);

// The figure: a title with the budget, a legend, and a grid of panels
// (rows: weight modes; columns: KV widths) on one shared byte scale and a
// log2 context axis. Each panel stacks weights, KV cache, allocator
// overhead, activation and backend in-flight bytes, draws the budget as a
// dashed line labelled in GiB, and marks the crossing ("fp16: 35,584
// tokens"), or says in words that the panel fits the whole range or never
// fits. Deterministic: the same data gives the same bytes.
std::string render_plot_svg(const PlotData& data);

}  // namespace memfit

#endif  // MEMFIT_PLOT_H_
