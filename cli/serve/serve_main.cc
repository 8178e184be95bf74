// memfit-serve: the program behind `memfit serve`. memfit execs it with the
// arguments that followed `serve`, so `memfit serve ARGS` and
// `memfit-serve serve ARGS` are the same process image and the same PID.
#include <CLI/CLI.hpp>

#include "commands.h"
#include "memfit/version.h"
#include "run_app.h"
#include "serve/serve_command.h"

int main(int argc, char** argv) {
  CLI::App app{"memfit serve: the estimator and prefill admission over HTTP", "memfit"};
  app.set_version_flag("--version", std::string(memfit::memfit_version()));
  app.require_subcommand(1);
  int exit_code = memfit::cli::kExitOk;
  memfit::cli::add_serve_command(app, exit_code);
  return memfit::cli::run_app(app, argc, argv, exit_code);
}
