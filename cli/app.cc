// The memfit command as one CLI11 app (commands.h: add_memfit_commands).
#include <string>

#include "commands.h"
#include "ls_command.h"
#include "memfit/version.h"

namespace memfit::cli {

void add_memfit_commands(CLI::App& app, int& exit_code) {
  app.description("memfit: how much memory an LLM inference run will take, and whether it fits");
  app.set_version_flag("--version", std::string(memfit_version()));
  app.require_subcommand(1);
  add_inspect_command(app, exit_code);
  add_host_command(app, exit_code);
  add_hardware_command(app, exit_code);
  add_engines_command(app, exit_code);
  add_preflight_command(app, exit_code);
  add_fit_command(app, exit_code);
  add_recommend_command(app, exit_code);
  add_plot_command(app, exit_code);
  add_check_log_command(app, exit_code);
  add_ls_command(app, exit_code);
  add_serve_launcher(app, exit_code);
}

}  // namespace memfit::cli
