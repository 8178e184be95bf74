// ServiceContext: what one request gets from the service (request.h's
// RequestContext): its model, resolved through the roots and taken from the
// cache; the service's settings and platform; the host snapshot for the
// service's device (another device is queried for the request). Private to
// src/service.
#ifndef MEMFIT_SERVICE_SERVICE_CONTEXT_H_
#define MEMFIT_SERVICE_SERVICE_CONTEXT_H_

#include <memory>
#include <string>
#include <vector>

#include "memfit/request.h"
#include "service/service_state.h"

namespace memfit::service {

class ServiceContext final : public RequestContext {
 public:
  // `state` must outlive the context; `resolved` is the request's model.
  ServiceContext(ServiceState& state, ResolvedModel resolved);

  // The cached model (a second entry, with its tensor list, when asked):
  // the request's own, or another `name` the request gives (a draft),
  // resolved through the roots as the request's is (one that does not
  // resolve is a kUsage Error); the cache's 422 model_unreadable becomes a
  // kInput Error with its text, its 400 bad_request a kUsage one.
  Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                  const OpenModelOptions& options) override;
  const MlxcelSettings& settings() const override;
  const std::vector<std::string>& settings_warnings() const override;
  Platform platform() const override;
  HostMemoryStatus host_memory(const DeviceSelector& device,
                               std::optional<uint64_t> explicit_limit_bytes) override;
  // A file under the roots only (ModelRoots::resolve): another path is a
  // kUsage error naming `field`.
  Result<GgufHeader> read_gguf_header(std::string_view field, const std::string& path) override;

 private:
  ServiceState& state_;
  ResolvedModel resolved_;
};

// The model a request names: a path under the roots (ModelRoots::resolve),
// else, for a Hugging Face name the roots do not hold (nor its "org"
// folder), the name itself when the service allows the Hub
// (ResolvedModel::hub), or 403 hub_not_allowed.
ApiResult<ResolvedModel> resolve_request_model(const ServiceState& state, std::string_view name);

// The HTTP status and code of a library error, from its kind:
//   usage 400 bad_request, input 422 model_unreadable, overflow 422
//   estimate_failed, host 422 host_error, internal 500 internal_error;
// the error object carries "kind" (and "field" for a usage error about one).
ApiError api_error_of(const Error& error);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_SERVICE_CONTEXT_H_
