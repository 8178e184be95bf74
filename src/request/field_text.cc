// Counts, switches and ratios from text, with the messages the CLI and the
// JSON request share ("expected a positive integer, got 0").
#include "request/field_text.h"

#include <fmt/format.h>

#include <charconv>
#include <system_error>

#include "memfit/number_text.h"
#include "memfit/untrusted_text.h"

namespace memfit::request {
namespace {

std::string count_expectation(const RequestField& field) {
  if (field.max != std::numeric_limits<uint64_t>::max()) {
    return fmt::format("an integer from {} to {}", field.min, field.max);
  }
  return field.min == 0 ? "a non-negative integer" : "a positive integer";
}

// The multiplier of a tokens count's suffix; 0 when `suffix` is none.
uint64_t token_multiplier(std::string_view suffix) {
  if (suffix == "k" || suffix == "K") return uint64_t{1} << 10;
  if (suffix == "M") return uint64_t{1} << 20;
  return 0;
}

}  // namespace

Result<uint64_t> parse_decimal(std::string_view text) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Error::usage(fmt::format("{}: expected a whole number", quote_untrusted(text)));
  }
  return n;
}

Result<uint64_t> parse_field_count(const RequestField& field, std::string_view text) {
  const std::string what = count_expectation(field);
  std::string_view digits = text;
  uint64_t multiplier = 1;
  if (field.unit == "tokens" && !text.empty()) {
    if (uint64_t m = token_multiplier(text.substr(text.size() - 1)); m != 0) {
      multiplier = m;
      digits.remove_suffix(1);
    }
  }
  Result<uint64_t> n = parse_decimal(digits);
  if (!n || *n > std::numeric_limits<uint64_t>::max() / multiplier) {
    return Error::usage(fmt::format("{}: expected {}", quote_untrusted(text), what));
  }
  const uint64_t value = *n * multiplier;
  if (value < field.min || value > field.max) {
    return Error::usage(fmt::format("expected {}, got {}", what, value));
  }
  return value;
}

Result<bool> parse_switch(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return Error::usage(fmt::format("{}: expected true or false", quote_untrusted(text)));
}

Result<double> parse_ratio(std::string_view text, double low, double high) {
  const std::string what = fmt::format("a number in ({}, {}]", low, high);
  const std::optional<double> value = parse_double(text);
  if (!value) return Error::usage(fmt::format("{}: expected {}", quote_untrusted(text), what));
  // The text is a number: shown as written (a JSON request's number as
  // the JSON wrote it).
  if (!(*value > low && *value <= high)) return Error::usage(fmt::format("expected {}, got {}", what, text));
  return *value;
}

}  // namespace memfit::request
