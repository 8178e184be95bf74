// memfit of the reduced macOS build: only the `host` command (the full
// command line needs simdjson and libcurl, which have no macOS build here).
// Same exit statuses as cli/main.cc.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"memfit (macOS host build): the memory this machine has and can give now"};
  app.require_subcommand(1);
  int exit_code = memfit::cli::kExitOk;
  memfit::cli::add_host_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? memfit::cli::kExitOk : memfit::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memfit: internal error: %s\n", e.what());
    return memfit::cli::kExitError;
  }
  return exit_code;
}
