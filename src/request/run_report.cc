// The answer to a request as its engine renders it (run_report.h).
#include "memfit/run_report.h"

namespace memfit {

nlohmann::ordered_json run_to_json(const EstimateRun& run) { return run.engine->report_json(run); }

std::string render_run_text(const EstimateRun& run) { return run.engine->report_text(run); }

}  // namespace memfit
