// Asking a command hook (command_hooks.h).
#include "support/command_hooks.h"

#include "memfit/environment.h"

namespace memfit::testing {

Result<CommandAnswer> ask_hook(const EstimateRequest& request, EngineCommand command,
                               const nlohmann::json& options, CommandFront front) {
  LocalRequestContext context{MapEnvironment{}};
  Result<PreparedRequest> prepared = prepare(request, context, {.keep_tensors = true});
  if (!prepared) return prepared.error();
  const EngineProfile& engine = *prepared->engine;
  const CommandQuery query{.front = front, .request = request, .options = options};
  return engine.answer(command, query, std::move(*prepared));
}

}  // namespace memfit::testing
