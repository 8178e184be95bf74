// The mlxcel profile's solver (memfit/solver.h): the largest context,
// batch or slot count whose estimate() fits, by bisection.
#include "memfit/solver.h"

#include "engines/shared/largest_fitting.h"

namespace memfit {

Result<Solution> solve(SolveFor what, const Model& model, const EstimateInputs& inputs,
                       const EstimateSettings& settings, const Platform& platform,
                       const MemoryBudget& budget, const ServeOptions& serve) {
  // The inputs at candidate value v.
  auto inputs_at = [&](uint64_t v) -> Result<EstimateInputs> {
    EstimateInputs in = inputs;
    if (what == SolveFor::kMaxTokens) {
      in.max_tokens = v;
    } else if (what == SolveFor::kBatch) {
      in.batch = v;
    } else {
      ServeOptions o = serve;
      o.max_batch_size = v;
      o.no_batch = false;
      Result<ServeSlots> slots = serve_slots(o);
      if (!slots) return slots.error();
      in.max_tokens = slots->effective_context;
      in.batch = slots->active_slots;
    }
    return in;
  };
  // An estimate that overflows, or a slot count that leaves slots too
  // short, does not fit.
  auto fits = [&](uint64_t v) -> Result<bool> {
    Result<EstimateInputs> in = inputs_at(v);
    if (!in) return false;
    Result<Estimate> e = estimate(model, *in, settings, platform, budget);
    return e.ok() && e->fits;
  };
  uint64_t ceiling = what == SolveFor::kMaxTokens ? kMaxSolvedTokens : kMaxSolvedBatch;
  if (what == SolveFor::kSlots && serve.ctx_size > 0) {
    ceiling = std::max<uint64_t>(1, serve.ctx_size / kMinSlotContextTokens);
  }
  Result<std::optional<uint64_t>> value = largest_fitting(1, ceiling, fits);
  if (!value) return value.error();
  Solution s;
  s.value = *value;
  if (s.value) {
    s.capped = *s.value == ceiling;
    Result<EstimateInputs> in = inputs_at(*s.value);
    if (!in) return in.error();
    Result<Estimate> e = estimate(model, *in, settings, platform, budget);
    if (!e) return e.error();
    s.estimate = std::move(*e);
  }
  return s;
}

Result<std::vector<Solution>> solve_each_kv_width(SolveFor what, const Model& model,
                                                  const EstimateInputs& inputs,
                                                  const EstimateSettings& settings,
                                                  const Platform& platform,
                                                  const MemoryBudget& budget,
                                                  const ServeOptions& serve) {
  std::vector<Solution> solutions;
  for (KvElement element : kAllKvElements) {
    EstimateInputs at_width = inputs;
    at_width.kv_element = element;
    Result<Solution> s = solve(what, model, at_width, settings, platform, budget, serve);
    if (!s) return s.error();
    solutions.push_back(std::move(*s));
  }
  return solutions;
}

}  // namespace memfit
