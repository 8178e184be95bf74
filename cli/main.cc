// memfit: know before you load. The command line is a thin layer over the
// library; see commands.h for the exit statuses.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "commands.h"
#include "estimate_options.h"
#include "run_app.h"

int main(int argc, char** argv) {
  CLI::App app;
  int exit_code = memfit::cli::kExitOk;
  memfit::cli::add_memfit_commands(app, exit_code);
  std::vector<std::string> args = memfit::cli::with_llamacpp_short_flags(argc, argv);
  std::vector<char*> pointers;
  for (std::string& a : args) pointers.push_back(a.data());
  return memfit::cli::run_app(app, argc, pointers.data(), exit_code);
}
