// The mlx-lm profile's fit hook (engine.h): memfit fit and POST /v1/fit
// under mlx-lm, over solve_mlxlm() (mlxcel_solver.h).
//   options: solve         max-tokens (the default), prompt-tokens or batch
//            ctx_size      refused: llama.cpp's setting
//            curve_tokens  refused: mlx-lm's fit draws no curve
// Text: "Largest max-tokens that fits <budget> (<source>): <value>", then
// the report at that value (at 1 when nothing fits) with its speed line;
// the JSON's report has its "speed" (docs/speed.md).
#include <fmt/format.h>

#include "engines/mlxlm/commands.h"
#include "engines/mlxlm/solver.h"
#include "engines/mlxlm/speed_plan.h"
#include "engines/shared/report_head.h"
#include "memfit/memory_size.h"
#include "memfit/mlxlm_report.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

using Json = nlohmann::ordered_json;

// The option "solve", refusing the options only other engines' fits read.
Result<MlxLmSolveFor> read_solve(const CommandQuery& query) {
  request::Fields options(query.options);
  if (options.find("ctx_size") != nullptr) {
    return EngineRegistry::field_of_other_engine("ctx_size",
                                                 *EngineRegistry::instance().find("llamacpp"));
  }
  if (options.find("curve_tokens") != nullptr) {
    return Error::usage("curve_tokens", "is a context curve of the mlxcel and llamacpp engines; "
                                        "mlx-lm's fit has none");
  }
  Result<std::optional<std::string>> solve = options.string("solve");
  if (!solve) return solve.error();
  return parse_mlxlm_solve(solve->value_or("max-tokens"));
}

std::string value_text(const MlxLmSolution& s) {
  if (!s.value) return "nothing fits";
  return fmt::format("{}{}", *s.value, s.capped ? " (the search ceiling: it fits any value)" : "");
}

}  // namespace

Result<CommandAnswer> MlxLmCommands::fit(const CommandQuery& query, PreparedRequest p) const {
  Result<MlxLmSolveFor> what = read_solve(query);
  if (!what) return what.error();
  const EstimateRequest& r = query.request;
  if (*what == MlxLmSolveFor::kMaxTokens && r.max_tokens) {
    return Error::usage("max_tokens", "is what solving max-tokens finds: leave it out");
  }
  if (*what == MlxLmSolveFor::kPromptTokens && r.mlxlm.prompt_tokens) {
    return Error::usage("prompt_tokens", "is what solving prompt-tokens finds: leave it out");
  }
  if (*what == MlxLmSolveFor::kBatch && r.batch != 1) {
    return Error::usage("batch", "is what solving batch finds: leave it out");
  }
  Result<MlxLmSolution> s = solve_mlxlm(*what, *p.model, p.mlxlm_settings, p.budget);
  if (!s) {
    if (s.error().kind() == ErrorKind::kUsage) return s.error();
    return s.error().within(quote_untrusted(r.model));
  }
  CommandAnswer answer;
  answer.json = {{"solve", to_string(*what)},
                 {"value", s->value ? Json(*s->value) : Json(nullptr)},
                 {"capped", s->capped},
                 {"budget_bytes", p.budget.budget_bytes},
                 {"warnings", warning_texts(p.warnings)}};
  answer.json["report"] = s->estimate ? mlxlm_estimate_to_json(*p.model, *s->estimate, p.budget,
                                                               p.warnings)
                                      : Json(nullptr);
  if (s->estimate) answer.json["report"]["speed"] = speed_json(estimate_plan_speed(mlxlm_speed_plan(p, *s->estimate)));
  answer.text = fmt::format("Largest {} that fits {} ({}): {}\n", to_string(*what),
                            format_bytes(p.budget.budget_bytes), to_string(p.budget.source),
                            value_text(*s));
  if (s->estimate) {
    answer.text += "\n" + render_mlxlm_text(*p.model, *s->estimate, p.budget) + "\n" +
                   speed_text(estimate_plan_speed(mlxlm_speed_plan(p, *s->estimate)));
  }
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::engines
