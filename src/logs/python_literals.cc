// Python keyword lists and dicts as vLLM and SGLang log them
// (python_literals.h). Values are read, never evaluated.
#include "logs/python_literals.h"

#include <algorithm>

namespace memfit::logs {
namespace {

constexpr size_t kMaxPairs = 512;

// A quoted string at the start of `text` ('...' or "..."), unescaped;
// advances past it. Unterminated: the rest.
std::string take_quoted(std::string_view& text) {
  const char quote = text.front();
  std::string out;
  size_t i = 1;
  for (; i < text.size() && text[i] != quote; ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out.push_back(text[i]);
  }
  text.remove_prefix(std::min(i + 1, text.size()));
  return out;
}

// A value up to ", " or a closing bracket at its own level; advances.
std::string take_value(std::string_view& text) {
  if (!text.empty() && (text.front() == '\'' || text.front() == '"')) return take_quoted(text);
  int depth = 0;
  char quote = 0;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    } else if (c == ',' && depth == 0) {
      break;
    }
  }
  i = std::min(i, text.size());  // an escape at the very end
  std::string value(text.substr(0, i));
  text.remove_prefix(i);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

bool skip_separator(std::string_view& text) {
  if (!text.starts_with(',')) return false;
  text.remove_prefix(1);
  while (text.starts_with(' ')) text.remove_prefix(1);
  return true;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::vector<std::pair<std::string, std::string>> python_keyword_pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!text.empty() && pairs.size() < kMaxPairs) {
    while (text.starts_with(' ')) text.remove_prefix(1);
    size_t n = 0;
    while (n < text.size() && is_name_char(text[n])) ++n;
    if (n == 0 || n >= text.size() || text[n] != '=') break;
    std::string key(text.substr(0, n));
    text.remove_prefix(n + 1);
    pairs.emplace_back(std::move(key), take_value(text));
    if (!skip_separator(text)) break;
  }
  return pairs;
}

std::vector<std::pair<std::string, std::string>> python_dict_pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!text.starts_with('{')) return pairs;
  text.remove_prefix(1);
  while (!text.empty() && pairs.size() < kMaxPairs) {
    while (text.starts_with(' ')) text.remove_prefix(1);
    if (text.empty() || (text.front() != '\'' && text.front() != '"')) break;
    std::string key = take_quoted(text);
    if (!text.starts_with(": ")) break;
    text.remove_prefix(2);
    pairs.emplace_back(std::move(key), take_value(text));
    if (!skip_separator(text)) break;
  }
  return pairs;
}

}  // namespace memfit::logs
