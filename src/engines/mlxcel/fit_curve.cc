// The mlxcel profile's fit hook for POST /v1/fit (the calculator page's
// context curve): the largest context that fits the budget for each KV
// mode (the solver `memfit fit --solve max-tokens` runs), and optionally
// the total at chosen contexts.
//   options: solve         max-tokens only (the default)
//            curve_tokens  the contexts at which to give the total
//
// Answer (the service puts "model" in front):
//   {"batch": 1, "budget_bytes": 17179869184, "budget_source": "explicit",
//    "max_tokens_ceiling": 1073741824, "context_limit_tokens": 40960,
//    "by_kv_mode": [
//      {"kv_cache_mode": "fp16", "max_tokens": 35584, "capped": false,
//       "total_bytes": <the estimate at max_tokens>,
//       "speed": <the report's speed object at max_tokens; null when nothing fits>,
//       "curve": [{"max_tokens": 8192, "total_bytes": 11764806400, "fits": true}, ...]},
//      {"kv_cache_mode": "int8", ...}],
//    "warnings": [...]}
// max_tokens (and total_bytes) is null when not even one token fits;
// capped is true when max_tokens is the search ceiling (a cache that stops
// growing fits any context). context_limit_tokens is the model's own
// context (rope scaling considered; null when it declares none), which
// max_tokens may pass: the budget alone decides it. Curve points come in
// the order asked.
#include "engines/mlxcel/commands.h"
#include "engines/mlxcel/speed_plan.h"
#include "engines/shared/report_head.h"
#include "engines/shared/trained_context.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

using Json = nlohmann::ordered_json;

// What only a llamacpp or vllm /v1/fit reads, and more than one rank.
Status check_options(const CommandQuery& query, const std::optional<std::string>& solve) {
  const EstimateRequest& r = query.request;
  if (wants_parallel_plan(r.parallel)) {
    return Error::usage("/v1/fit solves for one device; a per-rank plan is /v1/estimate's");
  }
  if (solve && *solve != "max-tokens") {
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

// The total at each of `tokens`, at `inputs`' KV mode.
Result<Json> curve_at(const std::vector<uint64_t>& tokens, MlxcelInputs inputs,
                      const PreparedRequest& p, const std::string& name) {
  Json curve = Json::array();
  for (uint64_t t : tokens) {
    inputs.max_tokens = t;
    Result<MlxcelEstimate> point = estimate_mlxcel(*p.model, inputs, p.settings, p.platform, p.budget);
    if (!point) return point.error().within(quote_untrusted(name));
    curve.push_back({{"max_tokens", t}, {"total_bytes", point->total_bytes}, {"fits", point->fits}});
  }
  return curve;
}

}  // namespace

Result<CommandAnswer> mlxcel_fit_curve(const CommandQuery& query, const PreparedRequest& p) {
  request::Fields options(query.options);
  Result<std::optional<std::string>> solve = options.string("solve");
  if (!solve) return solve.error();
  if (Status checked = check_options(query, *solve); !checked) return checked.error();
  Result<std::optional<std::vector<uint64_t>>> tokens =
      options.counts("curve_tokens", 1, kMaxSolvedTokens, kMaxCurvePoints);
  if (!tokens) return tokens.error();
  const std::string& name = query.request.model;
  Result<std::vector<MlxcelSolution>> solutions = solve_mlxcel_each_kv_width(
      MlxcelSolveFor::kMaxTokens, *p.model, p.inputs, p.settings, p.platform, p.budget);
  if (!solutions) return solutions.error().within(quote_untrusted(name));
  Json by_mode = Json::array();
  for (size_t i = 0; i < kAllKvElements.size(); ++i) {
    const MlxcelSolution& solution = (*solutions)[i];
    MlxcelInputs inputs = p.inputs;
    inputs.kv_element = kAllKvElements[i];
    Result<Json> curve = curve_at(tokens->value_or(std::vector<uint64_t>{}), inputs, p, name);
    if (!curve) return curve.error();
    by_mode.push_back(
        {{"kv_cache_mode", to_string(inputs.kv_element)},
         {"max_tokens", solution.value ? Json(*solution.value) : Json(nullptr)},
         {"capped", solution.capped},
         {"total_bytes", solution.estimate ? Json(solution.estimate->total_bytes) : Json(nullptr)},
         {"speed", solution.value && solution.estimate
                       ? speed_json(estimate_plan_speed(mlxcel_speed_plan(p, *solution.estimate)))
                       : Json(nullptr)},
         {"curve", std::move(*curve)}});
  }
  // The model's own context (trained_context.h): the page caps what it
  // draws there; the solver's answer is the budget's alone.
  const uint64_t limit = rope_scaled_context(p.model->spec).tokens;
  CommandAnswer answer;
  answer.json = {{"batch", p.inputs.batch},
                 {"budget_bytes", p.budget.budget_bytes},
                 {"budget_source", std::string(to_string(p.budget.source))},
                 {"max_tokens_ceiling", kMaxSolvedTokens},
                 {"context_limit_tokens", limit != 0 ? Json(limit) : Json(nullptr)},
                 {"by_kv_mode", std::move(by_mode)},
                 {"warnings", warning_texts(p.warnings)}};
  answer.warnings = p.warnings;
  return answer;
}

}  // namespace memfit::engines
