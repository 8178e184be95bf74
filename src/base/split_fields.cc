// Field splitting (base/split_fields.h).
#include "base/split_fields.h"

namespace memfit {

std::vector<std::string_view> split_fields(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

}  // namespace memfit
