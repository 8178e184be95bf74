// Unknown subcommands and flags named with the nearest one memfit has:
// `memfit inspct` says "unknown subcommand 'inspct'; did you mean
// 'inspect'?" rather than CLI11's "A subcommand is required".
#ifndef MEMFIT_CLI_NEAREST_NAME_H_
#define MEMFIT_CLI_NEAREST_NAME_H_

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memfit::cli {

// The candidate nearest `word`, when it is within a third of the word's
// length in edits (at least 2); the first of equals wins; nullopt when
// none is that near.
std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

// After a failed parse of `app`: the message for the first argument no
// subcommand or flag took, with its nearest match when there is one
// ("unknown flag '--max-tokns' for 'memfit inspect'; did you mean
// '--max-tokens'?"); nullopt when every argument was taken (the failure is
// of another kind: a missing value, a range).
std::optional<std::string> unknown_argument_message(const CLI::App& app);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_NEAREST_NAME_H_
