#include "host/proc_fields.h"

#include <charconv>
#include <string>

#include "memfit/untrusted_text.h"
namespace memfit::host {
namespace {

// Calls visit(line) for each line of `text` until it returns true.
template <typename Visit>
void for_each_line(std::string_view text, Visit visit) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (visit(line)) return;
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

std::optional<uint64_t> parse_decimal(std::string_view token) {
  if (token.empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

std::string_view trim_space(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

Result<std::optional<uint64_t>> find_kib_field(std::string_view text, std::string_view name) {
  std::optional<std::string_view> found;
  for_each_line(text, [&](std::string_view line) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || line.substr(0, colon) != name) return false;
    found = trim_space(line.substr(colon + 1));
    return true;
  });
  if (!found) return std::optional<uint64_t>();
  std::string_view value = *found;
  const std::string quoted = std::string(name) + " \"" + escape_untrusted(value) + "\"";
  if (value.size() < 3 || value.substr(value.size() - 3) != " kB") {
    return Error(quoted + ": expected a number of kB");
  }
  const std::optional<uint64_t> kib = parse_decimal(trim_space(value.substr(0, value.size() - 3)));
  if (!kib) return Error(quoted + ": expected a number of kB");
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(*kib, uint64_t{1024}, &bytes)) {
    return Error(quoted + ": too large");
  }
  return std::optional<uint64_t>(bytes);
}

Result<std::optional<uint64_t>> find_stat_field(std::string_view text, std::string_view name) {
  std::optional<std::string_view> found;
  for_each_line(text, [&](std::string_view line) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || line.substr(0, space) != name) return false;
    found = trim_space(line.substr(space + 1));
    return true;
  });
  if (!found) return std::optional<uint64_t>();
  const std::optional<uint64_t> value = parse_decimal(*found);
  if (!value) {
    return Error(std::string(name) + " \"" + escape_untrusted(*found) + "\": expected a number");
  }
  return std::optional<uint64_t>(*value);
}

}  // namespace memfit::host
