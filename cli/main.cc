// memfit: know before you load. The command line is a thin layer over the
// library; see commands.h for the exit statuses.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "commands.h"
#include "memfit/report.h"

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? memfit::cli::kExitOk : memfit::cli::kExitUsage;
  } catch (const std::exception& e) {
    // The library returns errors as values; this only guards the layer
    // above it (formatting, allocation failure).
    std::fprintf(stderr, "memfit: internal error: %s\n", e.what());
    return memfit::cli::kExitError;
  }
  return exit_code;
}
