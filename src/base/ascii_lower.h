// ASCII lower case for matching names (GPU, chip and backend names) that
// the user or a log spells in any case.
#ifndef MEMFIT_SRC_BASE_ASCII_LOWER_H_
#define MEMFIT_SRC_BASE_ASCII_LOWER_H_

#include <cctype>
#include <string>
#include <string_view>

namespace memfit {

// `text` with A-Z made a-z; every other byte as it is (no locale).
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace memfit

#endif  // MEMFIT_SRC_BASE_ASCII_LOWER_H_
