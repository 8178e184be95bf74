// Solving the llama.cpp profile (llamacpp.h) for the settings that fit:
// the largest --ctx-size, or the largest --parallel at a given --ctx-size,
// whose estimate stays within the budget. What `memfit fit`, /v1/fit and
// the plot's crossings answer for a llamacpp request.
#ifndef MEMFIT_LLAMACPP_SOLVER_H_
#define MEMFIT_LLAMACPP_SOLVER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "memfit/ggml_types.h"
#include "memfit/llamacpp.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class LlamaCppSolveFor {
  // The largest --ctx-size (total cells over all sequences) up to the
  // model's training context, or kMaxSolvedTokens when it declares none.
  // Every term grows with the context, so it is found by bisection; the
  // answer is a multiple of 256 (llama.cpp pads to it) or the ceiling.
  kCtxSize,
  // The largest --parallel in 1 .. 256 with every sequence keeping at least
  // kLlamaCppMinSequenceCells of --ctx-size (llama-server's slots). Padding
  // each stream to 256 cells makes the cells non-monotone in n_seq (4,096
  // over 3 streams is 4,608 cells, over 4 is 4,096), so every value is tried.
  kParallel,
  // The most layers on the GPUs (-ngl 0 .. blocks + 1) at which every
  // device fits its free memory less the margin. Fitting is not monotone
  // in -ngl (the host gains what the GPUs lose), so every value is tried,
  // from all down. Capped: every layer fits.
  kGpuLayers,
  // The fewest blocks whose experts stay on the host (--n-cpu-moe 0 ..
  // blocks) at the request's -ngl, tried from 0 up. Capped: 0 (no expert
  // needs to stay on the host). Needs GPUs; refused for a dense model.
  kNCpuMoe,
};

// The least context one sequence of a `fit --solve parallel` answer keeps:
// one padded block of cells.
inline constexpr uint64_t kLlamaCppMinSequenceCells = kLlamaCppCellPad;

// The cache types a fit answers for, K and V alike, widest first: what
// --cache-type-k/-v users choose between. Quantized V needs flash
// attention: with --flash-attn off only f16 is solved.
inline constexpr std::array<GgmlType, 3> kLlamaCppSolvedCacheTypes = {GgmlType::kF16, GgmlType::kQ8_0,
                                                                      GgmlType::kQ4_0};

struct LlamaCppSolution {
  GgmlType cache_type = GgmlType::kF16;  // K and V
  std::optional<uint64_t> value;         // nullopt: not even the smallest value fits
  bool capped = false;                   // value is the ceiling: the training context, or 256;
                                         // every layer (gpu-layers); 0 (n-cpu-moe)
  std::optional<LlamaCppEstimate> estimate;  // the estimate at value
};

// Solves with every setting but the solved one fixed by `settings`
// (kParallel reads its ctx_size, 0 meaning the training context). An
// estimate that fails at a candidate (a context past 64-bit bytes) does
// not fit; a setting that fails at every candidate (a quantized V with
// flash attention off, no training context for --ctx-size 0) is the error.
Result<LlamaCppSolution> solve_llamacpp(LlamaCppSolveFor what, const Model& model,
                                        const LlamaCppSettings& settings, const MemoryBudget& budget);

// solve_llamacpp() at each of kLlamaCppSolvedCacheTypes (K and V both set
// to it; settings' own types are ignored), skipping the quantized ones when
// flash attention is off and those the model's cache rows cannot take (a
// row that is not a whole number of the type's blocks).
Result<std::vector<LlamaCppSolution>> solve_llamacpp_each_cache_type(LlamaCppSolveFor what,
                                                                     const Model& model,
                                                                     const LlamaCppSettings& settings,
                                                                     const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMACPP_SOLVER_H_
