// ServiceState: what a Service holds, shared by its request threads, and
// the handlers of its endpoints (handlers.cc). Private to src/service.
#ifndef MEMFIT_SERVICE_SERVICE_STATE_H_
#define MEMFIT_SERVICE_SERVICE_STATE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "memfit/service.h"
#include "service/metrics.h"
#include "service/model_cache.h"
#include "service/model_roots.h"
#include "service/server_paths.h"

namespace memfit {

namespace service {

// One host query reused for `reuse_ms` (steady clock) by every request.
class HostSnapshot {
 public:
  HostSnapshot(std::function<HostMemoryStatus()> query, uint64_t reuse_ms)
      : query_(std::move(query)), reuse_(std::chrono::milliseconds(reuse_ms)) {}

  // The current status, querying the host when the last query is older
  // than reuse_ms. Thread-safe; concurrent callers wait for one query.
  std::shared_ptr<const HostMemoryStatus> get();

 private:
  std::function<HostMemoryStatus()> query_;
  std::chrono::steady_clock::duration reuse_;
  std::mutex mu_;
  std::shared_ptr<const HostMemoryStatus> status_;    // guarded by mu_
  std::chrono::steady_clock::time_point queried_at_;  // guarded by mu_
};

}  // namespace service

struct ServiceState {
  ServiceState(ServiceOptions o, service::ModelRoots r);

  ServiceOptions options;
  service::ModelRoots roots;
  service::ModelCache cache;  // refers to `roots`: declared after it
  service::HostSnapshot host;
  service::ServiceMetrics metrics;
  // The roots, the Hugging Face cache, the system root and the GPU
  // libraries: taken out of every JSON answer (Service::handle).
  service::ServerPaths server_paths;
};

namespace service {

// The cached model a request names, or the error response for it
// (invalid_model_path, model_outside_roots, model_not_found,
// model_unreadable).
ApiResult<std::shared_ptr<const CachedModel>> model_named(ServiceState& state,
                                                          std::string_view name);


// The endpoints. Each returns its response, errors included; exceptions
// are caught by Service::handle.
HttpResponse handle_estimate(ServiceState& state, std::string_view body);
HttpResponse handle_fit(ServiceState& state, std::string_view body);
HttpResponse handle_admit(ServiceState& state, std::string_view body);
HttpResponse handle_check_log(ServiceState& state, std::string_view body);  // check_log_handler.cc
HttpResponse handle_models(ServiceState& state);
// GET /v1/engines: the engines and their request fields (engines_handler.cc).
HttpResponse handle_engines();
// GET /v1/hardware: the hardware table (memfit/hardware.h: hardware_to_json).
HttpResponse handle_hardware();
HttpResponse handle_metrics(ServiceState& state);
HttpResponse handle_health();

}  // namespace service
}  // namespace memfit

#endif  // MEMFIT_SERVICE_SERVICE_STATE_H_
