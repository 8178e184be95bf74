// The commands an engine answers by its hook (engine.h: fit, plot,
// recommend-quant, preflight serve), run alike: the flags' request
// prepared on the real machine, the command's own flags as the hook's
// options (for fit, the object POST /v1/fit takes: docs/engines.md,
// "Commands"), and the engine's answer printed. No command names an
// engine here: each engine reads its options in its own folder.
#ifndef MEMFIT_CLI_ENGINE_COMMAND_H_
#define MEMFIT_CLI_ENGINE_COMMAND_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "estimate_options.h"
#include "memfit/engine.h"
#include "memfit/request.h"

namespace memfit::cli {

struct EngineCommandCall {
  EngineCommand command = EngineCommand::kFit;
  // The request the flags give, less what the command reads as options.
  EstimateRequest request;
  nlohmann::json options = nlohmann::json::object();
  PrepareOptions prepare;
  // Errors print as "memfit: <prefix>: ..." (plot), but the registry's
  // refusal of the command; "" none.
  std::string_view prefix;
  // Checked on the prepared request before the engine is asked; empty
  // for none.
  std::function<Status(const PreparedRequest&)> check;
  // Where the answer's file goes (plot's --out); "" none.
  std::string out_path;
};

// The call for `command` with the flags' request (to_request); nullopt
// after printing its error, whose exit status is in `exit_code`.
std::optional<EngineCommandCall> command_call(EngineCommand command, const EstimateOptions& flags,
                                              std::string_view prefix, int& exit_code);

// Prepares the call's request, refuses an engine that does not answer the
// command with the registry's line, asks the engine's hook, prints its
// warnings, writes its file, then its JSON (--json) or text; the exit
// status: 3 when the answer does not fit (preflight) unless the option
// "force" is true, else 0; errors as report_error prints them.
int run_engine_command(const EstimateOptions& flags, EngineCommandCall call);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_ENGINE_COMMAND_H_
