// Bytes per quantized matrix, checked against the tensors real checkpoints
// store for that matrix.
#include "model/config/quant_pricing.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

uint64_t value(CheckedBytes bytes) {
  EXPECT_FALSE(bytes.overflowed());
  return bytes.saturated();
}

TEST(QuantPricing, MlxAffineMatchesQwen3MlxTensors) {
  // Qwen3-14B-MLX-4bit q_proj, 5120 x 5120: weight U32 [5120, 640]
  // 13,107,200 + scales and biases BF16 [5120, 80] 819,200 each.
  EXPECT_EQ(value(mlx_affine_bytes(CheckedBytes(5120) * 5120, 4, 64)), 14745600u);
}

TEST(QuantPricing, GptqMatchesQwen25Int4Tensors) {
  // Qwen2.5-7B-Instruct-GPTQ-Int4 q_proj, 3584 x 3584: qweight I32
  // [448, 3584] 6,422,528 + qzeros I32 [28, 448] 50,176 + scales F16
  // [28, 3584] 200,704 + g_idx I32 [3584] 14,336.
  EXPECT_EQ(value(gptq_matrix_bytes(3584, 3584, 4, 128)), 6687744u);
  // Per channel (group_size -1): one group; qzeros 448 x 4 + scales 3584 x 2.
  EXPECT_EQ(value(gptq_matrix_bytes(3584, 3584, 4, 0)), 6445824u);
}

TEST(QuantPricing, AwqHasNoGroupIndex) {
  // qweight I32 [3584, 448] 6,422,528 + qzeros I32 [28, 448] 50,176
  // + scales F16 [28, 3584] 200,704.
  EXPECT_EQ(value(awq_matrix_bytes(3584, 3584, 4, 128)), 6673408u);
}

TEST(QuantPricing, Fp8MatchesDeepSeekV3Tensors) {
  // model.layers.3.mlp.experts.0.gate_proj: weight F8_E4M3 [2048, 7168]
  // 14,680,064 + weight_scale_inv F32 [16, 56] 3,584.
  EXPECT_EQ(value(fp8_matrix_bytes(2048, 7168, 128, 128)), 14683648u);
  // Per tensor: one float32 scale.
  EXPECT_EQ(value(fp8_matrix_bytes(4096, 4096, 0, 0)), 16777220u);
}

TEST(QuantPricing, Mxfp4MatchesGptOssTensors) {
  // gpt-oss-20b gate_up_proj of one expert, 5760 x 2880: blocks U8
  // [5760, 90, 16] 8,294,400 + scales U8 [5760, 90] 518,400.
  EXPECT_EQ(value(mxfp4_matrix_bytes(5760, 2880)), 8812800u);
}

TEST(QuantPricing, Bitsandbytes) {
  // LLM.int8 q_proj 4096 x 4096: weight I8 16,777,216 + SCB F32 [4096]
  // 16,384 + weight_format U8 1.
  EXPECT_EQ(value(bnb_int8_matrix_bytes(4096, 4096)), 16793601u);
  // nf4: 8,388,608 packed + 262,144 absmax x 4 = 9,437,184; with double
  // quantization 262,144 uint8 absmax + 1,024 float32 = 8,654,848.
  EXPECT_EQ(value(bnb_4bit_matrix_bytes(4096, 4096, false)), 9437184u);
  EXPECT_EQ(value(bnb_4bit_matrix_bytes(4096, 4096, true)), 8654848u);
}

TEST(QuantPricing, OverflowIsCarried) {
  EXPECT_TRUE(gptq_matrix_bytes(UINT64_MAX / 2, UINT64_MAX / 2, 4, 128).overflowed());
  EXPECT_TRUE(mxfp4_matrix_bytes(UINT64_MAX, 64).overflowed());
}

}  // namespace
}  // namespace memfit
