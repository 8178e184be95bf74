// The exact decimal arithmetic of runtime_log.h: a printed "4403.49 MiB"
// is 440349 x 2^20 / 10^2 bytes, computed in 128 bits and rounded once, so
// no figure passes through a binary floating-point value.
#include <array>

#include "logs/log_text.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr uint32_t kMaxDecimals = 9;
constexpr uint32_t kMaxSignificantDigits = 19;  // 10^19 - 1 < 2^64

constexpr std::array<uint64_t, kMaxDecimals + 1> kPow10 = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_separator(char c) { return c == ',' || c == '_'; }

}  // namespace

Result<PrintedDecimal> parse_printed_decimal(std::string_view text) {
  const auto refuse = [&] { return Error(quote_untrusted(text) + ": not a decimal number"); };
  PrintedDecimal out;
  bool seen_dot = false, seen_digit = false;
  uint32_t significant = 0;
  for (char c : text) {
    if (is_separator(c) && !seen_dot) continue;
    if (c == '.' && !seen_dot) {
      seen_dot = true;
      continue;
    }
    if (!is_digit(c)) return refuse();
    seen_digit = true;
    if (seen_dot && ++out.decimals > kMaxDecimals) return refuse();
    if (out.digits == 0 && c == '0') continue;  // leading zeros are not significant
    if (++significant > kMaxSignificantDigits) return refuse();
    out.digits = out.digits * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!seen_digit) return refuse();
  return out;
}

Result<ScaledValue> scale_printed(const PrintedDecimal& number, uint64_t unit_scale) {
  if (number.decimals > kMaxDecimals) return Error::overflow("printed value: too many decimals");
  // digits x scale / P, P = 10^decimals, without a wider type: with
  // digits = a P + b and scale = q P + r (b, r < P <= 10^9),
  // digits x scale / P = a scale + b q + b r / P, and b r < 10^18.
  const uint64_t p = kPow10[number.decimals];
  const uint64_t a = number.digits / p, b = number.digits % p;
  const uint64_t q = unit_scale / p, r = unit_scale % p;
  const uint64_t br = b * r;
  const uint64_t round_half_up = 2 * (br % p) >= p ? 1 : 0;
  const CheckedBytes nearest = CheckedBytes(a) * unit_scale + b * q + br / p + round_half_up;
  if (!nearest.value()) return Error::overflow("printed value overflows 64 bits");
  // Half the last digit's weight, scale / (2 P), rounded up.
  const uint64_t band = unit_scale / (2 * p) + (unit_scale % (2 * p) != 0 ? 1 : 0);
  return ScaledValue{*nearest.value(), band};
}

namespace logs {

double to_double(const PrintedDecimal& number) {
  return static_cast<double>(number.digits) / static_cast<double>(kPow10[number.decimals]);
}

}  // namespace logs
}  // namespace memfit
