// Flags of a command line (command_line.h), matched as whole words.
#include "logs/command_line.h"

#include <algorithm>
#include <utility>

namespace memfit::logs {
namespace {

// The word after position `at` (spaces skipped), quotes dropped.
std::string_view next_word(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  std::string_view word = text.substr(0, text.find(' '));
  if (word.size() >= 2 && (word.front() == '\'' || word.front() == '"') && word.back() == word.front()) {
    word = word.substr(1, word.size() - 2);
  }
  return word;
}

// Where `name` starts as a word of `command` (before it a space or the
// start, after it a space, '=' or the end); npos when it does not.
size_t word_at(std::string_view command, std::string_view name) {
  for (size_t at = command.find(name); at != std::string_view::npos; at = command.find(name, at + 1)) {
    const size_t end = at + name.size();
    const bool starts = at == 0 || command[at - 1] == ' ' || command[at - 1] == '\'';
    const bool ends = end == command.size() || command[end] == ' ' || command[end] == '=' ||
                      command[end] == '\'';
    if (starts && ends) return at;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<std::string_view> flag_value(std::string_view command,
                                           std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    const size_t at = word_at(command, name);
    if (at == std::string_view::npos) continue;
    std::string_view rest = command.substr(at + name.size());
    if (rest.starts_with('\'')) rest.remove_prefix(1);
    if (rest.starts_with('=')) rest.remove_prefix(1);
    const std::string_view value = next_word(rest);
    if (!value.empty() && !value.starts_with('-')) return value;
  }
  return std::nullopt;
}

std::vector<std::string_view> flag_values(std::string_view command,
                                          std::initializer_list<std::string_view> names) {
  // (position, value) of every use of every name, then by position: a rule
  // list keeps the order the command gave it.
  std::vector<std::pair<size_t, std::string_view>> found;
  for (std::string_view name : names) {
    size_t from = 0;
    while (from < command.size()) {
      const size_t at = word_at(command.substr(from), name);
      if (at == std::string_view::npos) break;
      const size_t start = from + at;
      std::string_view rest = command.substr(start + name.size());
      if (rest.starts_with('\'')) rest.remove_prefix(1);
      if (rest.starts_with('=')) rest.remove_prefix(1);
      const std::string_view value = next_word(rest);
      if (!value.empty() && !value.starts_with('-')) found.emplace_back(start, value);
      from = start + name.size();
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string_view> values;
  values.reserve(found.size());
  for (const auto& [at, value] : found) values.push_back(value);
  return values;
}

bool flag_given(std::string_view command, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (word_at(command, name) != std::string_view::npos) return true;
  }
  return false;
}

bool switch_on(std::string_view command, std::initializer_list<std::string_view> names) {
  if (!flag_given(command, names)) return false;
  const std::optional<std::string_view> value = flag_value(command, names);
  if (!value) return true;
  for (std::string_view off : {"0", "false", "off", "no"}) {
    if (*value == off) return false;
  }
  return true;
}

void read_flags(std::string_view command, std::initializer_list<FlagSetting> table, LogBuilder& out) {
  for (const FlagSetting& row : table) {
    if (std::optional<std::string_view> value = flag_value(command, row.flags)) {
      out.setting(row.setting, *value);
    }
  }
}

}  // namespace memfit::logs
