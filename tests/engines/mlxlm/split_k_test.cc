// mlx_split_k_bytes: MLX's split-K scratch (split_k.h), worked by hand on
// Qwen2.5-0.5B's projections (hidden 896, 2 KV heads of 64: 128, MLP 4864,
// vocabulary 151936) at the prompt lengths of the corpus's M1 and M1 Max
// runs (docs/engine-mlxlm.md, "Split-K").
#include <gtest/gtest.h>

#include "engines/mlxlm/split_k.h"

namespace memfit {
namespace {

MlxMatmulRules rules(MlxRelease mlx, std::optional<MlxChip> chip, uint64_t group_size) {
  return MlxMatmulRules{.metal = true, .mlx = mlx, .chip = chip, .group_size = group_size};
}

TEST(MlxSplitK, SteelBeforeV0305SplitsOnlyFewTileProducts) {
  // MLX 0.29.3 (the M1 run), 29 rows of bf16: _tm = 29/16 = 1.
  const MlxMatmulRules r = rules({0, 29, 3}, MlxChip::kBase, 0);
  // q_proj 896 -> 896: _tn = 56, 1 x 56 > 32: not split.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 896, 896), 0u);
  // k_proj 896 -> 128: _tn = 8, 8 <= 32, _tk = 56 (>= 32, < 64): 8
  // partitions of 29 x 128 float32: 8 x 29 x 128 x 4 = 118784.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 896, 128), 118784u);
  // down_proj 4864 -> 896: _tn = 56: not split.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 4864, 896), 0u);
  // Under 16 rows _tm is 0, so every product with K/16 >= 8 splits:
  // gate_proj of 6 rows, 896 -> 4864, _tk = 56: 8 x 6 x 4864 x 4 = 933888.
  EXPECT_EQ(mlx_split_k_bytes(r, 6, 896, 4864), 933888u);
  // ...and K/16 = 4 (K 64) is too short to split.
  EXPECT_EQ(mlx_split_k_bytes(r, 6, 64, 4864), 0u);
}

TEST(MlxSplitK, SteelSinceV0305SplitsWhenKIsTheLongestSide) {
  // MLX 0.32.2 (the M1 Max run), 29 rows of bf16; M/32 rounds up to 1.
  const MlxMatmulRules r = rules({0, 32, 2}, MlxChip::kMax, 0);
  // q_proj 896 -> 896: 2 x 56 tiles <= 2048, K >= max(29, 896); 56 / (1 x
  // 28) = 2 partitions: 2 x 29 x 896 x 4 = 207872.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 896, 896), 207872u);
  // k_proj 896 -> 128: 56 / (1 x 4) = 14, next power of 2: 16 partitions:
  // 16 x 29 x 128 x 4 = 237568.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 896, 128), 237568u);
  // gate_proj 896 -> 4864: K < N, a regular GEMM.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 896, 4864), 0u);
  // down_proj 4864 -> 896: 304 / 28 = 10 -> 16: 16 x 29 x 896 x 4 = 1662976.
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 4864, 896), 1662976u);
  // So a layer holds 207872 x 2 + 237568 x 2 + 1662976 = 2553856 B, and the
  // 24 layers 61292544 B (58.5 MiB) when the whole pass is in flight.
}

TEST(MlxSplitK, SteelTileBoundIsHigherOnMaxAndUltra) {
  // 64 rows, 4096 -> 2048, MLX 0.32.1: ceil(64/16) x ceil(2048/16) = 4 x
  // 128 = 512 tiles: split on every class. 320 rows: 20 x 128 = 2560 > 2048
  // too many on any. 160 rows: 10 x 128 = 1280: over 1024 (base, Pro), not
  // over 2048 (Max, Ultra). Partitions: 256 / (5 x 64) = 0 -> 2.
  EXPECT_EQ(mlx_split_k_bytes(rules({0, 32, 1}, MlxChip::kPro, 0), 160, 4096, 2048), 0u);
  EXPECT_EQ(mlx_split_k_bytes(rules({0, 32, 1}, MlxChip::kMax, 0), 160, 4096, 2048),
            2u * 160 * 2048 * 4);
  EXPECT_EQ(mlx_split_k_bytes(rules({0, 32, 1}, std::nullopt, 0), 160, 4096, 2048),
            2u * 160 * 2048 * 4);  // no class named: Max's
  EXPECT_EQ(mlx_split_k_bytes(rules({0, 32, 1}, MlxChip::kUltra, 0), 320, 4096, 2048), 0u);
}

