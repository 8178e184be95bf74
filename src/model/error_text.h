// Untrusted text (tensor names, shard names, paths) inside one-line error
// messages and warnings.
//
// Names come from files memfit does not trust: a name may hold a newline,
// an escape sequence for the terminal, or a megabyte of text. quote_untrusted()
// makes it safe to print on one line.
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
