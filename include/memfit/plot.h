// Memory against context, drawn: `memfit plot`.
//
// compute_plot() evaluates the one estimator (mlxcel.h) at a set of
// context lengths for each weight mode (the checkpoint as it is, or each
// quantization candidate of quant_schemes.h) and each KV width, keeping the
// components apart so they can be stacked, and asks the solver (mlxcel_solver.h)
// for the largest context that fits: the crossing with the budget is
// solve_mlxcel()'s exact answer, never read off the drawn curve.
// compute_llamacpp_plot() does the same for the llama.cpp profile
// (llamacpp.h): --ctx-size on the x axis, one panel per cache type, and the
// crossing from solve_llamacpp() (llamacpp_solver.h).
//
// render_plot_svg() turns either into one self-contained SVG document (no
// scripts, fonts or links; a viewBox so it scales to any width). It stacks
// whatever components the data names (PlotData::components). Every sample
// carries its exact byte counts in data-* attributes and a <title>, so a
// test or a reader can check the picture against `memfit inspect`.
//
// All three are pure: data in, data or text out. Nothing here touches the
// disk.
#ifndef MEMFIT_PLOT_H_
#define MEMFIT_PLOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/mlxcel.h"
#include "memfit/kv_cache.h"
#include "memfit/llamacpp.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/mlxcel_settings.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The x range when neither the user nor the config names one.
inline constexpr uint64_t kPlotDefaultMaxTokens = 131072;
// The smallest context drawn: one KV allocation block (kKvBlockTokens).
inline constexpr uint64_t kPlotMinTokens = 256;

// One stacked component of a figure: how it is named and drawn.
struct PlotComponent {
  std::string key;        // its band's data-component: "weights", "kv", ...
  std::string attribute;  // its samples' data-<attribute>-bytes: "allocator-overhead"
  std::string legend;     // in the legend: "allocator overhead"
  std::string term;       // in a sample's title: "allocator"
  std::string color;      // fill, "#rrggbb"
  bool named_when_zero = true;  // false: left out of a sample's title at 0 B
};

// mlxcel's five components (mlxcel.h), bottom to top, and their indices
// in PlotSample::bytes.
const std::vector<PlotComponent>& mlxcel_plot_components();
namespace plot_mlxcel {
inline constexpr size_t kWeights = 0, kKv = 1, kAllocator = 2, kActivation = 3, kInflight = 4;
}  // namespace plot_mlxcel

// llama.cpp's three categories (llamacpp.h), its context split into what
// grows with --ctx-size (KV cache) and what does not (recurrent state, the
// output buffer): model, KV cache, recurrent state, output, compute.
const std::vector<PlotComponent>& llamacpp_plot_components();
namespace plot_llamacpp {
inline constexpr size_t kModel = 0, kKv = 1, kRecurrent = 2, kOutput = 3, kCompute = 4;
}  // namespace plot_llamacpp

// One estimate at one context length: its components' bytes, in the order
// of PlotData::components, which sum to total_bytes.
struct PlotSample {
  uint64_t tokens = 0;
  std::vector<uint64_t> bytes;
  uint64_t total_bytes = 0;
};

// One weight mode at one KV width: one panel of the figure.
struct PlotPanel {
  std::string title;  // "as-is weights (7.74 GiB) · fp16 KV cache", "f16 cache · model 4.66 GiB"
  std::string weights_mode;  // "as-is", "int8", "int4"
  KvElement kv_element = KvElement::kFp16;  // mlxcel's panels
  // The KV width as the engine spells it, as the figure names the panel:
  // "fp16", "int8" (mlxcel); "f16", "q8_0", "q4_0", "q8_0/f16" for K/V
  // types that differ (llama.cpp).
  std::string kv_cache_mode;
  uint64_t weights_bytes = 0;
  std::vector<PlotSample> samples;  // ascending tokens, min..max of PlotData
  // The solver's largest context that fits; nullopt when not even one
  // token does. capped: it is the solver's ceiling (see
  // PlotData::capped_fits_any_context).
  std::optional<uint64_t> max_tokens_that_fit;
  bool capped = false;
};

struct PlotData {
  std::string title;  // the model as the figure names it
  uint64_t batch = 1;  // mlxcel's batch
  // What the figure holds fixed, first in its subtitle: "batch 1", or
  // llama.cpp's settings.
  std::string fixed_settings;
  // The x axis caption's head, before "(log scale: ...)".
  std::string context_label = "context length in tokens";
  uint64_t min_tokens = kPlotMinTokens;
  uint64_t max_tokens = kPlotDefaultMaxTokens;
  uint64_t budget_bytes = 0;
  std::string budget_source;  // "explicit", "meminfo", ...
  // Row-major: one row per weight mode, `columns` KV widths per row.
  std::vector<PlotPanel> panels;
  size_t columns = 1;
  std::vector<PlotComponent> components;  // bottom to top
  // What a capped panel means. mlxcel's solver stops at kMaxSolvedTokens,
  // which it reaches only when the cache stops growing: any context fits.
  // llama.cpp's stops at the range end or the training context: the
  // panel fits the whole range, and no more is claimed.
  bool capped_fits_any_context = true;
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
// replaces model.weights.bytes. The crossing of each panel is solve_mlxcel()'s,
// and it is also sampled when it falls inside the range, so the drawn
// stack touches the budget exactly there.
// Fails on a request with no weight modes or KV widths, max_tokens < 2, and
// on arithmetic overflow in the estimator; the error names the panel.
Result<PlotData> compute_plot(const Model& model, const MlxcelInputs& inputs,
                              const MlxcelSettings& settings, const Platform& platform,
                              const MemoryBudget& budget, const PlotRequest& request);

// The llama.cpp figure: --ctx-size from plot_min_tokens(max_tokens) to
// max_tokens on the x axis, every other setting as `settings` gives it
// (its ctx_size is ignored).
struct LlamaCppPlotRequest {
  std::string title;
  LlamaCppSettings settings;
  // true: one panel per cache type solve_llamacpp_each_cache_type() answers
  // for (f16, q8_0, q4_0; f16 alone with flash attention off), K and V
  // both set to it. false: one panel at settings' own K and V types.
  bool each_cache_type = true;
  uint64_t max_tokens = kPlotDefaultMaxTokens;  // at least 2
};

// Evaluates every panel with estimate_llamacpp() at each sampled context.
// The crossing is solve_llamacpp(kCtxSize)'s answer with its ceiling the
// larger of the training context and max_tokens (llama.cpp runs past its
// training context, so a range drawn past it is solved past it too), and
// it is sampled when it falls inside the range. A capped panel fits the
// whole range. Fails on max_tokens < 2 and with the estimator's errors
// (kUsage for settings llama.cpp refuses); the error names the panel.
Result<PlotData> compute_llamacpp_plot(const Model& model, const MemoryBudget& budget,
                                       const LlamaCppPlotRequest& request);

// The figure: a title with the budget, a legend, and a grid of panels
// (rows: weight modes; columns: KV widths) on one shared byte scale and a
// log2 context axis. Each panel stacks the data's components (those with
// bytes in some sample; mlxcel: weights, KV cache, allocator overhead,
// activation, backend in-flight), draws the budget as a dashed line
// labelled in GiB, and marks the crossing ("fp16: 35,584 tokens"), or says
// in words that the panel fits the whole range or never fits.
// Deterministic: the same data gives the same bytes.
std::string render_plot_svg(const PlotData& data);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_PLOT_H_
