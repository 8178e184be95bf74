// memfit ls (ls_command.cc): registered by add_memfit_commands (app.cc)
// like the commands of commands.h.
#ifndef MEMFIT_CLI_LS_COMMAND_H_
#define MEMFIT_CLI_LS_COMMAND_H_

#include <CLI/CLI.hpp>

namespace memfit::cli {

void add_ls_command(CLI::App& app, int& exit_code);  // memfit ls

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_LS_COMMAND_H_
