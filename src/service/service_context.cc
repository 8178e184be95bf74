#include "service/service_context.h"

#include "memfit/request_json.h"

namespace memfit::service {

ServiceContext::ServiceContext(ServiceState& state, ResolvedModel resolved)
    : state_(state), resolved_(std::move(resolved)) {}

Result<std::shared_ptr<const Model>> ServiceContext::open_model(const std::string&,
                                                                const OpenModelOptions& options) {
  ApiResult<std::shared_ptr<const CachedModel>> cached = state_.cache.get(resolved_, options);
  if (!cached.ok()) {
    return Error(cached.error().message,
                 cached.error().status == 400 ? ErrorKind::kUsage : ErrorKind::kInput);
  }
  cached_ = *cached;
  // Shares ownership of the cache entry, points at its model.
  return std::shared_ptr<const Model>(cached_, &cached_->model);
}

const EstimateSettings& ServiceContext::settings() const { return state_.options.settings; }

const std::vector<std::string>& ServiceContext::settings_warnings() const {
  return state_.options.settings_warnings;
}

Platform ServiceContext::platform() const { return state_.options.platform; }

HostMemoryStatus ServiceContext::host_memory(const DeviceSelector& device,
                                             std::optional<uint64_t> explicit_limit_bytes) {
  const DeviceSelector& own = state_.options.host.device;
  HostMemoryStatus status;
  if (device.kind == own.kind && device.index == own.index) {
    status = *state_.host.get();  // the service's own limit already applied
  } else {
    HostQueryOptions options = state_.options.host;
    options.device = device;
    status = query_host_memory(options);
  }
  if (explicit_limit_bytes) apply_explicit_limit(status, *explicit_limit_bytes);
  return status;
}

ApiError api_error_of(const Error& error) {
  Json extra = error_to_json(error);
  extra.erase("message");
  switch (error.kind()) {
    case ErrorKind::kUsage:
      return ApiError{400, "bad_request", error.message(), std::move(extra)};
    case ErrorKind::kInput:
      return ApiError{422, "model_unreadable", error.message(), std::move(extra)};
    case ErrorKind::kOverflow:
      return ApiError{422, "estimate_failed", error.message(), std::move(extra)};
    case ErrorKind::kHost:
      return ApiError{422, "host_error", error.message(), std::move(extra)};
    case ErrorKind::kInternal:
      break;
  }
  return ApiError{500, "internal_error", error.message(), std::move(extra)};
}

}  // namespace memfit::service
