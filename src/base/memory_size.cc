// Memory sizes as people write them: "48GiB", "48G", "80GB", "512MiB",
// "1.5GB" (memory_size.h has the units: GB decimal, GiB and G binary).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>

#include "memfit/memory_size.h"
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

// A unit suffix's multiplier: a binary one as a shift (B 0, K/KiB 10,
// M/MiB 20, G/GiB 30, T/TiB 40), a decimal one as a power of ten (KB 3 ...
// TB 12). Neither for a text that is no unit; an empty unit is neither
// too (the caller decides what a bare number is).
struct UnitScale {
  int shift = -1;     // x 2^shift
  int exponent = -1;  // x 10^exponent
};

UnitScale unit_scale(std::string_view unit) {
  if (unit == "b") return {.shift = 0};
  static constexpr std::pair<char, int> kPrefixes[] = {{'k', 1}, {'m', 2}, {'g', 3}, {'t', 4}};
  for (auto [prefix, power] : kPrefixes) {
    if (unit.empty() || unit[0] != prefix) continue;
    std::string_view rest = unit.substr(1);
    if (rest.empty() || rest == "ib") return {.shift = 10 * power};
    if (rest == "b") return {.exponent = 3 * power};
  }
  return {};
}

uint64_t power_of_ten(int exponent) {
  uint64_t value = 1;
  for (int i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// `digits` (nothing else) as a whole number; nullopt past 2^64 - 1.
std::optional<uint64_t> whole_number(std::string_view digits) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

// `number` (digits with one '.') x `factor`, exactly, rounded up to a
// byte; nullopt unless it is one number of at most 9 decimals under 2^64.
// The fraction f of d digits adds ceil(f x factor / 10^d), taken as
// f x (factor / 10^d) + ceil(f x (factor % 10^d) / 10^d) so that no product
// passes 2^63 (f < 10^9, factor % 10^d < 10^9).
std::optional<uint64_t> scaled_decimal(std::string_view number, uint64_t factor) {
  const size_t point = number.find('.');
  const std::string_view fraction_text = number.substr(point + 1);
  const std::optional<uint64_t> whole = whole_number(number.substr(0, point));
  const std::optional<uint64_t> fraction = whole_number(fraction_text);
  if (!whole || !fraction || fraction_text.size() > 9 || *whole > UINT64_MAX / factor) {
    return std::nullopt;
  }
  const uint64_t ten_d = power_of_ten(static_cast<int>(fraction_text.size()));
  const uint64_t part =
      *fraction * (factor / ten_d) + (*fraction * (factor % ten_d) + ten_d - 1) / ten_d;
  if (*whole * factor > UINT64_MAX - part) return std::nullopt;
  return *whole * factor + part;
}

}  // namespace

Result<std::optional<uint64_t>> parse_memory_size(std::string_view text, BareNumber bare) {
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
  UnitScale scale = unit_scale(unit);
  if (unit.empty() && !number.empty() && bare == BareNumber::kBytes) scale.shift = 0;
  if (unit.empty() && !number.empty() && scale.shift < 0) {
    return Error::usage(fmt::format(
        "{}: a size needs its unit: {}GiB ({} x 2^30 bytes), {}GB ({} x 10^9) or {}B",
        quote_untrusted(text), number, number, number, number, number));
  }
  if (number.empty() || (scale.shift < 0 && scale.exponent < 0)) {
    return Error::usage(fmt::format(
        "memory size {}: expected a number and its unit: B, KB, MB, GB, TB (10^3 ...), KiB, MiB, "
        "GiB, TiB (2^10 ...)",
        quote_untrusted(text)));
  }
  const uint64_t factor =
      scale.shift >= 0 ? uint64_t{1} << scale.shift : power_of_ten(scale.exponent);
  if (number.find('.') == std::string_view::npos) {
    const std::optional<uint64_t> value = whole_number(number);
    if (!value || *value > UINT64_MAX / factor) {
      return Error::usage(fmt::format("memory size {} is out of range", quote_untrusted(text)));
    }
    if (*value == 0) return std::optional<uint64_t>();
    return std::optional<uint64_t>(*value * factor);
  }
  const std::optional<uint64_t> bytes = scaled_decimal(number, factor);
  if (!bytes) {
    return Error::usage(fmt::format(
        "memory size {} is not a number of at most 9 decimals under 2^64 bytes",
        quote_untrusted(text)));
  }
  if (*bytes == 0) return std::optional<uint64_t>();
  return std::optional<uint64_t>(*bytes);
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
