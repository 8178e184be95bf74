// Validators for the commands' own count flags (those outside the request
// field table), with the table's messages: the range in words, never
// CLI11's "Value 0 not in range 0.000000 to 1797693134862315708...".
#ifndef MEMFIT_CLI_COUNT_FLAGS_H_
#define MEMFIT_CLI_COUNT_FLAGS_H_

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace memfit::cli {

// `text` as a whole number; with `tokens`, also k/K (x 1024) and M
// (x 2^20): "32k" is 32768. nullopt when it is not one or overflows.
std::optional<uint64_t> read_count(std::string_view text, bool tokens);

// A count of at least `min` (0 or 1): "expected a positive integer, got 0",
// "'abc': expected a non-negative integer". With `tokens` the suffixes of
// read_count are taken and the flag's text becomes its decimal digits.
CLI::Validator count_validator(uint64_t min, bool tokens);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_COUNT_FLAGS_H_
