// Pieces of the model area's messages (model/error_text.h).
#include "model/error_text.h"

#include <fmt/format.h>

namespace memfit {

std::string format_shape(std::span<const uint64_t> shape) {
  constexpr size_t kMaxDims = 8;
  std::string out = "[";
  for (size_t i = 0; i < shape.size() && i < kMaxDims; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() > kMaxDims) out += ", ...";
  out += "]";
  return out;
}

std::string count_noun(uint64_t count, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", count, count == 1 ? singular : plural);
}

}  // namespace memfit
