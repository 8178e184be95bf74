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
//
// A llamacpp request (a GGUF model, or engine "llamacpp") is answered with
// `memfit fit --engine llamacpp --json`'s object (llamacpp_fit.h) with
// "model" in front; with curve_tokens (solve ctx-size only) each
// by_cache_type row gets "curve": [{"ctx_size", "total_bytes", "fits"}],
// the estimate at that --ctx-size with K and V of the row's type.
//
// A vllm request (engine "vllm") is answered with `memfit fit --engine vllm
// --json`'s object (vllm_fit.h) with "model" in front; solve is
// "max-model-len" (the default) or "max-num-seqs"; curve_tokens is refused.
#include "memfit/llamacpp_fit.h"
#include "memfit/request.h"
#include "memfit/solver.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm_fit.h"
#include "service/request_parser.h"
#include "service/service_context.h"
#include "service/service_state.h"

namespace memfit::service {
namespace {

// A fit answer as the service sends it: "model" in front of the CLI's object.
HttpResponse with_model_first(const std::string& model, Json answer) {
  Json out = {{"model", model}};
  for (auto& [key, value] : answer.items()) out[key] = std::move(value);
  return json_response(200, out);
}

HttpResponse handle_llamacpp_fit(const FitRequest& request, const PreparedRequest& p) {
  const std::string& name = request.request.model;
  Result<LlamaCppSolveFor> what = parse_llamacpp_solve(request.solve.value_or("ctx-size"));
  if (!what.ok()) return error_response(api_error_of(what.error()));
  if (request.curve_given && *what != LlamaCppSolveFor::kCtxSize) {
    return error_response(api_error_of(
        Error::usage("curve_tokens", "is a --ctx-size curve: give it with solve ctx-size")));
  }
  Result<LlamaCppFit> fit = fit_llamacpp(*what, request.request, p);
  if (!fit.ok()) return error_response(api_error_of(fit.error()));
  Json answer = llamacpp_fit_to_json(p, *fit);
  if (request.curve_given) {
    for (size_t i = 0; i < fit->by_cache_type.size(); ++i) {
      LlamaCppSettings settings = p.llamacpp_settings;
      settings.cache_type_k = settings.cache_type_v = fit->by_cache_type[i].cache_type;
      Json curve = Json::array();
      for (uint64_t tokens : request.curve_tokens) {
        settings.ctx_size = tokens;
        Result<LlamaCppEstimate> point = estimate_llamacpp(*p.model, settings, p.budget);
        if (!point.ok()) {
          return error_response(api_error_of(point.error().within(quote_untrusted(name))));
        }
        curve.push_back(
            {{"ctx_size", tokens}, {"total_bytes", point->total_bytes}, {"fits", point->fits}});
      }
      answer["by_cache_type"][i]["curve"] = std::move(curve);
    }
  }
  return with_model_first(name, std::move(answer));
}

HttpResponse handle_vllm_fit(const FitRequest& request, const PreparedRequest& p) {
  Result<VllmSolveFor> what = parse_vllm_solve(request.solve.value_or("max-model-len"));
  if (!what.ok()) return error_response(api_error_of(what.error()));
  if (request.curve_given) {
    return error_response(api_error_of(Error::usage(
        "curve_tokens", "is a context curve of the mlxcel and llamacpp engines; vllm's fit has none")));
  }
  Result<VllmFit> fit = fit_vllm(*what, request.request, p);
  if (!fit.ok()) return error_response(api_error_of(fit.error()));
  return with_model_first(request.request.model, vllm_fit_to_json(p, *fit));
}

// The fields only a llamacpp /v1/fit reads.
Status check_mlxcel_fit(const FitRequest& request) {
  const EstimateRequest& r = request.request;
  if (request.solve && *request.solve != "max-tokens") {
    return Error::usage("solve", "/v1/fit solves max-tokens under mlxcel; ctx-size and parallel "
                                 "are llamacpp's, max-model-len and max-num-seqs vllm's");
  }
  for (auto [field, given] : {std::pair{"cache_type_k", r.cache_type_k || r.llamacpp.cache_type_k},
                              std::pair{"cache_type_v", r.cache_type_v || r.llamacpp.cache_type_v}}) {
    if (given) {
      return Error::usage(field, "/v1/fit answers for every KV mode under mlxcel (by_kv_mode); "
                                 "cache types are read under llamacpp");
    }
  }
  return Status::Ok();
}

}  // namespace

HttpResponse handle_fit(ServiceState& state, std::string_view body) {
  Result<FitRequest> request = parse_fit_request(body);
  if (!request.ok()) return error_response(api_error_of(request.error()));
  ApiResult<ResolvedModel> resolved = resolve_request_model(state, request->request.model);
  if (!resolved.ok()) return error_response(resolved.error());
  ServiceContext context(state, *resolved);
  Result<PreparedRequest> p = prepare(request->request, context);
  if (!p.ok()) return error_response(api_error_of(p.error()));
  if (!p->engine->supports(EngineCommand::kFit)) {
    return error_response(
        api_error_of(EngineRegistry::instance().unsupported(*p->engine, EngineCommand::kFit)));
  }
  if (p->engine->name() == "llamacpp") return handle_llamacpp_fit(*request, *p);
  if (p->engine->name() == "vllm") return handle_vllm_fit(*request, *p);
  if (Status mlxcel = check_mlxcel_fit(*request); !mlxcel.ok()) {
    return error_response(api_error_of(mlxcel.error()));
  }
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
