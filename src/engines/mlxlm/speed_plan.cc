// The mlx-lm plan for the speed estimate (speed_plan.h).
#include "engines/mlxlm/speed_plan.h"

#include "memfit/checked_math.h"

namespace memfit {

SpeedPlan mlxlm_speed_plan(const PreparedRequest& run, const MlxLmEstimate& e) {
  const uint64_t context = e.settings.prompt_tokens + e.settings.max_tokens;
  const uint64_t kv = (CheckedBytes(e.kv_bytes_per_token) * context).saturated();
  SpeedPlan plan =
      single_device_speed_plan(run, "mlx", e.weights_bytes, kv, context, e.settings.prompt_tokens);
  // On a Mac, a process's first forward pass builds its Metal kernels
  // (kMlxLmFirstCall, memfit/speed.h); MLX's CUDA build compiles others,
  // at a cost no published run measures.
  if (run.speed_machine.unified) plan.first_call = first_call_seconds(plan.engine);
  return plan;
}

}  // namespace memfit
