// ggml-cuda's legacy pool as a HIP build keeps it, and an RDNA3 GPU's
// product requests (src/engines/ollama/gpu_pool.cc), each figure worked
// out by hand from ggml_cuda_pool_leg's rules (ggml-cuda.cu at Ollama
// v0.12.6): a new buffer is (size_t)(1.05 x request) rounded up to 256 B,
// a request takes the free buffer of least excess.
#include "engines/ollama/gpu_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace memfit {
namespace {

using ollama::LegacyPoolReplay;
using ollama::WeightProduct;

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(LegacyPoolReplay, NewBufferIsFivePercentMoreRoundedTo256Bytes) {
  LegacyPoolReplay pool;
  // 8 MiB: 1.05 x 8,388,608 = 8,808,038.4 -> 8,808,038 -> 8,808,192
  // (34,407 x 256 = 8,808,192).
  EXPECT_EQ(pool.alloc(8 * kMiB), 8808192u);
  // 1,000 B: 1,050 -> 1,280 (5 x 256).
  EXPECT_EQ(pool.alloc(1000), 1280u);
  EXPECT_EQ(pool.pool_bytes(), 8808192u + 1280u);
}

TEST(LegacyPoolReplay, TakesTheFreeBufferOfLeastExcess) {
  LegacyPoolReplay pool;
  const uint64_t big = pool.alloc(8 * kMiB);    // 8,808,192
  const uint64_t small = pool.alloc(2 * kMiB);  // 1.05 x 2,097,152 = 2,202,009.6 -> 2,202,112
  EXPECT_EQ(small, 2202112u);
  pool.free(big);
  pool.free(small);
  // 1 MiB fits both; the 2 MiB buffer exceeds it least.
  EXPECT_EQ(pool.alloc(kMiB), 2202112u);
  // 4 MiB fits only the big one.
  EXPECT_EQ(pool.alloc(4 * kMiB), 8808192u);
  // Nothing free: a new buffer, 1.05 x 1 MiB = 1,101,004.8 -> 1,101,056.
  EXPECT_EQ(pool.alloc(kMiB), 1101056u);
  EXPECT_EQ(pool.pool_bytes(), 8808192u + 2202112u + 1101056u);
}

TEST(LegacyPoolReplay, AFreedBufferIsReusedNotRemade) {
  LegacyPoolReplay pool;
  for (int i = 0; i < 10; ++i) pool.free(pool.alloc(3 * kMiB));
  // 1.05 x 3 MiB = 3,303,014.4 -> 3,303,014 -> 3,303,168 (12,903 x 256), once.
  EXPECT_EQ(pool.pool_bytes(), 3303168u);
}

// qwen3:1.7b (hidden 2,048, 16 heads and 8 KV heads of 128, FFN 6,144)
// over 512 tokens, one layer: Q, K, V, attn_output, gate, up, down.
std::vector<WeightProduct> qwen3_1_7b_layer(uint64_t tokens) {
  return {{2048, 2048, tokens}, {2048, 1024, tokens}, {2048, 1024, tokens}, {2048, 2048, tokens},
          {2048, 6144, tokens}, {2048, 6144, tokens}, {6144, 2048, tokens}};
}

TEST(Rdna3ProductPool, Qwen3PromptBatchNeedsFourBuffers) {
  // Q asks 8 MiB (2,048 x 2,048 x 2 B), 2 MiB (512 x 2,048 x 2) and 2 MiB
  // (2,048 x 512 x 2): three buffers, 8,808,192 + 2 x 2,202,112. K and V
  // (4, 2, 1 MiB) and attn_output (8, 2, 2) fit them. gate asks 24 MiB
  // (6,144 x 2,048 x 2): a fourth, 1.05 x 25,165,824 = 26,424,115.2 ->
  // 26,424,320 (103,220 x 256); its 2 and 6 MiB take a 2 MiB buffer and
  // the 8 MiB one. down asks 24, 6 (512 x 6,144 x 2) and 2 MiB: held.
  // 8,808,192 + 4,404,224 + 26,424,320 = 39,636,736 B: with the replay's
  // 54,530,176 B the ROCm0 record of Ollama 0.12.6 on a 780M, 89.8 MiB
  // (94,166,912 B = 89.80 MiB).
  std::vector<WeightProduct> products;
  for (int layer = 0; layer < 28; ++layer) {
    const std::vector<WeightProduct> one = qwen3_1_7b_layer(512);
    products.insert(products.end(), one.begin(), one.end());
  }
  // The logits over one output row: MMVQ's q8_1 row, 2,048 / 32 x 36 =
  // 2,304 B, which a free buffer holds.
  products.push_back({2048, 151936, 1});
  EXPECT_EQ(ollama::rdna3_product_pool_bytes(products), std::optional<uint64_t>(39636736u));
}

TEST(Rdna3ProductPool, OneTokenProductsAskQ8RowsPaddedTo512) {
  // MMVQ: 6,144 values -> 6,144 / 32 x 36 = 6,912 B -> 1.05 x = 7,257.6
  // -> 7,424 (29 x 256); then 2,048 -> 2,304 B fits it.
  EXPECT_EQ(ollama::rdna3_product_pool_bytes(std::vector<WeightProduct>{{6144, 2048, 1}, {2048, 6144, 1}}),
            std::optional<uint64_t>(7424u));
  // 100 values pad to 512: 512 / 32 x 36 = 576 B -> 604.8 -> 768.
  EXPECT_EQ(ollama::rdna3_product_pool_bytes(std::vector<WeightProduct>{{100, 64, 1}}),
            std::optional<uint64_t>(768u));
}

TEST(Rdna3ProductPool, MmqBatchesAndFloatWeightsAreNotReplayed) {
  // 9 to 63 tokens: MMQ, whose buffers are not replayed.
  EXPECT_FALSE(ollama::rdna3_product_pool_bytes(std::vector<WeightProduct>{{2048, 2048, 32}}).has_value());
  EXPECT_FALSE(
      ollama::rdna3_product_pool_bytes(std::vector<WeightProduct>{{2048, 2048, 512, /*quantized=*/false}})
          .has_value());
}

TEST(CudaComputeCapability, ReadsMajorAndMinorFromDiscovery) {
  EXPECT_EQ(ollama::cuda_compute_capability("8.6"), std::optional<unsigned>(86));
  EXPECT_EQ(ollama::cuda_compute_capability("12.0"), std::optional<unsigned>(120));
  EXPECT_FALSE(ollama::cuda_compute_capability("gfx1102").has_value());
  EXPECT_FALSE(ollama::cuda_compute_capability("8").has_value());
  EXPECT_FALSE(ollama::cuda_compute_capability("8.66").has_value());
}

// Qwen3 8B's attention: 32 heads, 8 KV heads (GQA 4), V heads of 128.
ollama::FlashAttentionNode qwen3_8b_attention(uint64_t tokens, uint64_t cells) {
  return {.tokens = tokens, .heads = 32, .kv_heads = 8, .cells = cells, .head_dim_v = 128};
}

TEST(MmaFlashAttentionPool, AmperePromptBatchTakesWholeTilesOfFloat2) {
  // 512 tokens on an A5000 (8.6): ncols2 4 (GQA 4, 131,072 cells a
  // multiple of 256), ncols1 64 / 4 = 16; tiles 512 / 16 x 32 / 4 = 256;
  // 256 x 64 x (4 + 128) x 4 float2s x 8 B = 69,206,016 B (66 MiB): the
  // 482.0 MiB record of ragnaive's Ollama 0.24.0 less the replay's 416.00.
  EXPECT_EQ(ollama::mma_flash_attention_pool_bytes(qwen3_8b_attention(512, 131072), 86),
            std::optional<uint64_t>(69206016u));
}

TEST(MmaFlashAttentionPool, TilesRoundTokensUpToTheKernelsColumns) {
  // 100 tokens, Ampere: ncols 64, ncols1 16: ceil(100 / 16) = 7 x 8 = 56
  // tiles; 56 x 64 x 132 x 32 = 15,138,816 B.
  EXPECT_EQ(ollama::mma_flash_attention_pool_bytes(qwen3_8b_attention(100, 4096), 86),
            std::optional<uint64_t>(15138816u));
  // Turing (7.5) stops at 32 columns: ncols1 8, ceil(100 / 8) = 13 x 8 =
  // 104 tiles; 104 x 32 x 132 x 32 = 14,057,472 B.
  EXPECT_EQ(ollama::mma_flash_attention_pool_bytes(qwen3_8b_attention(100, 4096), 75),
            std::optional<uint64_t>(14057472u));
  // Cells not a multiple of 256: no GQA columns, ncols1 64: ceil(100 / 64)
  // = 2 x 32 heads = 64 tiles; 64 x 64 x 132 x 32 = 17,301,504 B.
  EXPECT_EQ(ollama::mma_flash_attention_pool_bytes(qwen3_8b_attention(100, 4000), 86),
            std::optional<uint64_t>(17301504u));
}

TEST(MmaFlashAttentionPool, OtherGenerationsAreNotReplayed) {
  // Ada (8.9) and later take stream-k's occupancy x SMs blocks; Volta
  // (7.0) has no MMA kernel.
  EXPECT_FALSE(ollama::mma_flash_attention_pool_bytes(qwen3_8b_attention(512, 4096), 89).has_value());
  EXPECT_FALSE(ollama::mma_flash_attention_pool_bytes(qwen3_8b_attention(512, 4096), 70).has_value());
}

TEST(CudaVmmPool, TheLargestRequestRoundedUpTo2MiB) {
  // Flash attention's 69,206,016 B (33 x 2 MiB) beat the down product's
  // q8_1 activations: 512 x 12,288 / 32 x 36 = 7,077,888 + 128 x 144 =
  // 7,096,320 B.
  const std::vector<WeightProduct> down = {{12288, 4096, 512}};
  EXPECT_EQ(ollama::cuda_vmm_pool_bytes(69206016u, down), std::optional<uint64_t>(69206016u));
  // Alone, the product's 7,096,320 B take four 2 MiB steps: 8,388,608 B.
  EXPECT_EQ(ollama::cuda_vmm_pool_bytes(0, down), std::optional<uint64_t>(8388608u));
  // One token (MMVQ, no MMQ tile): 4,096 / 32 x 36 = 4,608 B -> 2 MiB;
  // 1,000,000 B of attention: 1,000,064 (128-aligned) -> 2 MiB.
  EXPECT_EQ(ollama::cuda_vmm_pool_bytes(1000000u, std::vector<WeightProduct>{{4096, 4096, 1}}),
            std::optional<uint64_t>(2097152u));
}

}  // namespace
}  // namespace memfit
