// LogRequestContext: the world a logged run is priced in (request.h's
// RequestContext). The machine is the log's: nothing of this host is read;
// the budget is a stand-in (kLogBudgetBytes, explicit) since a check
// compares figures and asks no fit. Private to src/logs.
#ifndef MEMFIT_LOGS_LOG_CONTEXT_H_
#define MEMFIT_LOGS_LOG_CONTEXT_H_

#include <memory>
#include <string>
#include <vector>

#include "memfit/request.h"
#include "memfit/runtime_log.h"

namespace memfit::logs {

// 2^60 bytes: large enough that no budget decides anything in a check.
inline constexpr uint64_t kLogBudgetBytes = 1ull << 60;

class LogRequestContext final : public RequestContext {
 public:
  // `model`, when set, is the model every name opens (rebuilt from the log
  // or read from a config); otherwise names go to `models` (null: none is
  // opened). `models`, when set, must outlive this context.
  LogRequestContext(RequestContext* models, std::shared_ptr<const Model> model,
                    const RuntimeLog& log);

  Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                  const OpenModelOptions& options) override;
  const MlxcelSettings& settings() const override;
  const std::vector<std::string>& settings_warnings() const override;
  Platform platform() const override { return platform_; }
  HostMemoryStatus host_memory(const DeviceSelector& device,
                               std::optional<uint64_t> explicit_limit_bytes) override;

 private:
  RequestContext* models_;
  std::shared_ptr<const Model> model_;
  Platform platform_;
  MlxcelSettings defaults_;
  std::vector<std::string> no_warnings_;
};

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_CONTEXT_H_
