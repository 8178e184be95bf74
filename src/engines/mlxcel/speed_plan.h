// The mlxcel plan as the speed estimate reads it
// (engines/shared/speed_report.h): the report's and the fit's.
#ifndef MEMFIT_ENGINES_MLXCEL_SPEED_PLAN_H_
#define MEMFIT_ENGINES_MLXCEL_SPEED_PLAN_H_

#include "engines/shared/speed_report.h"
#include "memfit/mlxcel.h"
#include "memfit/request.h"

namespace memfit {

// The weights and the whole cache on one device, max_tokens for every
// sequence, the prompt the whole of it.
SpeedPlan mlxcel_speed_plan(const PreparedRequest& run, const MlxcelEstimate& e);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXCEL_SPEED_PLAN_H_
