// memfit: know before you load. The command line is a thin layer over the
// library; see commands.h for the exit statuses.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/report.h"
#include "run_app.h"

int main(int argc, char** argv) {
  CLI::App app{"memfit: how much memory an LLM inference run will take, and whether it fits"};
  app.set_version_flag("--version", std::string(memfit::memfit_version()));
  app.require_subcommand(1);
  int exit_code = memfit::cli::kExitOk;
  memfit::cli::add_inspect_command(app, exit_code);
  memfit::cli::add_host_command(app, exit_code);
  memfit::cli::add_preflight_command(app, exit_code);
  memfit::cli::add_fit_command(app, exit_code);
  memfit::cli::add_recommend_command(app, exit_code);
  memfit::cli::add_plot_command(app, exit_code);
  memfit::cli::add_serve_launcher(app, exit_code);
  std::vector<std::string> args = memfit::cli::with_llamacpp_short_flags(argc, argv);
  std::vector<char*> pointers;
  for (std::string& a : args) pointers.push_back(a.data());
  return memfit::cli::run_app(app, argc, pointers.data(), exit_code);
}
