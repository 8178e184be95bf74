#include "service/service_context.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "memfit/hub_name.h"
#include "memfit/request_json.h"
#include "memfit/untrusted_text.h"
#include "service/service_state.h"

namespace memfit::service {

ApiResult<ResolvedModel> resolve_request_model(const ServiceState& state, std::string_view name) {
  ApiResult<ResolvedModel> resolved = state.roots.resolve(name);
  // A local path wins (as open_model_by_name has it); only a name the
  // roots lack may be a Hub name, and not one whose first part a root
  // holds ("good/absent" under a root with "good/" is a missing path).
  if (resolved.ok() || resolved.error().code != "model_not_found" || !looks_like_hub_name(name)) {
    return resolved;
  }
  const std::string_view org = name.substr(0, name.find('/'));
  for (const std::string& root : state.roots.real_paths()) {
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::path(root) / org, error)) return resolved;
  }
  if (!state.options.allow_hub) {
    return ApiError{403, "hub_not_allowed",
                    fmt::format("model {}: not under the model roots, and this service does not "
                                "read Hugging Face names: start it with --allow-hub to allow them",
                                quote_untrusted(name)),
                    Json::object()};
  }
  return ResolvedModel{std::string(name), std::string(name), std::string(name), true,
                       std::string(name)};
}

ServiceContext::ServiceContext(ServiceState& state, ResolvedModel resolved)
    : state_(state), resolved_(std::move(resolved)) {}

Result<std::shared_ptr<const Model>> ServiceContext::open_model(const std::string& name,
                                                                const OpenModelOptions& options) {
  // Another model the request names (llama.cpp's draft, model_draft) is
  // found as the request's own is, confined to the roots; a name that does
  // not lead to one is the request's error.
  ResolvedModel other;
  if (name != resolved_.name) {
    ApiResult<ResolvedModel> found = resolve_request_model(state_, name);
    if (!found.ok()) return Error(found.error().message, ErrorKind::kUsage);
    other = std::move(*found);
  }
  ApiResult<std::shared_ptr<const CachedModel>> cached =
      state_.cache.get(name != resolved_.name ? other : resolved_, options);
  if (!cached.ok()) {
    return Error(cached.error().message,
                 cached.error().status == 400 ? ErrorKind::kUsage : ErrorKind::kInput);
  }
  const std::shared_ptr<const CachedModel>& entry = *cached;
  // Shares ownership of the cache entry, points at its model.
  return std::shared_ptr<const Model>(entry, &entry->model);
}

Result<GgufHeader> ServiceContext::read_gguf_header(std::string_view field, const std::string& path) {
  ApiResult<ResolvedModel> resolved = state_.roots.resolve(path);
  if (!resolved.ok()) return Error::usage(field, resolved.error().message);
  std::unique_ptr<FileSystem> fs = make_confined_file_system(state_.roots, make_real_file_system());
  return memfit::read_gguf_header(*fs, resolved->open_path);
}

const MlxcelSettings& ServiceContext::settings() const { return state_.options.settings; }

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
