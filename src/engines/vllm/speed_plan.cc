// The vLLM plan for the speed estimate (speed_plan.h).
#include "engines/vllm/speed_plan.h"

#include "memfit/checked_math.h"

namespace memfit {

SpeedPlan vllm_speed_plan(const PreparedRequest& run, const VllmEstimate& e) {
  const uint64_t kv = (CheckedBytes(e.layout.blocks_per_request) * e.layout.bytes_per_block).saturated();
  SpeedPlan plan = single_device_speed_plan(run, run.platform.backend == Backend::kRocm ? "rocm" : "cuda",
                                            e.weights.bytes, kv, e.settings.max_model_len,
                                            e.settings.max_model_len);
  if (e.settings.runner == VllmRunner::kPooling) {
    plan.no_decode = "--runner pooling returns vectors and scores, not tokens";
  }
  return plan;
}

}  // namespace memfit
