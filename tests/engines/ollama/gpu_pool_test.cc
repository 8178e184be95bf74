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

}  // namespace
}  // namespace memfit
