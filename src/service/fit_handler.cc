// POST /v1/fit: the largest context that fits the budget for each KV mode
// (the solver `memfit fit --solve max-tokens` runs), and optionally the
// total at chosen contexts: the calculator page's context curve.
//
// Answer:
//   {"model": "Qwen3-14B-MLX-4bit", "batch": 1,
//    "budget_bytes": 17179869184, "budget_source": "explicit",
//    "max_tokens_ceiling": 1073741824,
//    "by_kv_mode": [
//      {"kv_cache_mode": "fp16", "max_tokens": 35584, "capped": false,
//       "total_bytes": <the estimate at max_tokens>,
//       "curve": [{"max_tokens": 8192, "total_bytes": 11764806400, "fits": true}, ...]},
//      {"kv_cache_mode": "int8", ...}]}
//
// max_tokens (and total_bytes) is null when not even one token fits;
// capped is true when max_tokens is the search ceiling (a cache that stops
// growing fits any context). Curve points come in the order asked.
#include "base/untrusted_text.h"
#include "memfit/solver.h"
#include "service/request_parser.h"
#include "service/service_state.h"

namespace memfit::service {
namespace {

ApiError estimate_failed(std::string_view model, const Error& error) {
  return ApiError{422, "estimate_failed", error.within(quote_untrusted(model)).message(),
                  Json::object()};
}

}  // namespace

HttpResponse handle_fit(ServiceState& state, std::string_view body) {
  Result<FitRequest> request = parse_fit_request(body);
  if (!request.ok()) return error_response(bad_request(request.error().message()));
  ApiResult<std::shared_ptr<const CachedModel>> cached = model_named(state, request->model);
  if (!cached.ok()) return error_response(cached.error());
  const Model& model = (*cached)->model;

  Platform platform = state.options.platform;
  if (request->backend) platform.backend = *request->backend;
  const MemoryBudget budget = request_budget(state, request->memory_limit_bytes);
  const EstimateSettings& settings = state.options.settings;

  Json by_mode = Json::array();
  for (KvElement element : kAllKvElements) {
    EstimateInputs inputs = request->inputs;
    inputs.kv_element = element;
    Result<Solution> solution =
        solve(SolveFor::kMaxTokens, model, inputs, settings, platform, budget);
    if (!solution.ok()) return error_response(estimate_failed(request->model, solution.error()));

    Json curve = Json::array();
    for (uint64_t tokens : request->curve_tokens) {
      inputs.max_tokens = tokens;
      Result<Estimate> point = estimate(model, inputs, settings, platform, budget);
      if (!point.ok()) return error_response(estimate_failed(request->model, point.error()));
      curve.push_back(
          {{"max_tokens", tokens}, {"total_bytes", point->total_bytes}, {"fits", point->fits}});
    }
    by_mode.push_back({{"kv_cache_mode", to_string(element)},
                       {"max_tokens", solution->value ? Json(*solution->value) : Json(nullptr)},
                       {"capped", solution->capped},
                       {"total_bytes",
                        solution->estimate ? Json(solution->estimate->total_bytes) : Json(nullptr)},
                       {"curve", std::move(curve)}});
  }
  return json_response(200, Json{{"model", request->model},
                                 {"batch", request->inputs.batch},
                                 {"budget_bytes", budget.budget_bytes},
                                 {"budget_source", budget.source},
                                 {"max_tokens_ceiling", kMaxSolvedTokens},
                                 {"by_kv_mode", std::move(by_mode)}});
}

}  // namespace memfit::service
