// The `serve` subcommand of memfit-serve: the HTTP service (docs/service.md).
// Kept out of the memfit program, which reaches it through
// add_serve_launcher (commands.h).
#ifndef MEMFIT_CLI_SERVE_SERVE_COMMAND_H_
#define MEMFIT_CLI_SERVE_SERVE_COMMAND_H_

#include <CLI/CLI.hpp>

namespace memfit::cli {

// Registers `serve` on `app`; its callback stores the exit status (see
// commands.h) in `exit_code`.
void add_serve_command(CLI::App& app, int& exit_code);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_SERVE_SERVE_COMMAND_H_
