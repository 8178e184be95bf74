// The command hooks' shared answers (command_answer.h).
#include "engines/shared/command_answer.h"

#include "memfit/run_report.h"
#include "request/json_fields.h"

namespace memfit::engines {

Result<bool> forced(const CommandQuery& query) {
  request::Fields options(query.options);
  Result<std::optional<bool>> force = options.boolean("force");
  if (!force) return force.error();
  return force->value_or(false);
}

CommandAnswer preflight_serve_answer(const EstimateRun& run, bool force,
                                     nlohmann::ordered_json serve, std::string serve_text) {
  CommandAnswer answer;
  answer.json = run_to_json(run);
  answer.json["preflight"] = {{"mode", "serve"}, {"fits", run.fits()}, {"forced", force}};
  answer.json["serve"] = std::move(serve);
  answer.text = render_run_text(run) + serve_text;
  answer.warnings = run.warnings;
  answer.fits = run.fits();
  return answer;
}

}  // namespace memfit::engines
