// The ggml type table. Each row's block bytes is the size of ggml's block
// struct for that type, worked out from its fields (a "half" is 2 bytes;
// QK_K, the K-quant super-block, is 256 elements); docs/gguf.md names the
// llama.cpp sources checked.
#include "memfit/ggml_types.h"

#include <fmt/format.h>

#include <array>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

constexpr uint64_t kSuperBlock = 256;  // QK_K

constexpr std::array<GgmlTypeTraits, 34> kTypes = {{
    {GgmlType::kF32, "f32", 1, 4},
    {GgmlType::kF16, "f16", 1, 2},
    // half scale + 32 4-bit quants (16 bytes)
    {GgmlType::kQ4_0, "q4_0", 32, 18},
    // half scale, half min + 16 bytes of quants
    {GgmlType::kQ4_1, "q4_1", 32, 20},
    // half scale + 4 bytes of fifth bits + 16 bytes of quants
    {GgmlType::kQ5_0, "q5_0", 32, 22},
    // half scale, half min + 4 + 16
    {GgmlType::kQ5_1, "q5_1", 32, 24},
    // half scale + 32 int8 quants
    {GgmlType::kQ8_0, "q8_0", 32, 34},
    // half scale, half sum + 32 int8 quants
    {GgmlType::kQ8_1, "q8_1", 32, 36},
    // 16 bytes scales + 64 bytes quants + half d, half dmin
    {GgmlType::kQ2_K, "q2_K", kSuperBlock, 84},
    // 32 bytes high bits + 64 bytes quants + 12 bytes scales + half d
    {GgmlType::kQ3_K, "q3_K", kSuperBlock, 110},
    // half d, half dmin + 12 bytes scales + 128 bytes quants
    {GgmlType::kQ4_K, "q4_K", kSuperBlock, 144},
    // half d, half dmin + 12 + 32 bytes high bits + 128
    {GgmlType::kQ5_K, "q5_K", kSuperBlock, 176},
    // 128 bytes low bits + 64 bytes high bits + 16 scales + half d
    {GgmlType::kQ6_K, "q6_K", kSuperBlock, 210},
    // float d + 256 int8 quants + 16 int16 sums
    {GgmlType::kQ8_K, "q8_K", kSuperBlock, 292},
    // half d + 32 uint16
    {GgmlType::kIQ2_XXS, "iq2_xxs", kSuperBlock, 66},
    // half d + 32 uint16 + 8 bytes scales
    {GgmlType::kIQ2_XS, "iq2_xs", kSuperBlock, 74},
    // half d + 96 bytes
    {GgmlType::kIQ3_XXS, "iq3_xxs", kSuperBlock, 98},
    // half d + 32 bytes + 8 uint16
    {GgmlType::kIQ1_S, "iq1_s", kSuperBlock, 50},
    // half d + 16 bytes (a 32-element block, not a super-block)
    {GgmlType::kIQ4_NL, "iq4_nl", 32, 18},
    // half d + 64 qs + 8 qh + 32 signs + 4 scales
    {GgmlType::kIQ3_S, "iq3_s", kSuperBlock, 110},
    // half d + 64 qs + 8 qh + 8 scales
    {GgmlType::kIQ2_S, "iq2_s", kSuperBlock, 82},
    // half d + uint16 high scales + 4 low scales + 128 quants
    {GgmlType::kIQ4_XS, "iq4_xs", kSuperBlock, 136},
    {GgmlType::kI8, "i8", 1, 1},
    {GgmlType::kI16, "i16", 1, 2},
    {GgmlType::kI32, "i32", 1, 4},
    {GgmlType::kI64, "i64", 1, 8},
    {GgmlType::kF64, "f64", 1, 8},
    // 32 qs + 16 qh + 8 scales (no separate scale field)
    {GgmlType::kIQ1_M, "iq1_m", kSuperBlock, 56},
    {GgmlType::kBF16, "bf16", 1, 2},
    // 48 bytes of 5-per-byte trits + 4 bytes of 4-per-byte trits + half d
    {GgmlType::kTQ1_0, "tq1_0", kSuperBlock, 54},
    // 64 bytes of 2-bit quants + half d
    {GgmlType::kTQ2_0, "tq2_0", kSuperBlock, 66},
    // one E8M0 exponent byte + 16 bytes of 4-bit values
    {GgmlType::kMXFP4, "mxfp4", 32, 17},
    // 4 E4M3 sub-block scales + 32 bytes of 4-bit values
    {GgmlType::kNVFP4, "nvfp4", 64, 36},
    // half d + 16 bytes of 1-bit quants
    {GgmlType::kQ1_0, "q1_0", 128, 18},
}};

// The largest id in the table, and the table indexed by id (-1: none).
constexpr uint32_t kMaxTypeId = 41;

constexpr std::array<int8_t, kMaxTypeId + 1> make_index() {
  std::array<int8_t, kMaxTypeId + 1> index{};
  for (auto& slot : index) slot = -1;
  for (size_t i = 0; i < kTypes.size(); ++i) {
    index[static_cast<uint32_t>(kTypes[i].type)] = static_cast<int8_t>(i);
  }
  return index;
}
constexpr std::array<int8_t, kMaxTypeId + 1> kIndex = make_index();

}  // namespace

std::span<const GgmlTypeTraits> ggml_type_table() { return kTypes; }

const GgmlTypeTraits* find_ggml_type(uint32_t id) {
  if (id > kMaxTypeId || kIndex[id] < 0) return nullptr;
  return &kTypes[static_cast<size_t>(kIndex[id])];
}

const GgmlTypeTraits& ggml_type_traits(GgmlType type) {
  return *find_ggml_type(static_cast<uint32_t>(type));
}

std::string_view retired_ggml_type_name(uint32_t id) {
  switch (id) {
    case 4:
      return "Q4_2";
    case 5:
      return "Q4_3";
    case 31:
      return "Q4_0_4_4";
    case 32:
      return "Q4_0_4_8";
    case 33:
      return "Q4_0_8_8";
    case 36:
      return "IQ4_NL_4_4";
    case 37:
      return "IQ4_NL_4_8";
    case 38:
      return "IQ4_NL_8_8";
    default:
      return "";
  }
}

Result<uint64_t> ggml_tensor_bytes(GgmlType type, std::span<const uint64_t> dims) {
  const GgmlTypeTraits& traits = ggml_type_traits(type);
  const uint64_t row_elements = dims.empty() ? 1 : dims[0];
  if (row_elements % traits.block_elements != 0) {
    return Error(fmt::format("{} elements per row is not a multiple of {}'s block of {}",
                             row_elements, traits.name, traits.block_elements));
  }
  // A tensor with a zero dimension holds nothing, however large the others
  // (ggml checks its element count only when it is not zero).
  for (uint64_t dim : dims) {
    if (dim == 0) return uint64_t{0};
  }
  CheckedBytes bytes = CheckedBytes(row_elements / traits.block_elements) * traits.block_bytes;
  for (size_t i = 1; i < dims.size(); ++i) bytes *= dims[i];
  if (bytes.overflowed()) return Error::overflow("more than 2^64 bytes");
  return *bytes.value();
}

}  // namespace memfit
