// What the engines' command hooks share (engine.h: CommandQuery,
// CommandAnswer): preflight serve's answer around a run, and its "force"
// option.
#ifndef MEMFIT_ENGINES_SHARED_COMMAND_ANSWER_H_
#define MEMFIT_ENGINES_SHARED_COMMAND_ANSWER_H_

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::engines {

// The option "force" (true: the verdict does not stop the caller, and the
// answer says "forced"); false when not given.
Result<bool> forced(const CommandQuery& query);

// preflight serve's answer for `run`: the run's report with "preflight"
// ({"mode": "serve", "fits", "forced"}) and `serve` under "serve" after
// it; the text report followed by `serve_text`; the run's warnings and
// verdict.
CommandAnswer preflight_serve_answer(const EstimateRun& run, bool force,
                                     nlohmann::ordered_json serve, std::string serve_text);

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_SHARED_COMMAND_ANSWER_H_
