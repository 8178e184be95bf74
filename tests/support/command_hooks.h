// An engine's command hook (engine.h) asked as a front end asks it: the
// request prepared on this machine (its model opened from disk, with its
// tensor list), then the hook of the engine it resolves to, with no
// supports() check before it.
#ifndef MEMFIT_TESTS_SUPPORT_COMMAND_HOOKS_H_
#define MEMFIT_TESTS_SUPPORT_COMMAND_HOOKS_H_

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/request.h"

namespace memfit::testing {

Result<CommandAnswer> ask_hook(const EstimateRequest& request, EngineCommand command,
                               const nlohmann::json& options = nlohmann::json::object(),
                               CommandFront front = CommandFront::kCli);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_COMMAND_HOOKS_H_
