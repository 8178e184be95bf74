// The bytes a quantized matrix takes in each checkpoint format memfit
// prices: its packed weights and the scales (zeros, biases, indices) stored
// beside them. One rows x cols matrix, as a Linear layer stores its weight:
// rows = output features, cols = input features, the dimension groups run
// along. Results carry overflow in CheckedBytes.
#ifndef MEMFIT_MODEL_CONFIG_QUANT_PRICING_H_
#define MEMFIT_MODEL_CONFIG_QUANT_PRICING_H_

#include <cstdint>

#include "memfit/checked_math.h"

namespace memfit {

// MLX affine (mlx.core.quantize): `bits` per weight packed in uint32, plus a
// scale and a bias per group of `group_size` weights along a row, each in
// the weight's float dtype (`scale_bytes`: 2 for float16 / bfloat16, 4 for
// float32): ceil(elements x bits / 8) + ceil(elements / group_size) x 2 x
// scale_bytes. group_size > 0.
CheckedBytes mlx_affine_bytes(CheckedBytes elements, uint64_t bits, uint64_t group_size,
                              uint64_t scale_bytes = 2);

// GPTQ (AutoGPTQ / GPTQModel), groups = ceil(cols / group_size), or one
// per row when group_size is 0 (per channel, -1 in the config):
//   qweight  int32 [ceil(cols x bits / 32), rows]
//   qzeros   int32 [groups, ceil(rows x bits / 32)]
//   scales   fp16  [groups, rows]
//   g_idx    int32 [cols]
CheckedBytes gptq_matrix_bytes(uint64_t rows, uint64_t cols, uint64_t bits, uint64_t group_size);

// AWQ (AutoAWQ GEMM): qweight int32 [cols, ceil(rows x bits / 32)], qzeros
// int32 [groups, ceil(rows x bits / 32)], scales fp16 [groups, rows]; no
// g_idx. Groups as for GPTQ.
CheckedBytes awq_matrix_bytes(uint64_t rows, uint64_t cols, uint64_t bits, uint64_t group_size);

// FP8 (e4m3 / e5m2): one byte per weight plus float32 scales, one per
// block_rows x block_cols block (weight_scale_inv [ceil(rows / block_rows),
// ceil(cols / block_cols)]), or one per matrix when either block size is 0.
CheckedBytes fp8_matrix_bytes(uint64_t rows, uint64_t cols, uint64_t block_rows,
                              uint64_t block_cols);

// MXFP4 (OCP microscaling, as gpt-oss stores its experts): 4-bit values and
// one 8-bit E8M0 scale per 32 weights along a row: blocks uint8 [rows,
// ceil(cols / 32), 16] + scales uint8 [rows, ceil(cols / 32)].
CheckedBytes mxfp4_matrix_bytes(uint64_t rows, uint64_t cols);

// bitsandbytes LLM.int8: weight int8 [rows, cols], SCB float32 [rows] and a
// one-byte weight_format.
CheckedBytes bnb_int8_matrix_bytes(uint64_t rows, uint64_t cols);

// bitsandbytes 4-bit (nf4 / fp4): two weights per byte and an absmax per 64
// weights, float32; with double quantization a uint8 absmax plus a float32
// per 256 of them. The few bytes of per-matrix state (quant_map,
// quant_state) are left out.
CheckedBytes bnb_4bit_matrix_bytes(uint64_t rows, uint64_t cols, bool double_quant);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_QUANT_PRICING_H_
