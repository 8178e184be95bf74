// Real numbers from text (memfit/number_text.h): the syntax checked here,
// the same on every library, then std::from_chars or, where the library
// lacks it for double, the classic locale's stream converts.
#include <charconv>
#include <cmath>
#include <locale>
#include <sstream>
#include <string>
#include <system_error>

#include "base/number_text_stream.h"
#include "memfit/number_text.h"

namespace memfit {
namespace {

// Removes the leading decimal digits of `text`; how many there were.
size_t take_digits(std::string_view& text) {
  size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  text.remove_prefix(n);
  return n;
}

// Whether `text` is -?digits[.digits][(e|E)[+-]digits] with a digit in
// the mantissa: what std::from_chars's general format takes, less "inf",
// "nan" and their spellings (every library's stream differs on those).
bool is_decimal_syntax(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  size_t mantissa_digits = take_digits(text);
  if (text.starts_with('.')) {
    text.remove_prefix(1);
    mantissa_digits += take_digits(text);
  }
  if (mantissa_digits == 0) return false;
  if (text.starts_with('e') || text.starts_with('E')) {
    text.remove_prefix(1);
    if (text.starts_with('+') || text.starts_with('-')) text.remove_prefix(1);
    if (take_digits(text) == 0) return false;
  }
  return text.empty();
}

// `value` as converted from `text` (in decimal syntax), nullopt when it
// is not finite or underflowed: 0 from a mantissa with a nonzero digit.
std::optional<double> finite(double value, std::string_view text) {
  const std::string_view mantissa = text.substr(0, text.find_first_of("eE"));
  const bool nonzero = mantissa.find_first_of("123456789") != std::string_view::npos;
  if (!std::isfinite(value) || (value == 0 && nonzero)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> parse_double_by_stream(std::string_view text) {
  if (!is_decimal_syntax(text)) return std::nullopt;
  std::istringstream in{std::string(text)};
  in.imbue(std::locale::classic());
  double value = 0;
  in >> std::noskipws >> value;
  if (in.fail() || in.peek() != std::istringstream::traits_type::eof()) return std::nullopt;
  return finite(value, text);
}

std::optional<double> parse_double(std::string_view text) {
#ifdef __cpp_lib_to_chars  // why: libc++ has no std::from_chars for double
  if (!is_decimal_syntax(text)) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // Overflow and underflow are result_out_of_range (on some libraries).
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return finite(value, text);
#else
  return parse_double_by_stream(text);
#endif
}

}  // namespace memfit
