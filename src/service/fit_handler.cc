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
#include "memfit/request.h"
#include "memfit/solver.h"
#include "memfit/untrusted_text.h"
#include "service/request_parser.h"
#include "service/service_context.h"
#include "service/service_state.h"

namespace memfit::service {

HttpResponse handle_fit(ServiceState& state, std::string_view body) {
  Result<FitRequest> request = parse_fit_request(body);
  if (!request.ok()) return error_response(api_error_of(request.error()));
  ApiResult<ResolvedModel> resolved = state.roots.resolve(request->request.model);
  if (!resolved.ok()) return error_response(resolved.error());
  ServiceContext context(state, *resolved);
  Result<PreparedRequest> p = prepare(request->request, context);
  if (!p.ok()) return error_response(api_error_of(p.error()));
  const std::string& name = request->request.model;
  const Model& model = *p->model;

  Result<std::vector<Solution>> solutions = solve_each_kv_width(
      SolveFor::kMaxTokens, model, p->inputs, p->settings, p->platform, p->budget);
  if (!solutions.ok()) return error_response(api_error_of(solutions.error().within(quote_untrusted(name))));
  Json by_mode = Json::array();
  for (size_t i = 0; i < kAllKvElements.size(); ++i) {
    const Solution& solution = (*solutions)[i];
    EstimateInputs inputs = p->inputs;
    inputs.kv_element = kAllKvElements[i];
    Json curve = Json::array();
    for (uint64_t tokens : request->curve_tokens) {
      inputs.max_tokens = tokens;
      Result<Estimate> point = estimate(model, inputs, p->settings, p->platform, p->budget);
      if (!point.ok()) return error_response(api_error_of(point.error().within(quote_untrusted(name))));
      curve.push_back(
          {{"max_tokens", tokens}, {"total_bytes", point->total_bytes}, {"fits", point->fits}});
    }
    by_mode.push_back({{"kv_cache_mode", to_string(inputs.kv_element)},
                       {"max_tokens", solution.value ? Json(*solution.value) : Json(nullptr)},
                       {"capped", solution.capped},
                       {"total_bytes",
                        solution.estimate ? Json(solution.estimate->total_bytes) : Json(nullptr)},
                       {"curve", std::move(curve)}});
  }
  Json warnings = Json::array();
  for (const Warning& w : p->warnings) warnings.push_back(w.text);
  return json_response(200, Json{{"model", name},
                                 {"batch", p->inputs.batch},
                                 {"budget_bytes", p->budget.budget_bytes},
                                 {"budget_source", std::string(to_string(p->budget.source))},
                                 {"max_tokens_ceiling", kMaxSolvedTokens},
                                 {"by_kv_mode", std::move(by_mode)},
                                 {"warnings", std::move(warnings)}});
}

}  // namespace memfit::service
