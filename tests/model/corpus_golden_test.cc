// A golden KV figure for every config in tests/data/corpus not already
// covered by tests/engines/mlxcel/kv_cache_layout_test.cc, at 8192 tokens,
// batch 1, fp16 (2 B per element; recurrent state f32). Per layer per
// token attention costs 2 x kv_heads x head_dim x 2 B.
#include <gtest/gtest.h>

#include "support/corpus.h"

namespace memfit {
namespace {

struct Golden {
  const char* model;
  const char* layout;
  uint64_t kv_bytes;
};

constexpr Golden kGolden[] = {
    // 32 layers x (2 x 8 x 128 x 2 = 4096) = 131,072 B/token x 8192
    {"cohere/aya-23-8B", "standard", 1073741824},
    // 92 x 4096 = 376,832 x 8192
    {"glm/GLM-4.7", "standard", 3087007744},
    // 46 x 4096 = 188,416 x 8192
    {"glm/INTELLECT-3-Base-GLM4.5Air-arch", "standard", 1543503872},
    // 32 x (2 x 32 x 128 x 2 = 16,384) = 524,288 x 8192
    {"olmo2/OLMo-2-1124-7B", "standard", 4294967296},
    // 40 x (2 x 40 x 128 x 2 = 20,480) = 819,200 x 8192
    {"olmo2/OLMo-2-1124-13B", "standard", 6710886400},
    // head_dim 3072 / 32 = 96: 32 x (2 x 32 x 96 x 2 = 12,288) = 393,216 x 8192;
    // its window 262,144 is past the context
    {"phi3/Phi-3.5-mini-instruct", "sliding_window", 3221225472},
    // 32 x (2 x 8 x 128 x 2 = 4096) = 131,072 x 8192
    {"phi3/Phi-4-mini-instruct", "sliding_window", 1073741824},
    // 40 x (2 x 10 x 128 x 2 = 5120) = 204,800 x 8192 (window 16,384 past the context)
    {"phi3/phi-4", "sliding_window", 1677721600},
    // use_sliding_window false; 24 x (2 x 16 x 128 x 2 = 8192) = 196,608 x 8192
    {"qwen2_moe/Qwen1.5-MoE-A2.7B", "standard", 1610612736},
    // text fields at the top level; 28 x (2 x 4 x 128 x 2 = 2048) = 57,344 x 8192
    {"qwen2_5_vl/Qwen2.5-VL-7B-Instruct", "standard", 469762048},
    {"qwen2_5/Qwen2-7B-Instruct-preset", "standard", 469762048},
    // head_dim 576 / 9 = 64: 30 x (2 x 3 x 64 x 2 = 768) = 23,040 x 8192
    {"smollm/SmolLM2-135M-Instruct", "standard", 188743680},
    // NoPE layers are not windowed: 36 x (2 x 4 x 128 x 2 = 2048) = 73,728 x 8192
    {"smollm3/SmolLM3-3B", "standard", 603979776},
    // 32 x 4096 = 131,072 x 8192
    {"mixtral/Mixtral-8x7B-v0.1", "standard", 1073741824},
    // all full attention: 62 x 4096 = 253,952 x 8192
    {"minimax/MiniMax-M2.5", "standard", 2080374784},
    // d_inner 8192, state 16: (3 x 8192 + 8192 x 16) x 4 = 622,592 x 64 layers
    {"mlx/Falcon3-Mamba-7B-Instruct-4bits", "ssm", 39845888},
    // 10 full: 10 x (2 x 2 x 256 x 2 = 2048) x 8192 = 167,772,160;
    // 30 delta: (3 x (2 x 16 x 128 + 32 x 128) + 32 x 128 x 128) x 4 = 2,195,456 x 30 = 65,863,680
    {"qwen3_5/Qwen3.5-35B-A3B", "hybrid", 233635840},
    // 16 x (2 x 8 x 64 x 2 = 2048) = 32,768 x 8192
    {"llama3/Llama-3.2-1B-Instruct", "standard", 268435456},
    // 28 x 4096 = 114,688 x 8192
    {"llama3/Llama-3.2-3B-Instruct", "standard", 939524096},
    // 80 x 4096 = 327,680 x 8192
    {"llama3/Llama-3.3-70B-Instruct", "standard", 2684354560},
    {"llama3/Meta-Llama-3.1-70B", "standard", 2684354560},
    // 126 x 4096 = 516,096 x 8192
    {"llama3/Meta-Llama-3.1-405B", "standard", 4227858432},
    // 48 x (2 x 4 x 128 x 2 = 2048) = 98,304 x 8192
    {"qwen3_moe/Qwen3-30B-A3B", "standard", 805306368},
    {"qwen3_moe/Qwen3-30B-A3B-FP8", "standard", 805306368},
    // 28 x 4096 = 114,688 x 8192
    {"qwen3/Qwen3-0.6B", "standard", 939524096},
    {"qwen3/Qwen3-1.7B-MLX-bf16", "standard", 939524096},
    // 64 x 4096 = 262,144 x 8192
    {"qwen3/Qwen3-32B", "standard", 2147483648},
    // 40 x 4096 = 163,840 x 8192
    {"mlx/Qwen3-14B-MLX-4bit", "standard", 1342177280},
    // 32 x 4096 = 131,072 x 8192
    {"llama3/Llama-3.1-8B-ft-bnb-int8", "standard", 1073741824},
    // 21 full x (2 x 8 x 256 x 2 = 8192) x 8192 = 1,409,286,144
    // + 21 sliding x 8192 x 4096 = 704,643,072
    {"gemma2/gemma-2-9b-it", "sliding_window", 2113929216},
    // full_attn_idxs: 6 x (2 x 8 x 64 x 2 = 2048) x 8192 = 100,663,296;
    // 10 conv x (2 x 1536 x 4 = 12,288) = 122,880
    {"lfm2/LFM2-700M", "hybrid", 100786176},
    // MLA latent 512 + rope 64 + indexer key 128 = 704 elements:
    // 61 x 704 x 2 = 85,888 x 8192
    {"deepseek_v32/DeepSeek-V3.2-Exp-ptpc", "mla", 703594496},
};

TEST(CorpusGolden, EveryFamilyMatchesItsHandComputedCache) {
  for (const Golden& g : kGolden) {
    ModelSpec spec = testing::corpus_spec(g.model);
    EXPECT_EQ(spec.layout, g.layout) << g.model;
    KvCacheEstimate kv = testing::corpus_kv(g.model, 8192);
    EXPECT_TRUE(kv.available) << g.model;
    EXPECT_EQ(kv.total_bytes, g.kv_bytes) << g.model;
  }
}

TEST(CorpusGolden, Phi4WindowCapsPastSixteenThousandTokens) {
  // 204,800 B/token x 16,384 window = 3,355,443,200 at 32,768 tokens.
  EXPECT_EQ(testing::corpus_kv("phi3/phi-4", 32768).total_bytes, 3355443200u);
}

}  // namespace
}  // namespace memfit
