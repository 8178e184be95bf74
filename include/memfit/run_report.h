// The answer to a request, as every front end prints it: the JSON object
// of `memfit inspect --json`, POST /v1/estimate and the C API's JSON calls,
// and the text table of `memfit inspect`.
#ifndef MEMFIT_RUN_REPORT_H_
#define MEMFIT_RUN_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// estimate_to_json (report.h) with every warning of the run, and
// "parallel" when the run has a per-rank plan.
nlohmann::ordered_json run_to_json(const EstimateRun& run);

// render_estimate_text, then the per-rank plan's table when there is one.
std::string render_run_text(const EstimateRun& run);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_RUN_REPORT_H_
