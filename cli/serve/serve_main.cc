// memfit-serve: the program behind `memfit serve`. memfit execs it with the
// arguments that followed `serve`, so `memfit serve ARGS` and
// `memfit-serve serve ARGS` are the same process image and the same PID.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "commands.h"
#include "memfit/report.h"
#include "serve/serve_command.h"

int main(int argc, char** argv) {
  CLI::App app{"memfit serve: the estimator and prefill admission over HTTP", "memfit"};
  app.set_version_flag("--version", std::string(memfit::memfit_version()));
  app.require_subcommand(1);
  int exit_code = memfit::cli::kExitOk;
  memfit::cli::add_serve_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? memfit::cli::kExitOk : memfit::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memfit: internal error: %s\n", e.what());
    return memfit::cli::kExitError;
  }
  return exit_code;
}
