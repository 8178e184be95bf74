// The KV cache of each layout (docs/cache-layouts.md), on real configs from
// tests/data/corpus. Every expected figure is worked out by hand from the
// config's fields in the comment above it. Context 8192 unless said; fp16
// is 2 bytes per element, int8 1.
#include <gtest/gtest.h>

#include "memfit/kv_cache.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using testing::corpus_kv;
using testing::corpus_spec;

TEST(KvLayout, StandardGqaLlama31) {
  // 32 layers, 8 kv heads, head_dim 4096/32 = 128.
  // Per layer per token 2 x 8 x 128 = 2048 elements = 4096 B fp16;
  // 32 layers: 131,072 B/token; x 8192 = 1,073,741,824.
  KvCacheEstimate kv = corpus_kv("llama3/Meta-Llama-3.1-8B", 8192);
  EXPECT_EQ(kv.total_bytes, 1073741824u);
  EXPECT_EQ(kv.unbounded_fp16_bytes_per_token, 131072u);
  EXPECT_EQ(kv.unbounded_int8_bytes_per_token, 65536u);
  ASSERT_EQ(kv.groups.size(), 1u);
  EXPECT_EQ(kv.groups[0].kind, LayerKind::kFullAttention);
  EXPECT_EQ(kv.groups[0].layers, 32u);
  EXPECT_EQ(corpus_spec("llama3/Meta-Llama-3.1-8B").layout, "standard");
}

TEST(KvLayout, ContextRoundsUpTo256TokenBlocks) {
  // 1000 tokens -> 1024; 131,072 B/token x 1024 = 134,217,728.
  EXPECT_EQ(corpus_kv("llama3/Meta-Llama-3.1-8B", 1000).total_bytes, 134217728u);
  // 1 token -> 256: 131,072 x 256 = 33,554,432.
  EXPECT_EQ(corpus_kv("llama3/Meta-Llama-3.1-8B", 1).total_bytes, 33554432u);
  // 8193 -> 8448: 131,072 x 8448 = 1,107,296,256.
  EXPECT_EQ(corpus_kv("llama3/Meta-Llama-3.1-8B", 8193).rounded_tokens, 8448u);
  EXPECT_EQ(corpus_kv("llama3/Meta-Llama-3.1-8B", 8193).total_bytes, 1107296256u);
}

TEST(KvLayout, BatchAndInt8Scale) {
  // Qwen3-8B: 36 layers x 2 x 8 kv x 128 = 73,728 elements per token.
  // fp16, batch 4: 73,728 x 2 x 8192 x 4 = 4,831,838,208.
  EXPECT_EQ(corpus_kv("qwen3/Qwen3-8B", 8192, 4).total_bytes, 4831838208u);
  // int8, batch 1: 73,728 x 1 x 8192 = 603,979,776.
  EXPECT_EQ(corpus_kv("qwen3/Qwen3-8B", 8192, 1, KvElement::kInt8).total_bytes, 603979776u);
}

