// EngineProfile::device_claims' default (engine.h): the whole run on the
// budget's device, as its own report totals it, so an engine that keeps
// one figure needs no override to be priced beside other models
// (docs/multi-model.md).
#include "memfit/engine.h"
#include "memfit/request.h"

namespace memfit {

std::vector<DeviceClaim> EngineProfile::device_claims(const EstimateRun& run) const {
  const nlohmann::ordered_json report = report_json(run);
  DeviceClaim claim;
  claim.device = run.host.device.empty() ? std::string("cpu") : run.host.device;
  claim.bytes = report.value("total_bytes", uint64_t{0});
  claim.budget_bytes = report.value("budget_bytes", uint64_t{0});
  return {claim};
}

}  // namespace memfit
