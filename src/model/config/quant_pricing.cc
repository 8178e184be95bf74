// The bytes of one quantized matrix per checkpoint format
// (model/config/quant_pricing.h).
#include "model/config/quant_pricing.h"

namespace memfit {
namespace {

constexpr uint64_t kInt32Bits = 32;
constexpr uint64_t kInt32Bytes = 4;
constexpr uint64_t kFp16Bytes = 2;
constexpr uint64_t kFloat32Bytes = 4;

CheckedBytes groups_per_row(uint64_t cols, uint64_t group_size) {
  return group_size == 0 ? CheckedBytes(1) : CheckedBytes::ceil_div(cols, group_size);
}

// int32 words holding `values` packed values of `bits` bits.
CheckedBytes packed_words(CheckedBytes values, uint64_t bits) {
  return CheckedBytes::ceil_div(values * bits, kInt32Bits);
}

}  // namespace

CheckedBytes mlx_affine_bytes(CheckedBytes elements, uint64_t bits, uint64_t group_size,
                              uint64_t scale_bytes) {
  return CheckedBytes::ceil_div(elements * bits, 8) +
         CheckedBytes::ceil_div(elements, group_size) * 2 * scale_bytes;
}

CheckedBytes gptq_matrix_bytes(uint64_t rows, uint64_t cols, uint64_t bits, uint64_t group_size) {
  const CheckedBytes groups = groups_per_row(cols, group_size);
  return packed_words(cols, bits) * rows * kInt32Bytes +       // qweight
         groups * packed_words(rows, bits) * kInt32Bytes +     // qzeros
         groups * rows * kFp16Bytes +                          // scales
         CheckedBytes(cols) * kInt32Bytes;                     // g_idx
}

CheckedBytes awq_matrix_bytes(uint64_t rows, uint64_t cols, uint64_t bits, uint64_t group_size) {
  const CheckedBytes groups = groups_per_row(cols, group_size);
  return CheckedBytes(cols) * packed_words(rows, bits) * kInt32Bytes +  // qweight
         groups * packed_words(rows, bits) * kInt32Bytes +              // qzeros
         groups * rows * kFp16Bytes;                                    // scales
}

CheckedBytes fp8_matrix_bytes(uint64_t rows, uint64_t cols, uint64_t block_rows,
                              uint64_t block_cols) {
  CheckedBytes scales = 1;
  if (block_rows > 0 && block_cols > 0) {
    scales = CheckedBytes::ceil_div(rows, block_rows) * CheckedBytes::ceil_div(cols, block_cols);
  }
  return CheckedBytes(rows) * cols + scales * kFloat32Bytes;
}

CheckedBytes mxfp4_matrix_bytes(uint64_t rows, uint64_t cols) {
  const CheckedBytes blocks = CheckedBytes(rows) * CheckedBytes::ceil_div(cols, 32);
  return blocks * 16 + blocks;  // 32 values in 16 bytes, then one scale byte
}

CheckedBytes bnb_int8_matrix_bytes(uint64_t rows, uint64_t cols) {
  return CheckedBytes(rows) * cols + CheckedBytes(rows) * kFloat32Bytes + 1;
}

CheckedBytes bnb_4bit_matrix_bytes(uint64_t rows, uint64_t cols, bool double_quant) {
  const CheckedBytes elements = CheckedBytes(rows) * cols;
  const CheckedBytes blocks = CheckedBytes::ceil_div(elements, 64);
  const CheckedBytes absmax = double_quant
                                  ? blocks + CheckedBytes::ceil_div(blocks, 256) * kFloat32Bytes
                                  : blocks * kFloat32Bytes;
  return CheckedBytes::ceil_div(elements, 2) + absmax;
}

}  // namespace memfit
