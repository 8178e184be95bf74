// The ggml tensor types a GGUF file may hold, and the exact bytes of a
// tensor of each.
//
// ggml stores a tensor's rows in blocks: a block holds `block_elements`
// consecutive elements of one row in `block_bytes` bytes (F32: 1 element in
// 4 bytes; Q4_K: 256 elements in 144 bytes). A row's length must be a whole
// number of blocks, so a tensor with dims ne[0] (the row) .. ne[3] takes
//   ne[0] / block_elements * block_bytes * ne[1] * ne[2] * ne[3]  bytes.
//
// Ids and sizes are ggml's (enum ggml_type in ggml/include/ggml.h, the
// type_traits table in ggml/src/ggml.c, the block structs in
// ggml/src/ggml-common.h); docs/gguf.md names the llama.cpp commits they
// were checked against. Ids that ggml retired (Q4_2, Q4_3, the Q4_0_4_4 and
// IQ4_NL_4_4 repacked families) are not valid in a file.
#ifndef MEMFIT_GGML_TYPES_H_
#define MEMFIT_GGML_TYPES_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// ggml_type, by the id a GGUF tensor info stores.
enum class GgmlType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kIQ2_XXS = 16,
  kIQ2_XS = 17,
  kIQ3_XXS = 18,
  kIQ1_S = 19,
  kIQ4_NL = 20,
  kIQ3_S = 21,
  kIQ2_S = 22,
  kIQ4_XS = 23,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kIQ1_M = 29,
  kBF16 = 30,
  kTQ1_0 = 34,
  kTQ2_0 = 35,
  kMXFP4 = 39,
  kNVFP4 = 40,
  kQ1_0 = 41,
};

struct GgmlTypeTraits {
  GgmlType type;
  std::string_view name;    // ggml_type_name(): "f32", "q4_K", "iq2_xxs", "mxfp4"
  uint64_t block_elements;  // elements per block (ggml's blck_size)
  uint64_t block_bytes;     // bytes per block (ggml's type_size)
};

// Every valid type, in id order.
std::span<const GgmlTypeTraits> ggml_type_table();

// The traits of type id `id`; nullptr when `id` is not a type a file may
// hold (a retired id, or past the table).
const GgmlTypeTraits* find_ggml_type(uint32_t id);

// The traits of `type` (which is always in the table).
const GgmlTypeTraits& ggml_type_traits(GgmlType type);

// The old name of a retired id ("Q4_2", "Q4_0_4_4", "IQ4_NL_8_8"); "" for
// any other id.
std::string_view retired_ggml_type_name(uint32_t id);

// Exact bytes of a tensor of `type` with dims `dims` (ne[0] first, at most
// 4; none is a scalar: one element). Fails when ne[0] is not a multiple of
// the block size, and when the bytes do not fit in 64 bits. The message
// is the detail only ("100 elements per row is not a multiple of q4_K's
// block of 256"); callers add the tensor's name.
Result<uint64_t> ggml_tensor_bytes(GgmlType type, std::span<const uint64_t> dims);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_GGML_TYPES_H_
