// The mlxcel plan for the speed estimate (speed_plan.h).
#include "engines/mlxcel/speed_plan.h"

namespace memfit {

SpeedPlan mlxcel_speed_plan(const PreparedRequest& run, const MlxcelEstimate& e) {
  return single_device_speed_plan(run, "mlx", e.weights_bytes, e.kv.total_bytes, e.inputs.max_tokens,
                                  e.inputs.max_tokens);
}

}  // namespace memfit
