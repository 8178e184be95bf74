// parse_numbered_file_name (model/numbered_file_name.h).
#include "model/numbered_file_name.h"

#include <algorithm>
#include <charconv>

namespace memfit {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && text.size() <= kMaxNumberedFileDigits &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

uint64_t to_number(std::string_view digits) {
  uint64_t value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);  // all_digits checked
  return value;
}

}  // namespace

std::optional<NumberedFileName> parse_numbered_file_name(std::string_view name,
                                                         std::string_view suffix) {
  constexpr std::string_view kOf = "-of-";
  if (!name.ends_with(suffix)) return std::nullopt;
  name.remove_suffix(suffix.size());
  const size_t of = name.rfind(kOf);
  if (of == std::string_view::npos) return std::nullopt;
  const std::string_view count = name.substr(of + kOf.size());
  const std::string_view head = name.substr(0, of);
  const size_t dash = head.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string_view number = head.substr(dash + 1);
  if (!all_digits(number) || !all_digits(count)) return std::nullopt;
  NumberedFileName parsed{head.substr(0, dash), to_number(number), to_number(count), number.size(),
                          count.size()};
  if (parsed.count == 0) return std::nullopt;
  return parsed;
}

}  // namespace memfit
