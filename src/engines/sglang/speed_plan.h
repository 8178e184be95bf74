// SGLang's plan as the speed estimate reads it
// (engines/shared/speed_report.h). Private to the library.
#ifndef MEMFIT_ENGINES_SGLANG_SPEED_PLAN_H_
#define MEMFIT_ENGINES_SGLANG_SPEED_PLAN_H_

#include <cstdint>

#include "engines/sglang/plan.h"
#include "engines/shared/speed_report.h"
#include "memfit/request.h"

namespace memfit::sglang {

// The KV bytes one request of `plan`'s context_length holds on one rank
// at its end: every full-attention layer's cell for each token, a
// sliding-window layer's for the last window_tokens only (the model's
// widest window). Saturates at UINT64_MAX (checked arithmetic).
uint64_t request_kv_bytes(const ModelSpec& spec, const Plan& plan);

// One request of context_length, its prompt the whole of it (as vLLM's):
// one rank's weights and the request's KV bytes on its GPU, the ranks of
// tensor parallelism reading theirs at once, so one rank's time is the
// token's (docs/speed.md, "In the report"). A pooling architecture
// (ModelSpec::embedding.by_architecture) decodes nothing:
// SpeedPlan::no_decode.
SpeedPlan sglang_speed_plan(const PreparedRequest& run, const Plan& plan);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_SPEED_PLAN_H_
