// Count flags' validators (count_flags.h).
#include "count_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <string>

#include "memfit/untrusted_text.h"

namespace memfit::cli {

std::optional<uint64_t> read_count(std::string_view text, bool tokens) {
  uint64_t multiplier = 1;
  if (tokens && !text.empty()) {
    const char suffix = text.back();
    if (suffix == 'k' || suffix == 'K') multiplier = uint64_t{1} << 10;
    if (suffix == 'M') multiplier = uint64_t{1} << 20;
    if (multiplier != 1) text.remove_suffix(1);
  }
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (n > std::numeric_limits<uint64_t>::max() / multiplier) return std::nullopt;
  return n * multiplier;
}

CLI::Validator count_validator(uint64_t min, bool tokens) {
  const std::string what = min == 0 ? "a non-negative integer" : "a positive integer";
  return CLI::Validator(
      [min, tokens, what](std::string& text) -> std::string {
        const std::optional<uint64_t> n = read_count(text, tokens);
        if (!n) return fmt::format("{}: expected {}", quote_untrusted(text), what);
        if (*n < min) return fmt::format("expected {}, got {}", what, *n);
        text = std::to_string(*n);
        return {};
      },
      tokens ? "TOKENS" : "COUNT");
}

}  // namespace memfit::cli
