// Decimal commas in llama.cpp logs (decimal_comma.h).
#include "logs/decimal_comma.h"

namespace memfit::logs {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) {
  return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The figure after "buffer size =" is "<digits>,<two digits> MiB": the
// "%8.2f" of a comma locale (a point locale prints "<digits>.<two digits>").
bool figure_has_decimal_comma(std::string_view line) {
  const std::optional<std::string_view> rest = after(line, "buffer size =");
  if (!rest) return false;
  const std::string_view figure = trim(*rest);
  size_t n = 0;
  while (n < figure.size() && is_digit(figure[n])) ++n;
  return n > 0 && figure.size() >= n + 3 && figure[n] == ',' && is_digit(figure[n + 1]) &&
         is_digit(figure[n + 2]) && figure.substr(n + 3).starts_with(" MiB");
}

}  // namespace

bool prints_decimal_comma(std::span<const LogLine> lines) {
  for (const LogLine& line : lines) {
    if (figure_has_decimal_comma(line.text)) return true;
  }
  return false;
}

std::string with_decimal_points(std::string_view text) {
  std::string out(text);
  for (size_t i = 1; i + 1 < out.size(); ++i) {
    if (out[i] != ',' || !is_digit(out[i - 1]) || !is_digit(out[i + 1])) continue;
    size_t start = i;
    while (start > 0 && is_digit(out[start - 1])) --start;
    // A number's digits start a word: "i32,152064" (arr[i32,N], a type and
    // a count) keeps its comma.
    if (start > 0 && is_word_char(out[start - 1])) continue;
    out[i] = '.';
  }
  return out;
}

}  // namespace memfit::logs
