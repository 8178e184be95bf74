// The mlx-lm plan as the speed estimate reads it
// (engines/shared/speed_report.h): the report's, the fit's and
// recommend-quant's rows share it.
#ifndef MEMFIT_ENGINES_MLXLM_SPEED_PLAN_H_
#define MEMFIT_ENGINES_MLXLM_SPEED_PLAN_H_

#include "engines/shared/speed_report.h"
#include "memfit/mlxlm.h"
#include "memfit/request.h"

namespace memfit {

// The whole model and cache on one device (a Mac's memory, else the first
// GPU): `e`'s weights, and its cache at the end of the prompt asked
// (--prompt-tokens) then --max-tokens generated; the prompt is
// --prompt-tokens. On a Mac the plan carries mlx-lm's first-call cost
// (SpeedPlan::first_call: kMlxLmFirstCall, memfit/speed.h).
SpeedPlan mlxlm_speed_plan(const PreparedRequest& run, const MlxLmEstimate& e);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_SPEED_PLAN_H_