TEST(KvLayout, MultiQueryGemma3HasOneKvHead) {
  // gemma-3-1b: 1 kv head x 256 head_dim: 2 x 1 x 256 = 512 elements,
  // 1024 B per layer per token. sliding_window 512, pattern 6: layers
  // 5, 11, 17, 23 are global (4), the other 22 keep 512 tokens.
  // full: 4 x 1024 x 8192 = 33,554,432; sliding: 22 x 1024 x 512 = 11,534,336;
  // total 45,088,768.
  KvCacheEstimate kv = corpus_kv("gemma3/gemma-3-1b-it", 8192);
  EXPECT_EQ(kv.total_bytes, 45088768u);
  ASSERT_EQ(kv.groups.size(), 2u);
  EXPECT_EQ(kv.groups[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(kv.groups[0].layers, 22u);
  EXPECT_EQ(kv.groups[0].window_tokens, 512u);
  EXPECT_EQ(kv.groups[0].bytes, 11534336u);
  EXPECT_EQ(kv.groups[1].layers, 4u);
  // Marginal rate counts only the 4 unwindowed layers: 4 x 1024 = 4096.
  EXPECT_EQ(kv.unbounded_fp16_bytes_per_token, 4096u);
}

TEST(KvLayout, Gemma2AlternatesByFamilyDefault) {
  // gemma-2-2b: the config says only sliding_window 4096; Gemma2Config
  // alternates sliding (even layers) and full (odd). 26 layers: 13 + 13.
  // 2 x 4 kv x 256 = 2048 elements = 4096 B per layer per token.
  // full 13 x 4096 x 8192 = 436,207,616; sliding 13 x 4096 x 4096 = 218,103,808;
  // total 654,311,424.
  KvCacheEstimate kv = corpus_kv("gemma2/gemma-2-2b-it", 8192);
  EXPECT_EQ(kv.total_bytes, 654311424u);
  ModelSpec spec = corpus_spec("gemma2/gemma-2-2b-it");
  EXPECT_EQ(spec.layout, "sliding_window");
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(spec.layers[1].kind, LayerKind::kFullAttention);
  EXPECT_NE(std::find(spec.assumptions.begin(), spec.assumptions.end(),
                      "sliding_window_pattern = 2 (gemma2 default)"),
            spec.assumptions.end());
  // Below the window every layer holds the whole context:
  // 26 x 4096 x 2048 = 218,103,808.
  EXPECT_EQ(corpus_kv("gemma2/gemma-2-2b-it", 2048).total_bytes, 218103808u);
}

TEST(KvLayout, SlidingByLayerTypesGptOss) {
  // gpt-oss-20b: 24 layers, layer_types alternate sliding/full, window 128
  // (rounded to 256). 2 x 8 kv x 64 = 1024 elements = 2048 B per layer per token.
  // full 12 x 2048 x 8192 = 201,326,592; sliding 12 x 2048 x 256 = 6,291,456;
  // total 207,618,048.
  KvCacheEstimate kv = corpus_kv("gpt_oss/gpt-oss-20b", 8192);
  EXPECT_EQ(kv.total_bytes, 207618048u);
}

TEST(KvLayout, EveryLayerWindowedMistral) {
  // Mistral-7B-v0.1: sliding_window 4096 on all 32 layers, no pattern.
  // 2 x 8 x 128 = 2048 elements = 4096 B; 32 x 4096 x 4096 = 536,870,912.
  KvCacheEstimate kv = corpus_kv("mistral/Mistral-7B-v0.1-mlcmod", 8192);
  EXPECT_EQ(kv.total_bytes, 536870912u);
  // No unwindowed layer: the marginal per-token rate is 0.
  EXPECT_EQ(kv.unbounded_fp16_bytes_per_token, 0u);
  // v0.3 says "sliding_window": null: no window, 32 x 4096 x 8192 = 1,073,741,824.
  EXPECT_EQ(corpus_kv("mistral/Mistral-7B-Instruct-v0.3", 8192).total_bytes, 1073741824u);
}

TEST(KvLayout, UseSlidingWindowFalseDisablesTheWindow) {
  // Qwen2.5-3B: sliding_window 32768 but use_sliding_window false.
  // 36 layers x 2 x 2 kv x 128 (2048/16) = 18,432 elements = 36,864 B/token;
  // x 65536 = 2,415,919,104 (the 32768 window would have halved it).
  EXPECT_EQ(corpus_kv("qwen2_5/Qwen2.5-3B-Instruct", 65536).total_bytes, 2415919104u);
}

TEST(KvLayout, MlaCompressedDeepSeekV3) {
  // kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements = 1152 B per layer
  // per token; 61 layers: 70,272 B/token; x 8192 = 575,668,224.
  KvCacheEstimate kv = corpus_kv("deepseek_v3/DeepSeek-V3", 8192);
  EXPECT_EQ(kv.total_bytes, 575668224u);
  EXPECT_EQ(kv.unbounded_fp16_bytes_per_token, 70272u);
  EXPECT_EQ(kv.groups[0].kind, LayerKind::kMlaLatent);
  EXPECT_EQ(corpus_spec("deepseek_v3/DeepSeek-V3").layout, "mla");
}

TEST(KvLayout, MlaDecompressedDeepSeekV2) {
  // deepseek_v2 only: 16 heads x (128 nope + 64 rope + 128 v) = 5120
  // elements = 10,240 B per layer per token; 27 layers: 276,480 B/token;
  // x 8192 = 2,264,924,160.
  KvCacheEstimate kv = corpus_kv("deepseek_v2/DeepSeek-V2-Lite", 8192);
  EXPECT_EQ(kv.total_bytes, 2264924160u);
}

TEST(KvLayout, MlaCompressedGlmFlash) {
  // glm4_moe_lite: 512 + 64 = 576 elements = 1152 B; 47 layers: 54,144 B/token;
  // x 8192 = 443,547,648.
  EXPECT_EQ(corpus_kv("glm/GLM-4.7-Flash-trimmed", 8192).total_bytes, 443547648u);
}

TEST(KvLayout, HybridByLayerTypesQwen35) {
  // Qwen3.5-27B: 64 layers, every 4th full attention (16), 48 gated delta net.
  // attention: 2 x 4 kv x 256 = 2048 elements = 4096 B/layer/token;
  //   16 x 4096 x 8192 = 536,870,912.
  // delta net state, f32: conv 3 x (2 x 16 x 128 + 48 x 128) = 3 x 10,240 = 30,720;
  //   recurrent 48 x 128 x 128 = 786,432; (30,720 + 786,432) x 4 = 3,268,608 B per layer;
  //   48 layers = 156,893,184.
  // total 693,764,096.
  KvCacheEstimate kv = corpus_kv("qwen3_5/Qwen3.5-27B", 8192);
  EXPECT_EQ(kv.total_bytes, 693764096u);
  // The recurrent state is not part of the per-token rate: 16 x 4096 = 65,536.
  EXPECT_EQ(kv.unbounded_fp16_bytes_per_token, 65536u);
  ASSERT_EQ(kv.groups.size(), 2u);
  EXPECT_EQ(kv.groups[0].kind, LayerKind::kLinearAttention);
  EXPECT_EQ(kv.groups[0].fixed_bytes, 156893184u);
  EXPECT_EQ(corpus_spec("qwen3_5/Qwen3.5-27B").layout, "hybrid");
}

TEST(KvLayout, HybridByOverridePatternNemotronH) {
  // pattern has 52 characters: 23 M, 6 *, 23 E.
  // attention: 2 x 2 kv x 128 = 512 elements = 1024 B; 6 x 1024 x 8192 = 50,331,648.
  // mamba2: d_inner 64 x 64 = 4096; conv 3 x (4096 + 2 x 8 x 128) = 18,432;
  //   ssm 64 x 64 x 128 = 524,288; (18,432 + 524,288) x 4 = 2,170,880 B per layer;
  //   23 layers = 49,930,240.
  // total 100,261,888.
  KvCacheEstimate kv = corpus_kv("nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 8192);
  EXPECT_EQ(kv.total_bytes, 100261888u);
}

TEST(KvLayout, HybridStateDoesNotGrowWithContext) {
  // Nemotron-H at 16384: attention doubles to 100,663,296; state stays 49,930,240.
  EXPECT_EQ(corpus_kv("nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 16384).total_bytes,
            150593536u);
}

TEST(KvLayout, PureSsmMamba) {
  // mamba-2.8b: d_inner 5120, state 16, conv 4: conv 3 x 5120 = 15,360;
  // ssm 5120 x 16 = 81,920; (15,360 + 81,920) x 4 = 389,120 B per layer;
  // 64 layers = 24,903,680 per sequence, whatever the context.
  EXPECT_EQ(corpus_kv("mamba/mamba-2.8b-hf-finetune", 8192).total_bytes, 24903680u);
  EXPECT_EQ(corpus_kv("mamba/mamba-2.8b-hf-finetune", 131072).total_bytes, 24903680u);
  // batch 3: 74,711,040.
  EXPECT_EQ(corpus_kv("mamba/mamba-2.8b-hf-finetune", 8192, 3).total_bytes, 74711040u);
  EXPECT_EQ(corpus_kv("mamba/mamba-2.8b-hf-finetune", 8192).unbounded_fp16_bytes_per_token, 0u);
  EXPECT_EQ(corpus_spec("mamba/mamba-2.8b-hf-finetune").layout, "ssm");
}

TEST(KvLayout, PureSsmMamba2) {
  // Codestral: heads 128 x head_dim 64 = 8192, groups 8, state 128, conv 4:
  // conv 3 x (8192 + 2 x 8 x 128) = 3 x 10,240 = 30,720; ssm 128 x 64 x 128
  // = 1,048,576; (30,720 + 1,048,576) x 4 = 4,317,184 B per layer; x 64 = 276,299,776.
  EXPECT_EQ(corpus_kv("mamba2/Mamba-Codestral-7B-hfconv", 8192).total_bytes, 276299776u);
}

TEST(KvLayout, PureSsmRwkv5) {
  // hidden 2560, head_size 64: shift 2 x 2560 = 5120 + wkv 2560 x 64 = 163,840;
  // 168,960 x 4 = 675,840 B per layer; 32 layers = 21,626,880.
  EXPECT_EQ(corpus_kv("rwkv/rwkv-5-world-3b", 8192).total_bytes, 21626880u);
}

}  // namespace
}  // namespace memfit
