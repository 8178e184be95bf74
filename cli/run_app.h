// The part every memfit program's main() shares: parse, run the selected
// subcommand, map the outcome to the exit statuses of commands.h.
#ifndef MEMFIT_CLI_RUN_APP_H_
#define MEMFIT_CLI_RUN_APP_H_

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "commands.h"
#include "nearest_name.h"

namespace memfit::cli {

// `exit_code` is where the subcommands' callbacks store their status.
inline int run_app(CLI::App& app, int argc, char** argv, const int& exit_code) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An argument nothing took is named, with its nearest match, whatever
    // CLI11 noticed first ("A subcommand is required").
    if (e.get_exit_code() != 0) {
      if (std::optional<std::string> message = unknown_argument_message(app)) {
        std::fprintf(stderr, "memfit: %s\nRun with --help for more information.\n",
                     message->c_str());
        return kExitUsage;
      }
    }
    int status = app.exit(e);
    return status == 0 ? kExitOk : kExitUsage;
  } catch (const std::exception& e) {
    // The library returns errors as values; this only guards the layer
    // above it (formatting, allocation failure).
    std::fprintf(stderr, "memfit: internal error: %s\n", e.what());
    return kExitError;
  }
  return exit_code;
}

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_RUN_APP_H_
