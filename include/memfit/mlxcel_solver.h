// Solving for the settings that fit: the largest context, batch or slot
// count whose estimate stays within the budget, found by bisection over
// the same estimator inspect uses (every term is non-decreasing in each of
// these, so "fits" is monotone).
#ifndef MEMFIT_MLXCEL_SOLVER_H_
#define MEMFIT_MLXCEL_SOLVER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "memfit/engine.h"
#include "memfit/mlxcel.h"
#include "memfit/result.h"
#include "memfit/mlxcel_serve_plan.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Search ceilings: an answer equal to its ceiling is reported as capped
// (a model whose cache stops growing, such as a pure SSM, fits any
// context). The context's, kMaxSolvedTokens, is every engine's (engine.h).
inline constexpr uint64_t kMaxSolvedBatch = 1ull << 20;

enum class MlxcelSolveFor { kMaxTokens, kBatch, kSlots };

struct MlxcelSolution {
  std::optional<uint64_t> value;  // nullopt: not even the smallest value fits
  bool capped = false;            // value is the search ceiling
  std::optional<MlxcelEstimate> estimate;  // the estimate at value
};

// Solves with everything but the solved quantity fixed by `inputs` (and,
// for kSlots, by `serve`: the total --ctx-size is split among the slots,
// each slot at least kMinSlotContextTokens).
Result<MlxcelSolution> solve_mlxcel(MlxcelSolveFor what, const Model& model, const MlxcelInputs& inputs,
                                    const MlxcelSettings& settings, const Platform& platform,
                                    const MemoryBudget& budget, const MlxcelServeOptions& serve = {});

// solve_mlxcel() at each KV width of kAllKvElements, in that order (widest
// first); inputs.kv_element is ignored. What `memfit fit`, /v1/fit and the
// calculator page answer with.
Result<std::vector<MlxcelSolution>> solve_mlxcel_each_kv_width(MlxcelSolveFor what, const Model& model,
                                                               const MlxcelInputs& inputs,
                                                               const MlxcelSettings& settings,
                                                               const Platform& platform,
                                                               const MemoryBudget& budget,
                                                               const MlxcelServeOptions& serve = {});

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXCEL_SOLVER_H_
