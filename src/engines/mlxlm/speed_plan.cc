// The mlx-lm plan for the speed estimate (speed_plan.h).
#include "engines/mlxlm/speed_plan.h"

#include "memfit/checked_math.h"

namespace memfit {

SpeedPlan mlxlm_speed_plan(const PreparedRequest& run, const MlxLmEstimate& e) {
  const uint64_t context = e.settings.prompt_tokens + e.settings.max_tokens;
  const uint64_t kv = (CheckedBytes(e.kv_bytes_per_token) * context).saturated();
  return single_device_speed_plan(run, "mlx", e.weights_bytes, kv, context, e.settings.prompt_tokens);
}

}  // namespace memfit
