// Decoding GGUF's fixed-size values, shared by the header parser and the
// metadata getters (a kept array holds its numbers as the file's bytes).
#ifndef MEMFIT_MODEL_GGUF_VALUES_H_
#define MEMFIT_MODEL_GGUF_VALUES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "memfit/gguf.h"

namespace memfit {

// Bytes of a value of type id `type`: 1, 2, 4 or 8 for the numbers and
// bool; 0 for str, arr and ids past the last type.
uint64_t gguf_fixed_width(uint32_t type);

// The little-endian number of `bytes` (at most 8).
uint64_t decode_gguf_le(std::string_view bytes);

// The value of fixed-size type `type` stored in `bytes` (its width).
GgufValue decode_gguf_fixed(GgufValueType type, std::string_view bytes);

// For messages: "u32 5", "f32 1.5", "bool true", "str 'llama'", "an array
// of 3 i32". Strings are quoted as untrusted text.
std::string describe_gguf_value(const GgufValue& value);

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_VALUES_H_
