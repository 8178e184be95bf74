// SGLang's plan for the speed estimate (speed_plan.h).
#include "engines/sglang/speed_plan.h"

#include <algorithm>

#include "memfit/checked_math.h"

namespace memfit::sglang {

uint64_t request_kv_bytes(const ModelSpec& spec, const Plan& plan) {
  const uint64_t context = plan.settings.context_length;
  if (plan.cell.swa_layers == 0) return (CheckedBytes(plan.cell.bytes) * context).saturated();
  uint64_t window = 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kSlidingWindow || l.kind == LayerKind::kChunked) {
      window = std::max(window, l.window_tokens);
    }
  }
  // Each pool's bytes a token (plan.cc: kv_cell).
  return (CheckedBytes(plan.cell.full_bytes) * context +
          CheckedBytes(plan.cell.swa_bytes) * std::min(window, context))
      .saturated();
}

SpeedPlan sglang_speed_plan(const PreparedRequest& run, const Plan& plan) {
  const uint64_t context = plan.settings.context_length;
  // A token reads the tensors, not the allocator's rounding (plan.h).
  SpeedPlan speed = single_device_speed_plan(run, run.platform.backend == Backend::kRocm ? "rocm" : "cuda",
                                             plan.speed_weights_bytes,
                                             request_kv_bytes(run.model->spec, plan), context, context);
  // A pooling architecture (what vLLM's --runner auto reads too): SGLang
  // serves it as an embedding model (is_generation false); an encoder
  // never gets here (plan.cc refuses it).
  if (run.model->spec.embedding.by_architecture) {
    speed.no_decode = "an embedding or reranking model: SGLang returns vectors and scores, not tokens";
  }
  return speed;
}

}  // namespace memfit::sglang
