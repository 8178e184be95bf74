// The memfit subcommands. Each registers itself on the top-level CLI11 app
// and runs when selected; main() maps their outcome to the exit status:
//   0 success, 1 any other error, 2 usage error, 3 does not fit (preflight).
#ifndef MEMFIT_CLI_COMMANDS_H_
#define MEMFIT_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace memfit::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitDoesNotFit = 3;

// Each add_* call registers a subcommand whose callback stores its exit
// status in `exit_code`. Errors are printed to stderr as one line
// "memfit: <context>: <problem>"; stdout receives only the command's output.
void add_inspect_command(CLI::App& app, int& exit_code);
void add_host_command(CLI::App& app, int& exit_code);
void add_preflight_command(CLI::App& app, int& exit_code);
void add_fit_command(CLI::App& app, int& exit_code);
void add_recommend_command(CLI::App& app, int& exit_code);
void add_plot_command(CLI::App& app, int& exit_code);
void add_hardware_command(CLI::App& app, int& exit_code);
void add_engines_command(CLI::App& app, int& exit_code);    // memfit engines
void add_check_log_command(CLI::App& app, int& exit_code);  // memfit check-log
// `memfit serve` runs the memfit-serve program installed beside memfit
// (cli/serve/), so that only the service carries the HTTP server and every
// other command starts without it.
void add_serve_launcher(CLI::App& app, int& exit_code);

// The memfit command: its description, --version and every subcommand
// above, one of which is required. main() and the tests build it alike.
void add_memfit_commands(CLI::App& app, int& exit_code);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_COMMANDS_H_