TEST(MlxSplitK, QuantizedSplitsFromV0312AtTheMatvecRowLimit) {
  // 4-bit, group 64, 40 rows (the M1 Max's 41-token prompt less its last).
  const MlxMatmulRules r = rules({0, 32, 2}, MlxChip::kMax, 64);
  // q_proj 896 -> 896: 28 x 2 = 56 threadgroups, 512 / 56 = 9, at most
  // 896 / 64 = 14; 896 divides by 7 x 64 = 448 (not by 9 or 8 x 64): 7
  // partials of 40 x 896 bf16: 7 x 40 x 896 x 2 = 501760.
  EXPECT_EQ(mlx_split_k_bytes(r, 40, 896, 896), 501760u);
  // k_proj 896 -> 128: 4 x 2 = 8, 512 / 8 = 64, at most 14, 896 = 14 x 64:
  // 14 x 40 x 128 x 2 = 143360.
  EXPECT_EQ(mlx_split_k_bytes(r, 40, 896, 128), 143360u);
  // gate_proj 896 -> 4864: 152 x 2 = 304 threadgroups, 512 / 304 = 1: none.
  EXPECT_EQ(mlx_split_k_bytes(r, 40, 896, 4864), 0u);
  // down_proj 4864 -> 896: 9, then 8, 7, 6, 5 leave a remainder; 4 x 64 =
  // 256 divides 4864: 4 x 40 x 896 x 2 = 286720.
  EXPECT_EQ(mlx_split_k_bytes(r, 40, 4864, 896), 286720u);
  // Before v0.31.2 a quantized product never split.
  EXPECT_EQ(mlx_split_k_bytes(rules({0, 31, 1}, MlxChip::kMax, 64), 40, 896, 896), 0u);
}

TEST(MlxSplitK, QuantizedBelowTheRowLimitIsAMatvec) {
  const MlxMatmulRules max = rules({0, 32, 1}, MlxChip::kMax, 64);
  // 896 -> 896 (both <= 2048): 14 rows on base, Pro and Max; 13 is a qmv.
  EXPECT_EQ(mlx_split_k_bytes(max, 13, 896, 896), 0u);
  EXPECT_GT(mlx_split_k_bytes(max, 14, 896, 896), 0u);
  // An Ultra keeps 32 rows a matvec.
  EXPECT_EQ(mlx_split_k_bytes(rules({0, 32, 1}, MlxChip::kUltra, 64), 31, 896, 896), 0u);
  // 4864 -> 896 (over 4096): 6 rows on base, Pro and Max.
  EXPECT_EQ(mlx_split_k_bytes(max, 5, 4864, 896), 0u);
  EXPECT_GT(mlx_split_k_bytes(max, 6, 4864, 896), 0u);
}

TEST(MlxSplitK, OneRowCudaAndEmptyShapesHaveNoScratch) {
  const MlxMatmulRules r = rules({0, 32, 1}, MlxChip::kMax, 0);
  EXPECT_EQ(mlx_split_k_bytes(r, 1, 4864, 896), 0u);  // decode: a gemv
  MlxMatmulRules cuda = r;
  cuda.metal = false;
  EXPECT_EQ(mlx_split_k_bytes(cuda, 29, 4864, 896), 0u);
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 0, 896), 0u);
  EXPECT_EQ(mlx_split_k_bytes(r, 29, 4864, 0), 0u);
}

}  // namespace
}  // namespace memfit
