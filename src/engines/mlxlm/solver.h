// The mlx-lm profile's fit (engine.h): the largest --max-tokens (tokens
// generated after the prompt), --prompt-tokens or --batch-size whose peak
// (estimate_mlxlm(), mlxlm.h) fits the budget, the other settings as
// given. Private to the library.
//
// The peak never falls as the token counts grow (more cache slots), so a
// binary search over 1 .. kMlxLmMaxTokens finds them; a value at the
// ceiling is reported as capped. In the batch the peak is not monotonic at
// small batches (the run-ahead transient commits larger rows sooner, and
// the current release's one row of logits can put batch 1 above batch 2),
// so batches 1 .. kMlxLmBatchScanned are each priced and the search runs
// above them only when the last of them fits. Because the cache grows in steps
// of 256 tokens (docs/engine-mlxlm.md), the answer for max-tokens ends a
// step: prompt + max_tokens is the cache's capacity unless the transient
// rather than the cache is what stops it.
#ifndef MEMFIT_ENGINES_MLXLM_SOLVER_H_
#define MEMFIT_ENGINES_MLXLM_SOLVER_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "memfit/memory_budget.h"
#include "memfit/mlxlm.h"
#include "memfit/model.h"
#include "memfit/result.h"

namespace memfit {

enum class MlxLmSolveFor { kMaxTokens, kPromptTokens, kBatch };
inline constexpr uint64_t kMlxLmBatchScanned = 16;
// "max-tokens", "prompt-tokens", "batch"
std::string_view to_string(MlxLmSolveFor what);

// "max-tokens", "prompt-tokens" or "batch"; another engine's solve is a kUsage error about
// "solve" naming that engine.
Result<MlxLmSolveFor> parse_mlxlm_solve(std::string_view text);

struct MlxLmSolution {
  std::optional<uint64_t> value;  // nullopt: not even 1 fits
  bool capped = false;            // value is kMlxLmMaxTokens: the search's ceiling
  // The estimate at value (at 1 when nothing fits, to show why).
  std::optional<MlxLmEstimate> estimate;
};

// The answer for `what`, `settings` giving everything else. Usage errors
// as estimate_mlxlm() gives them for the other settings; a value whose
// sizes overflow counts as not fitting.
Result<MlxLmSolution> solve_mlxlm(MlxLmSolveFor what, const Model& model,
                                  const MlxLmSettings& settings, const MemoryBudget& budget);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_SOLVER_H_
