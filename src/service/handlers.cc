// The endpoints of the service. Each request resolves its model name
// through the roots and runs through the library's request layer
// (request.h) with the service's context, as `memfit inspect` and the C API
// do; /v1/admit calls the runtime guard (check_prefill). The numbers cannot
// disagree.
#include <fmt/format.h>

#include "memfit/engine_compare.h"
#include "memfit/multi_model.h"
#include "memfit/request_json.h"
#include "memfit/run_report.h"
#include "request/json_fields.h"
#include "service/request_parser.h"
#include "service/service_context.h"
#include "service/service_state.h"

namespace memfit::service {
namespace {

constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

Json optional_bytes(const std::optional<uint64_t>& v) { return v ? Json(*v) : Json(nullptr); }

// /v1/estimate's own option "compare" (a boolean), taken out of `body` so
// the rest is read as a request; a body that is not a JSON object is left
// for the request's parser to refuse.
Result<bool> take_compare(std::string& body) {
  Result<request::Json> json = request::parse_object(body);
  if (!json.ok() || !json->contains("compare")) return false;
  const request::Json& compare = (*json)["compare"];
  if (!compare.is_boolean()) return Error::usage("compare", "must be true or false");
  const bool wanted = compare.get<bool>();
  json->erase("compare");
  body = json->dump();
  return wanted;
}

// {"model", "compare": [...]}: every engine's price (engine_compare.h).
HttpResponse compare_response(const EstimateRequest& request, RequestContext& context) {
  Result<std::vector<EngineComparison>> rows = compare_engines(request, context);
  if (!rows.ok()) return error_response(api_error_of(rows.error()));
  Json out = {{"model", request.model}, {"compare", comparison_to_json(*rows)}};
  return json_response(200, out);
}

// {"models": [...], "devices": [...], "fits", "warnings"}: several models
// priced together (multi_model.h), each resolved through the roots as a
// one-model request's is.
HttpResponse models_response(ServiceState& state, const std::vector<ModelBody>& bodies) {
  std::vector<EstimateRequest> requests;
  std::vector<std::unique_ptr<ServiceContext>> contexts;
  std::vector<RequestContext*> context_of;
  for (size_t i = 0; i < bodies.size(); ++i) {
    Result<EstimateRequest> request = parse_estimate_request_json(bodies[i].body);
    if (!request.ok()) {
      return error_response(api_error_of(error_of_model(i, bodies[i].model, request.error())));
    }
    ApiResult<ResolvedModel> resolved = resolve_request_model(state, request->model);
    if (!resolved.ok()) return error_response(resolved.error());
    contexts.push_back(std::make_unique<ServiceContext>(state, *resolved));
    context_of.push_back(contexts.back().get());
    requests.push_back(std::move(*request));
  }
  Result<MultiModelRun> together = run_models(requests, context_of);
  if (!together.ok()) return error_response(api_error_of(together.error()));
  return json_response(200, multi_run_to_json(*together));
}

}  // namespace

ApiResult<std::shared_ptr<const CachedModel>> model_named(ServiceState& state,
                                                          std::string_view name) {
  ApiResult<ResolvedModel> resolved = resolve_request_model(state, name);
  if (!resolved.ok()) return resolved.error();
  return state.cache.get(*resolved);
}

HttpResponse handle_estimate(ServiceState& state, std::string_view body_text) {
  std::string body(body_text);
  Result<bool> compare = take_compare(body);
  if (!compare.ok()) return error_response(api_error_of(compare.error()));
  Result<std::optional<std::vector<ModelBody>>> models = split_model_bodies(body);
  if (!models.ok()) return error_response(api_error_of(models.error()));
  if (*models && *compare) {
    return error_response(api_error_of(Error::usage("compare", "takes one model, not models")));
  }
  if (*models) return models_response(state, **models);
  Result<EstimateRequest> request = parse_estimate_request_json(body);
  if (!request.ok()) return error_response(api_error_of(request.error()));
  ApiResult<ResolvedModel> resolved = resolve_request_model(state, request->model);
  if (!resolved.ok()) return error_response(resolved.error());
  ServiceContext context(state, *resolved);
  if (*compare) return compare_response(*request, context);
  Result<EstimateRun> run = memfit::run(*request, context);
  if (!run.ok()) return error_response(api_error_of(run.error()));
  state.metrics.record_estimate(resolved->label, run->estimate);

  Json report = run_to_json(*run);
  report["model"] = request->model;  // the name as given, as inspect echoes -m
  return json_response(200, report);
}

HttpResponse handle_admit(ServiceState& state, std::string_view body) {
  Result<AdmitRequest> request = parse_admit_request(body);
  if (!request.ok()) return error_response(api_error_of(request.error()));
  ApiResult<ResolvedModel> resolved = resolve_request_model(state, request->model);
  if (!resolved.ok()) return error_response(resolved.error());
  ApiResult<std::shared_ptr<const CachedModel>> cached = state.cache.get(*resolved);
  if (!cached.ok()) return error_response(cached.error());

  PrefillRequest prefill;
  prefill.request_id = request->request_id;
  if (prefill.request_id.empty() && state.options.make_request_id) {
    prefill.request_id = state.options.make_request_id();
  }
  prefill.prompt_tokens = request->prompt_tokens;
  prefill.cached_tokens = request->cached_tokens;
  prefill.current_usage_bytes = request->current_usage_bytes;
  prefill.hard_limit_bytes = request->hard_limit_bytes;
  if (!prefill.hard_limit_bytes &&
      (request->memory_limit_bytes || request->device.kind != DeviceSelector::Kind::kAuto)) {
    // The budget fields: the budget an estimate with the same fields is
    // compared with, found the same way (RequestContext::host_memory).
    ServiceContext context(state, *resolved);
    const HostMemoryStatus host = context.host_memory(request->device, request->memory_limit_bytes);
    if (host.device_error) {
      return error_response(api_error_of(Error(*host.device_error, ErrorKind::kHost)));
    }
    if (host.budget_source == BudgetSource::kUnavailable) {
      return error_response(api_error_of(Error(
          fmt::format("device {}: its memory could not be read; give memory_limit",
                      device_selector_name(request->device)),
          ErrorKind::kHost)));
    }
    prefill.hard_limit_bytes = host.budget_bytes;
  }
  // No limit in the request: the service's explicit limit, if it has
  // one. Not the host's available memory: that already excludes what the
  // caller uses, which current_usage_bytes would count a second time.
  if (!prefill.hard_limit_bytes) prefill.hard_limit_bytes = state.options.host.explicit_limit_bytes;
  prefill.prefill_chunk =
      request->prefill_chunk.value_or(state.options.settings.prefill_chunk_tokens);

  const AttentionGeometry& geometry = (*cached)->geometry(request->kv_element);
  const AdmissionDecision decision = check_prefill(geometry, state.options.kernels, prefill);
  state.metrics.count_admission(decision.admitted);
  if (decision.admitted) {
    // check_prefill skips the arithmetic when there is no limit; the caller
    // still gets the figure (0 only for unknown geometry or nothing new).
    const uint64_t peak_bytes =
        prefill_peak_bytes(geometry, state.options.kernels, prefill.prompt_tokens,
                           prefill.cached_tokens, prefill.prefill_chunk);
    return json_response(200, Json{{"admitted", true},
                                   {"peak_bytes", peak_bytes},
                                   {"request_id", decision.request_id},
                                   {"limit_bytes", optional_bytes(prefill.hard_limit_bytes)}});
  }
  return error_response(ApiError{400, std::string(kPrefillMemoryExceeded), decision.message,
                                 Json{{"estimated_bytes", decision.estimated_bytes},
                                      {"limit_bytes", decision.limit_bytes},
                                      {"peak_bytes", decision.peak_bytes},
                                      {"request_id", decision.request_id}}});
}

// Each model the roots list, opened through the cache (config and weight
// headers, once per model for the service's life) for its weights' size, so
// a client can order models by it; one that does not open says why. The
// entries left out say why too.
HttpResponse handle_models(ServiceState& state) {
  const ModelListing listing = state.roots.list_models();
  Json models = Json::array();
  for (const ListedModel& m : listing.models) {
    Json weights = nullptr;
    Json error = nullptr;
    ApiResult<std::shared_ptr<const CachedModel>> cached = model_named(state, m.name);
    if (cached.ok()) {
      weights = (*cached)->model.weights.bytes;
    } else {
      error = cached.error().message;
    }
    models.push_back({{"name", m.name},
                      {"root", m.root},
                      {"format", m.format},
                      {"weights_bytes", std::move(weights)},
                      {"error", std::move(error)}});
  }
  Json left_out = Json::array();
  for (const LeftOutModel& m : listing.left_out) {
    left_out.push_back({{"name", m.name}, {"root", m.root}, {"reason", m.reason}});
  }
  // allow_hub: whether a request's model may also be a Hugging Face name
  // (--allow-hub); the calculator page offers a name field when it is.
  return json_response(200, Json{{"models", std::move(models)},
                                 {"left_out", std::move(left_out)},
                                 {"allow_hub", state.options.allow_hub}});
}

HttpResponse handle_metrics(ServiceState& state) {
  MetricsSnapshot snapshot;
  snapshot.host = *state.host.get();  // the service's explicit limit applied
  snapshot.process = state.options.read_gauges();
  snapshot.cached_models = state.cache.size();
  snapshot.model_opens = state.cache.opens();
  HttpResponse response;
  response.content_type = std::string(kPrometheusContentType);
  response.body = state.metrics.render(snapshot);
  return response;
}

HttpResponse handle_health() { return json_response(200, Json{{"status", "ok"}}); }

}  // namespace memfit::service
