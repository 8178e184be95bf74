// The text helpers every log reader uses: lines, markers, numbers and
// printed quantities ("4403.49 MiB"). Private to src/logs.
#ifndef MEMFIT_LOGS_LOG_TEXT_H_
#define MEMFIT_LOGS_LOG_TEXT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "memfit/runtime_log.h"

namespace memfit::logs {

struct LogLine {
  std::string_view text;  // without its "\n" or "\r\n"
  uint64_t number = 0;    // 1-based
};

// The lines of `text`, each a view into it.
std::vector<LogLine> split_log_lines(std::string_view text);

std::string_view trim(std::string_view text);

// The text after the first `marker` in `line`; nullopt when absent.
std::optional<std::string_view> after(std::string_view line, std::string_view marker);
bool contains(std::string_view line, std::string_view marker);
// Whether any line contains `marker`.
bool any_line_contains(std::span<const LogLine> lines, std::string_view marker);
// Whether `item` is one of the comma-separated entries of `list`
// ("CUDA0,CUDA1" has "CUDA1", not "CUDA").
bool comma_list_has(std::string_view list, std::string_view item);

// A whole unsigned integer: digits only, "," and "_" separators allowed
// ("386,320"); nullopt otherwise or past 2^64.
std::optional<uint64_t> parse_count(std::string_view text);
// The leading unsigned integer of `text` (after spaces); nullopt when it
// starts with none.
std::optional<uint64_t> leading_count(std::string_view text);

// What a unit word means in one runtime's prints: vLLM's and SGLang's
// "GB" are 2^30 bytes, mlx-lm's 10^9 (docs/check-log.md, "Units").
struct UnitMeaning {
  std::string_view word;  // as printed, matched exactly: "MiB", "GB"
  uint64_t scale = 1;
};
inline constexpr uint64_t kKiB = 1ull << 10;
inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr uint64_t kGiB = 1ull << 30;
inline constexpr uint64_t kTiB = 1ull << 40;
// "B", "KiB", "MiB", "GiB", "TiB": what llama.cpp and Ollama print.
std::span<const UnitMeaning> binary_units();

// A quantity as printed: a decimal, spaces, then one of `units`
// ("4403.49 MiB", "53.05GiB"). The number's precision is kept for the
// band (runtime_log.h: scale_printed).
struct PrintedQuantity {
  PrintedDecimal number;
  uint64_t scale = 1;
  ScaledValue scaled;
  std::string_view text;  // the number and its unit, as printed
};
// The quantity at the start of `text` (leading spaces skipped); nullopt
// when there is none, its unit is not in `units`, or it overflows.
std::optional<PrintedQuantity> leading_quantity(std::string_view text,
                                                std::span<const UnitMeaning> units);

// The decimal at the start of `text` (digits, separators, one '.'), and
// the rest after it; nullopt when none.
std::optional<std::pair<PrintedDecimal, std::string_view>> leading_decimal(std::string_view text);

// A decimal's value as a double (for ratios only).
double to_double(const PrintedDecimal& number);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_TEXT_H_
