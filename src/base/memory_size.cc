// Memory sizes as people write them: "48GB", "48G", "48GiB", "512mb",
// "1.5G", "4096". Units are binary (a "48 GB" Mac has 48 x 2^30 bytes).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include "memfit/memory_size.h"
#include "memfit/number_text.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

std::string lower_trimmed(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string out(text.substr(begin, end - begin));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Shift for a unit suffix; -1 when the suffix is not a unit.
int unit_shift(std::string_view unit) {
  if (unit.empty() || unit == "b") return 0;
  static constexpr std::pair<char, int> kPrefixes[] = {{'k', 10}, {'m', 20}, {'g', 30}, {'t', 40}};
  for (auto [prefix, shift] : kPrefixes) {
    if (unit[0] != prefix) continue;
    std::string_view rest = unit.substr(1);
    if (rest.empty() || rest == "b" || rest == "ib") return shift;
  }
  return -1;
}

}  // namespace

Result<std::optional<uint64_t>> parse_memory_size(std::string_view text) {
  std::string s = lower_trimmed(text);
  if (s.empty() || s == "0" || s == "none") return std::optional<uint64_t>();
  size_t number_end = 0;
  while (number_end < s.size() && (std::isdigit(static_cast<unsigned char>(s[number_end])) ||
                                   s[number_end] == '.')) {
    ++number_end;
  }
  std::string_view number(s.data(), number_end);
  std::string_view unit = std::string_view(s).substr(number_end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  int shift = unit_shift(unit);
  if (number.empty() || shift < 0) {
    return Error::usage(fmt::format(
        "memory size {}: expected bytes or a number with K, M, G or T (binary units)",
        quote_untrusted(text)));
  }
  if (number.find('.') == std::string_view::npos) {
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size() ||
        (shift > 0 && value > (UINT64_MAX >> shift))) {
      return Error::usage(fmt::format("memory size {} is out of range", quote_untrusted(text)));
    }
    if (value == 0) return std::optional<uint64_t>();
    return std::optional<uint64_t>(value << shift);
  }
  const std::optional<double> value = parse_double(number);
  if (!value) {
    return Error::usage(fmt::format("memory size {} is not a number", quote_untrusted(text)));
  }
  double bytes = std::ceil(std::ldexp(*value, shift));
  if (!(bytes < 1.8e19)) {
    return Error::usage(fmt::format("memory size {} is out of range", quote_untrusted(text)));
  }
  if (bytes == 0) return std::optional<uint64_t>();
  return std::optional<uint64_t>(static_cast<uint64_t>(bytes));
}

std::string format_bytes(uint64_t bytes) {
  constexpr uint64_t kKiB = 1ull << 10, kMiB = 1ull << 20, kGiB = 1ull << 30, kTiB = 1ull << 40;
  if (bytes >= kTiB) return fmt::format("{:.2f} TiB", static_cast<double>(bytes) / kTiB);
  if (bytes >= kGiB) return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / kGiB);
  if (bytes >= kMiB) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / kMiB);
  if (bytes >= kKiB) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / kKiB);
  return fmt::format("{} B", bytes);
}

}  // namespace memfit
