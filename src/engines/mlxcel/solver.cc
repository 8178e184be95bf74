// The mlxcel profile's solver (memfit/mlxcel_solver.h): the largest context,
// batch or slot count whose estimate_mlxcel() fits, by bisection.
#include "memfit/mlxcel_solver.h"

#include "engines/shared/largest_fitting.h"

namespace memfit {

Result<MlxcelSolution> solve_mlxcel(MlxcelSolveFor what, const Model& model, const MlxcelInputs& inputs,
                                    const MlxcelSettings& settings, const Platform& platform,
                                    const MemoryBudget& budget, const MlxcelServeOptions& serve) {
  // The inputs at candidate value v.
  auto inputs_at = [&](uint64_t v) -> Result<MlxcelInputs> {
    MlxcelInputs in = inputs;
    if (what == MlxcelSolveFor::kMaxTokens) {
      in.max_tokens = v;
    } else if (what == MlxcelSolveFor::kBatch) {
      in.batch = v;
    } else {
      MlxcelServeOptions o = serve;
      o.max_batch_size = v;
      o.no_batch = false;
      Result<MlxcelServeSlots> slots = mlxcel_serve_slots(o);
      if (!slots) return slots.error();
      in.max_tokens = slots->effective_context;
      in.batch = slots->active_slots;
    }
    return in;
  };
  // An estimate that overflows, or a slot count that leaves slots too
  // short, does not fit.
  auto fits = [&](uint64_t v) -> Result<bool> {
    Result<MlxcelInputs> in = inputs_at(v);
    if (!in) return false;
    Result<MlxcelEstimate> e = estimate_mlxcel(model, *in, settings, platform, budget);
    return e.ok() && e->fits;
  };
  uint64_t ceiling = what == MlxcelSolveFor::kMaxTokens ? kMaxSolvedTokens : kMaxSolvedBatch;
  if (what == MlxcelSolveFor::kSlots && serve.ctx_size > 0) {
    ceiling = std::max<uint64_t>(1, serve.ctx_size / kMinSlotContextTokens);
  }
  Result<std::optional<uint64_t>> value = largest_fitting(1, ceiling, fits);
  if (!value) return value.error();
  MlxcelSolution s;
  s.value = *value;
  if (s.value) {
    s.capped = *s.value == ceiling;
    Result<MlxcelInputs> in = inputs_at(*s.value);
    if (!in) return in.error();
    Result<MlxcelEstimate> e = estimate_mlxcel(model, *in, settings, platform, budget);
    if (!e) return e.error();
    s.estimate = std::move(*e);
  }
  return s;
}

Result<std::vector<MlxcelSolution>> solve_mlxcel_each_kv_width(MlxcelSolveFor what, const Model& model,
                                                               const MlxcelInputs& inputs,
                                                               const MlxcelSettings& settings,
                                                               const Platform& platform,
                                                               const MemoryBudget& budget,
                                                               const MlxcelServeOptions& serve) {
  std::vector<MlxcelSolution> solutions;
  for (KvElement element : kAllKvElements) {
    MlxcelInputs at_width = inputs;
    at_width.kv_element = element;
    Result<MlxcelSolution> s = solve_mlxcel(what, model, at_width, settings, platform, budget, serve);
    if (!s) return s.error();
    solutions.push_back(std::move(*s));
  }
  return solutions;
}

}  // namespace memfit
