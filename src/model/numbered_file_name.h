// "<prefix>-<i>-of-<n><suffix>": the one parser of the numbered file names
// shard sets use (safetensors "model-00001-of-00004.safetensors", GGUF
// splits "model-00001-of-00003.gguf").
#ifndef MEMFIT_MODEL_NUMBERED_FILE_NAME_H_
#define MEMFIT_MODEL_NUMBERED_FILE_NAME_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace memfit {

// At most this many digits in i and n, which keeps them far from overflow.
inline constexpr size_t kMaxNumberedFileDigits = 9;

struct NumberedFileName {
  std::string_view prefix;  // may be empty; a view into the parsed name
  uint64_t number = 0;      // i, as written: may be 0 or past count
  uint64_t count = 0;       // n, at least 1
  size_t number_digits = 0;  // widths as written ("00001": 5)
  size_t count_digits = 0;
};

// nullopt unless `name` (a file name, not a path) ends with `suffix` and
// is "<prefix>-<i>-of-<n>" before it, with i and n decimal and n >= 1.
std::optional<NumberedFileName> parse_numbered_file_name(std::string_view name,
                                                         std::string_view suffix);

}  // namespace memfit

#endif  // MEMFIT_MODEL_NUMBERED_FILE_NAME_H_
