// JSON field names to flags in messages (flag_text.h).
#include "flag_text.h"

#include <cctype>

#include "memfit/request_field.h"

namespace memfit::cli {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

// The field whose name stands as a whole word at text[at]; null when none.
const RequestField* field_at(std::string_view text, size_t at) {
  if (at > 0 && is_word_char(text[at - 1])) return nullptr;
  for (const RequestField* field : request_fields()) {
    const std::string_view name = field->name;
    if (name.find('_') == std::string_view::npos || !text.substr(at).starts_with(name)) continue;
    const size_t end = at + name.size();
    if (end < text.size() && is_word_char(text[end])) continue;
    return field;
  }
  return nullptr;
}

}  // namespace

std::string with_flag_names(std::string_view text) {
  std::string out;
  // The quote that opened the quoted text now being copied; 0 outside.
  // A ' opens only after a non-word character: "model's" is no quote.
  char quote = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (quote == 0 && (c == '"' || (c == '\'' && (i == 0 || !is_word_char(text[i - 1]))))) {
      quote = c;
    } else if (quote != 0 && c == quote) {
      quote = 0;
    }
    const RequestField* field = quote != 0 ? nullptr : field_at(text, i);
    if (field == nullptr) {
      out.push_back(text[i++]);
      continue;
    }
    out += field_flag(*field);
    i += field->name.size();
  }
  return out;
}

}  // namespace memfit::cli
