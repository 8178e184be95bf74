// Service: routing, the body limit, the request counters and the one
// place exceptions stop (a bug in a handler answers 500; the service goes
// on). The endpoints themselves are in handlers.cc and fit_handler.cc; the
// calculator page's files in web_assets.cc.
#include "memfit/service.h"

#include <array>
#include <exception>
#include <filesystem>
#include <system_error>

#include "memfit/environment.h"
#include "memfit/untrusted_text.h"
#include "service/api_error.h"
#include "service/local_models_handler.h"
#include "service/service_state.h"
#include "service/web_assets.h"

namespace memfit {

using service::ApiError;
using service::Json;

std::shared_ptr<const HostMemoryStatus> service::HostSnapshot::get() {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (status_ == nullptr || now - queried_at_ >= reuse_) {
    status_ = std::make_shared<const HostMemoryStatus>(query_());
    queried_at_ = now;
  }
  return status_;
}

ServiceState::ServiceState(ServiceOptions o, service::ModelRoots r)
    : options(std::move(o)),
      roots(std::move(r)),
      cache(roots, ModelNameOptions{.hf_cache = options.hf_cache,
                                    .hub = options.hub,
                                    .header_store = options.header_store.get(),
                                    .local_paths = false}),
      host(options.query_host, options.host_reuse_ms) {
  for (const std::string& root : roots.all_paths()) server_paths.add(root, "<model root>", "");
  // The cache as configured and as its real path (the Hub reader resolves
  // snapshot links).
  if (const std::string& hub = options.hf_cache.hub_cache_dir; !hub.empty()) {
    std::error_code ec;
    for (const std::filesystem::path& form :
         {std::filesystem::path(hub), std::filesystem::absolute(hub, ec),
          std::filesystem::weakly_canonical(hub, ec)}) {
      if (!form.empty()) server_paths.add(form.string(), "$HF_HUB_CACHE", "$HF_HUB_CACHE/");
    }
  }
  if (options.host.sysroot != "/") {
    server_paths.add(options.host.sysroot, "$MEMFIT_SYSROOT", "$MEMFIT_SYSROOT/");
  }
  server_paths.add(options.host.nvml_library, "$MEMFIT_NVML_LIBRARY", "$MEMFIT_NVML_LIBRARY/");
  server_paths.add(options.host.rocm_smi_library, "$MEMFIT_ROCM_SMI_LIBRARY",
                   "$MEMFIT_ROCM_SMI_LIBRARY/");
}

namespace {

enum class Endpoint {
  kHealth, kModels, kLocalModels, kEngines, kHardware, kEstimate, kFit, kAdmit, kCheckLog, kMetrics, kWebAsset
};

struct Route {
  std::string_view path;
  std::string_view method;
  Endpoint endpoint;
};

constexpr std::array<Route, 10> kRoutes = {{
    {"/healthz", "GET", Endpoint::kHealth},
    {"/v1/models", "GET", Endpoint::kModels},
    {"/v1/local-models", "GET", Endpoint::kLocalModels},
    {"/v1/engines", "GET", Endpoint::kEngines},
    {"/v1/hardware", "GET", Endpoint::kHardware},
    {"/v1/estimate", "POST", Endpoint::kEstimate},
    {"/v1/fit", "POST", Endpoint::kFit},
    {"/v1/admit", "POST", Endpoint::kAdmit},
    {"/v1/check-log", "POST", Endpoint::kCheckLog},
    {"/metrics", "GET", Endpoint::kMetrics},
}};

HttpResponse dispatch(ServiceState& state, const Route& route, std::string_view body,
                      std::string_view query) {
  switch (route.endpoint) {
    case Endpoint::kHealth:
      return service::handle_health();
    case Endpoint::kModels:
      return service::handle_models(state);
    case Endpoint::kLocalModels:
      return service::handle_local_models(state, query);
    case Endpoint::kEngines:
      return service::handle_engines();
    case Endpoint::kHardware:
      return service::handle_hardware();
    case Endpoint::kEstimate:
      return service::handle_estimate(state, body);
    case Endpoint::kFit:
      return service::handle_fit(state, body);
    case Endpoint::kAdmit:
      return service::handle_admit(state, body);
    case Endpoint::kCheckLog:
      return service::handle_check_log(state, body);
    case Endpoint::kMetrics:
      return service::handle_metrics(state);
    case Endpoint::kWebAsset:
      if (const service::WebAsset* asset = service::find_web_asset(route.path)) {
        return service::web_asset_response(*asset);
      }
      break;
  }
  return service::error_response(
      ApiError{500, "internal_error", "unrouted endpoint", Json::object()});
}

HttpResponse internal_error(std::string_view what) {
  return service::error_response(
      ApiError{500, "internal_error", "internal error: " + escape_untrusted(what), Json::object()});
}

}  // namespace

Result<std::unique_ptr<Service>> Service::create(ServiceOptions options) {
  Result<service::ModelRoots> roots = service::ModelRoots::create(options.model_roots);
  if (!roots.ok()) return roots.error();
  options.model_roots = roots->real_paths();
  if (options.allow_hub && options.hf_cache.hub_cache_dir.empty()) {
    options.hf_cache = hf_cache_options_from_environment(*make_process_environment());
  }
  if (!options.host.explicit_limit_bytes) {
    options.host.explicit_limit_bytes = options.settings.memory_limit_bytes;
  }
  // One explicit limit for everything the service answers: requests without
  // their own limit (the request layer reads settings), /metrics and the
  // snapshot every estimate shares.
  options.settings.memory_limit_bytes = options.host.explicit_limit_bytes;
  std::function<HostMemoryStatus()> query = options.query_host;
  if (!query) query = [host = options.host] { return query_host_memory(host); };
  options.query_host = [query = std::move(query), limit = options.host.explicit_limit_bytes] {
    HostMemoryStatus status = query();
    if (limit) apply_explicit_limit(status, *limit);
    return status;
  };
  if (!options.read_gauges) {
    options.read_gauges = [sysroot = options.host.sysroot] { return read_process_gauges(sysroot); };
  }
  auto state = std::make_unique<ServiceState>(std::move(options), std::move(*roots));
  return std::unique_ptr<Service>(new Service(std::move(state)));
}

Service::Service(std::unique_ptr<ServiceState> state) : state_(std::move(state)) {}
Service::~Service() = default;

size_t Service::max_body_bytes() const { return state_->options.max_body_bytes; }

const std::vector<std::string>& Service::model_roots() const { return state_->options.model_roots; }

HttpResponse Service::payload_too_large() const {
  return service::error_response(ApiError{
      413, "payload_too_large",
      "request body larger than " + std::to_string(max_body_bytes()) + " bytes", Json::object()});
}

HttpResponse Service::handle(std::string_view method, std::string_view path,
                             std::string_view body) {
  std::string_view endpoint_label = "other";
  HttpResponse response;
  try {
    std::string_view query;
    if (size_t at = path.find('?'); at != std::string_view::npos) {
      query = path.substr(at + 1);
      path = path.substr(0, at);
    }
    if (method == "HEAD") method = "GET";
    const Route* route = nullptr;
    for (const Route& r : kRoutes) {
      if (r.path == path) route = &r;
    }
    // The page's files: a fixed set of paths, so their request counters
    // stay bounded like the endpoints'.
    Route asset_route{path, "GET", Endpoint::kWebAsset};
    if (route == nullptr && service::find_web_asset(path) != nullptr) route = &asset_route;
    if (route == nullptr) {
      response = service::error_response(
          ApiError{404, "not_found", "no endpoint " + quote_untrusted(path), Json::object()});
    } else {
      endpoint_label = route->path;
      if (method != route->method) {
        response = service::error_response(ApiError{405, "method_not_allowed",
                                                    std::string(path) + " accepts " +
                                                        std::string(route->method) + ", not " +
                                                        quote_untrusted(method),
                                                    Json::object()});
        response.headers.emplace_back("Allow", std::string(route->method));
      } else if (body.size() > state_->options.max_body_bytes) {
        response = payload_too_large();
      } else {
        response = dispatch(*state_, *route, body, query);
      }
    }
  } catch (const std::exception& e) {
    response = internal_error(e.what());
  } catch (...) {
    response = internal_error("unknown exception");
  }
  // No answer names a folder of this server (server_paths.h), an internal
  // error's exception text included.
  try {
    if (response.content_type == "application/json") state_->server_paths.redact(response.body);
  } catch (...) {
    response = internal_error("the answer could not be checked for server paths");
  }
  try {
    state_->metrics.count_request(endpoint_label, response.status);
  } catch (...) {
    // Counting is best effort; the answer still goes out.
  }
  return response;
}

}  // namespace memfit
