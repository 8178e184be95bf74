// The vLLM plan as the speed estimate reads it
// (engines/shared/speed_report.h): the report's and the fit's.
#ifndef MEMFIT_ENGINES_VLLM_SPEED_PLAN_H_
#define MEMFIT_ENGINES_VLLM_SPEED_PLAN_H_

#include "engines/shared/speed_report.h"
#include "memfit/request.h"
#include "memfit/vllm.h"

namespace memfit {

// One request of --max-model-len, its prompt the whole of it: a rank's
// weights and that request's blocks (tensor-parallel ranks read theirs at
// once) on its GPU. Under --runner pooling nothing is decoded:
// SpeedPlan::no_decode.
SpeedPlan vllm_speed_plan(const PreparedRequest& run, const VllmEstimate& e);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_SPEED_PLAN_H_
