// LogRequestContext (log_context.h): the log's platform, a stand-in host.
#include "logs/log_context.h"

namespace memfit::logs {
namespace {

Platform platform_of(const RuntimeLog& log) {
  Platform p;
  if (log.backend == "CUDA") p.backend = Backend::kCuda;
  if (log.backend == "ROCm") p.backend = Backend::kRocm;
  if (log.backend == "CPU") p.backend = Backend::kCpu;
  if (log.backend == "Metal") {
    p.backend = Backend::kMetal;
    p.os = HostOs::kMacos;
  }
  return p;
}

}  // namespace

LogRequestContext::LogRequestContext(RequestContext* models, std::shared_ptr<const Model> model,
                                     const RuntimeLog& log)
    : models_(models), model_(std::move(model)), platform_(platform_of(log)) {}

Result<std::shared_ptr<const Model>> LogRequestContext::open_model(const std::string& name,
                                                                   const OpenModelOptions& options) {
  if (model_) return model_;
  if (models_ == nullptr) return Error::usage("model", "this front end opens no model by name");
  return models_->open_model(name, options);
}

const MlxcelSettings& LogRequestContext::settings() const {
  return models_ != nullptr ? models_->settings() : defaults_;
}

const std::vector<std::string>& LogRequestContext::settings_warnings() const {
  return models_ != nullptr ? models_->settings_warnings() : no_warnings_;
}

HostMemoryStatus LogRequestContext::host_memory(const DeviceSelector&, std::optional<uint64_t>) {
  HostMemoryStatus host;
  host.os = platform_.os == HostOs::kMacos ? "macos" : "linux";
  host.ram_total_bytes = host.available_now_bytes = host.ram_available_bytes = kLogBudgetBytes;
  host.budget_bytes = kLogBudgetBytes;
  host.budget_source = BudgetSource::kExplicit;
  host.device = "cpu";
  return host;
}

}  // namespace memfit::logs
