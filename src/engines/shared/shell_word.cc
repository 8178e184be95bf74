// A command line's word quoted for a POSIX shell (engines/shared/shell_word.h).
#include "engines/shared/shell_word.h"

#include <algorithm>

namespace memfit {

std::string shell_word(std::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '/' || c == '+' || c == '-' || c == ',' || c == '=' ||
           c == ':';
  });
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace memfit
