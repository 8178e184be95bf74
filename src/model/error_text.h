// Pieces of the model area's messages: tensor shapes and counted nouns.
// Untrusted text (tensor names, shard names, paths) goes through
// quote_untrusted() (memfit/untrusted_text.h, included here for the files
// that use both).
#ifndef MEMFIT_MODEL_ERROR_TEXT_H_
#define MEMFIT_MODEL_ERROR_TEXT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "memfit/untrusted_text.h"

namespace memfit {

// "[4096, 11008]"; at most 8 dimensions, then ", ...".
std::string format_shape(std::span<const uint64_t> shape);

// "1 shard", "2 shards": `count` and the noun, plural unless count == 1.
std::string count_noun(uint64_t count, std::string_view singular, std::string_view plural);

}  // namespace memfit

#endif  // MEMFIT_MODEL_ERROR_TEXT_H_
