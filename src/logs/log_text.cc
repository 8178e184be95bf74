// Lines, markers and printed quantities (log_text.h).
#include "logs/log_text.h"

#include <fmt/format.h>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_separator(char c) { return c == ',' || c == '_'; }

}  // namespace

namespace logs {

std::vector<LogLine> split_log_lines(std::string_view text) {
  std::vector<LogLine> lines;
  uint64_t number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(LogLine{line, ++number});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<std::string_view> after(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return line.substr(at + marker.size());
}

bool contains(std::string_view line, std::string_view marker) {
  return line.find(marker) != std::string_view::npos;
}

bool any_line_contains(std::span<const LogLine> lines, std::string_view marker) {
  for (const LogLine& line : lines) {
    if (contains(line.text, marker)) return true;
  }
  return false;
}

bool comma_list_has(std::string_view list, std::string_view item) {
  while (true) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == item) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

std::optional<uint64_t> parse_count(std::string_view text) {
  if (text.empty() || !is_digit(text.front())) return std::nullopt;
  CheckedBytes value = 0;
  for (char c : text) {
    if (is_separator(c)) continue;
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value.value();
}

std::optional<uint64_t> leading_count(std::string_view text) {
  text = trim(text);
  size_t n = 0;
  while (n < text.size() && (is_digit(text[n]) || (n > 0 && is_separator(text[n])))) ++n;
  while (n > 0 && is_separator(text[n - 1])) --n;  // "32," : the comma is punctuation
  return parse_count(text.substr(0, n));
}

std::span<const UnitMeaning> binary_units() {
  static constexpr UnitMeaning kUnits[] = {
      {"B", 1}, {"KiB", kKiB}, {"MiB", kMiB}, {"GiB", kGiB}, {"TiB", kTiB}};
  return kUnits;
}

std::optional<std::pair<PrintedDecimal, std::string_view>> leading_decimal(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  size_t n = 0;
  bool dot = false;
  while (n < text.size()) {
    const char c = text[n];
    if (c == '.' && !dot && n + 1 < text.size() && is_digit(text[n + 1])) {
      dot = true;
    } else if (!(is_digit(c) || (is_separator(c) && !dot && n > 0 && n + 1 < text.size() &&
                                 is_digit(text[n + 1])))) {
      break;
    }
    ++n;
  }
  if (n == 0) return std::nullopt;
  Result<PrintedDecimal> number = parse_printed_decimal(text.substr(0, n));
  if (!number) return std::nullopt;
  return std::make_pair(*number, text.substr(n));
}

std::optional<PrintedQuantity> leading_quantity(std::string_view text,
                                                std::span<const UnitMeaning> units) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  auto number = leading_decimal(text);
  if (!number) return std::nullopt;
  std::string_view rest = number->second;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  size_t word = 0;
  while (word < rest.size() && ((rest[word] >= 'A' && rest[word] <= 'Z') ||
                                (rest[word] >= 'a' && rest[word] <= 'z'))) {
    ++word;
  }
  for (const UnitMeaning& unit : units) {
    if (rest.substr(0, word) != unit.word) continue;
    Result<ScaledValue> scaled = scale_printed(number->first, unit.scale);
    if (!scaled) return std::nullopt;
    const size_t length = static_cast<size_t>(rest.data() - text.data()) + word;
    return PrintedQuantity{number->first, unit.scale, *scaled, text.substr(0, length)};
  }
  return std::nullopt;
}


}  // namespace logs
}  // namespace memfit
