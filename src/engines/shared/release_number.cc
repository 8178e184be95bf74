// Release numbers (engines/shared/release_number.h).
#include "engines/shared/release_number.h"

namespace memfit {
namespace {

constexpr size_t kMaxDigits = 4;  // per part: "0.7.3", "0.27.0"; nothing longer is a release

}  // namespace

std::optional<ReleaseNumber> parse_release_number(std::string_view text) {
  std::string_view rest = text;
  if (!rest.empty() && (rest.front() == 'v' || rest.front() == 'V')) rest.remove_prefix(1);
  uint64_t parts[3] = {0, 0, 0};
  size_t count = 0;
  while (true) {
    size_t digits = 0;
    uint64_t value = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      if (digits == kMaxDigits) return std::nullopt;
      value = value * 10 + static_cast<uint64_t>(rest[digits] - '0');
      ++digits;
    }
    if (digits == 0 || count == 3) return std::nullopt;
    parts[count++] = value;
    rest.remove_prefix(digits);
    if (rest.empty()) break;
    if (rest.front() != '.') return std::nullopt;
    rest.remove_prefix(1);
  }
  if (count < 2) return std::nullopt;
  return ReleaseNumber{parts[0], parts[1], parts[2], count == 3};
}

}  // namespace memfit
