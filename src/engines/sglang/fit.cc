// The sglang profile's fit hook (engine.h): memfit fit and POST /v1/fit.
//   options: solve  context-length (default), max-running-requests or
//                   mem-fraction-static
//            ctx_size, curve_tokens  refused (llama.cpp's and the curve's)
// Each answer is the largest value whose plan fits (report.h: plan_fits),
// found by bisection (largest_fitting.h) over plans made again per value.
// context-length stops at the config's context (SGLang refuses longer);
// max-running-requests also asks that that many requests of the context
// fit the pool at once (and, hybrid, that the state slots admit them);
// mem-fraction-static searches thousandths, as SGLang rounds its own.
#include <fmt/format.h>

#include "engines/sglang/profile.h"
#include "engines/sglang/report.h"
#include "engines/shared/largest_fitting.h"
#include "engines/shared/trained_context.h"
#include "memfit/memory_size.h"
#include "request/json_fields.h"

namespace memfit::sglang {
namespace {

using Json = nlohmann::ordered_json;

enum class SolveFor { kContextLength, kMaxRunningRequests, kMemFraction };

Result<SolveFor> parse_solve(std::string_view text) {
  if (text == "context-length" || text == "max-tokens") return SolveFor::kContextLength;
  if (text == "max-running-requests" || text == "batch") return SolveFor::kMaxRunningRequests;
  if (text == "mem-fraction-static") return SolveFor::kMemFraction;
  return Error::usage("solve", fmt::format("'{}': expected context-length, max-running-requests or "
                                           "mem-fraction-static",
                                           text));
}

std::string_view to_string(SolveFor what) {
  switch (what) {
    case SolveFor::kContextLength:
      return "context-length";
    case SolveFor::kMaxRunningRequests:
      return "max-running-requests";
    case SolveFor::kMemFraction:
      return "mem-fraction-static";
  }
  return "";
}

// `base` with the solved value in place.
Settings with_value(Settings s, SolveFor what, uint64_t v) {
  switch (what) {
    case SolveFor::kContextLength:
      s.context_length = v;
      break;
    case SolveFor::kMaxRunningRequests:
      s.max_running_requests = v;
      break;
    case SolveFor::kMemFraction:
      s.mem_fraction_static = static_cast<double>(v) / 1000;
      break;
  }
  return s;
}

struct Answer {
  std::optional<uint64_t> value;
  std::optional<Plan> plan;
  std::string ceiling_reason;  // "" when the search was not stopped by one
};

Result<Answer> solve(SolveFor what, const PreparedRequest& p) {
  const Settings& base = prepared_settings(p);
  const Model& model = *p.model;
  uint64_t hi = kMaxCount;
  Answer a;
  if (what == SolveFor::kContextLength) {
    hi = rope_scaled_context(model.spec).tokens;
    a.ceiling_reason = "the config's context: SGLang refuses a longer --context-length";
    if (hi == 0) {
      hi = kMaxSolvedTokens;
      a.ceiling_reason = "memfit's largest solved context";
    }
  } else if (what == SolveFor::kMemFraction) {
    hi = 1000;
    a.ceiling_reason = "the whole GPU";
  }
  auto fits_at = [&](uint64_t v) -> Result<bool> {
    Result<Plan> plan = plan_sglang(model, model.tensors, with_value(base, what, v));
    if (!plan) return plan.error();
    // A larger fraction only adds to the peak: its search asks the peak
    // alone (monotone), and the answer is checked whole below.
    if (what == SolveFor::kMemFraction) return plan->peak_bytes <= budget_limit(*plan, p.budget);
    bool ok = plan_fits(*plan, p.budget);
    if (what == SolveFor::kMaxRunningRequests) {
      // A hybrid model's state slots cap the requests too (the plan's
      // max_running_requests is v, or less by that cap).
      ok = ok && plan->max_total_num_tokens / plan->settings.context_length >= v && plan->max_running_requests >= v;
    }
    return ok;
  };
  Result<std::optional<uint64_t>> v = largest_fitting(1, hi, fits_at);
  if (!v) return v.error();
  a.value = *v;
  if (a.value) {
    Result<Plan> plan = plan_sglang(model, model.tensors, with_value(base, what, *a.value));
    if (!plan) return plan.error();
    if (!plan_fits(*plan, p.budget)) {
      // The largest fraction within the budget leaves no pool for one
      // request of the context: no fraction does.
      a.value.reset();
      return a;
    }
    a.plan = std::move(*plan);
    if (*a.value != hi) a.ceiling_reason.clear();
  }
  return a;
}

std::string value_text(SolveFor what, uint64_t v) {
  return what == SolveFor::kMemFraction ? fmt::format("{:.3f}", static_cast<double>(v) / 1000) : std::to_string(v);
}

}  // namespace

Result<CommandAnswer> SglangProfile::fit(const CommandQuery& query, PreparedRequest p) const {
  request::Fields options(query.options);
  if (options.find("ctx_size") != nullptr) {
    return EngineRegistry::field_of_other_engine("ctx_size", *EngineRegistry::instance().find("llamacpp"));
  }
  if (options.find("curve_tokens") != nullptr) {
    return Error::usage("curve_tokens", "is a context curve of the mlxcel and llamacpp engines; "
                                        "sglang's fit has none");
  }
  Result<std::optional<std::string>> solve_text = options.string("solve");
  if (!solve_text) return solve_text.error();
  Result<SolveFor> what = parse_solve(solve_text->value_or("context-length"));
  if (!what) return what.error();
  // The solved value given is a contradiction, refused as vllm's fit does.
  const std::string_view solved = *what == SolveFor::kContextLength        ? "context_length"
                                  : *what == SolveFor::kMaxRunningRequests ? "max_running_requests"
                                                                           : "mem_fraction_static";
  const bool given = query.request.engine_fields.contains(solved) ||
                     (*what == SolveFor::kContextLength && query.request.max_tokens) ||
                     (*what == SolveFor::kMaxRunningRequests && query.request.batch != 1);
  if (given) {
    return Error::usage(solved, fmt::format("is what fit --solve {} answers: leave it out",
                                            to_string(*what)));
  }
  Result<Answer> a = solve(*what, p);
  if (!a) return estimate_error(query.request, a.error());
  const Model& model = *p.model;
  CommandAnswer answer;
  const std::string budget = fmt::format("{} ({})", format_bytes(p.budget.budget_bytes), to_string(p.budget.source));
  answer.text = fmt::format("Largest {} SGLang starts with in {}: ", to_string(*what), budget);
  answer.json = {{"solve", std::string(to_string(*what))},
                 {"engine", "sglang"},
                 {"value", nullptr},
                 {"capped", !a->ceiling_reason.empty()},
                 {"ceiling_reason", a->ceiling_reason},
                 {"budget_bytes", p.budget.budget_bytes},
                 {"budget_source", std::string(to_string(p.budget.source))}};
  if (!a->value) {
    const std::string why = "no value fits: the weights and SGLang's reserve leave no room (see memfit "
                            "inspect --engine sglang)";
    answer.text += "nothing fits: " + why + "\n";
    answer.json["reason"] = why;
    answer.json["launch_command"] = nullptr;
    answer.json["report"] = nullptr;
  } else {
    answer.json["value"] = *what == SolveFor::kMemFraction ? Json(static_cast<double>(*a->value) / 1000)
                                                          : Json(*a->value);
    answer.text += value_text(*what, *a->value);
    if (!a->ceiling_reason.empty()) answer.text += " (" + a->ceiling_reason + ")";
    answer.text += "\nstart: " + launch_command(model, *a->plan) + "\n\n";
    answer.text += render_plan_text(model, *a->plan, p.budget);
    answer.json["reason"] = nullptr;
    answer.json["launch_command"] = launch_command(model, *a->plan);
    answer.json["report"] = plan_to_json(model, *a->plan, p.budget, p.warnings);
  }
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::sglang
