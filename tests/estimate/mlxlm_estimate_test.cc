// estimate_mlxlm(): mlx-lm's cache and transient rules (docs/engine-mlxlm.md)
// worked by hand on real corpus configs. Weights are a round 1000 bytes so
// every total is the sum of the terms checked above it.
#include <gtest/gtest.h>

#include "memfit/mlxlm.h"
#include "support/corpus.h"

namespace memfit {
namespace {

const MemoryBudget kBudget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

Model corpus_model(const std::string& config) {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec(config);
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

MlxLmEstimate run(const std::string& config, MlxLmSettings s) {
  Result<MlxLmEstimate> e = estimate_mlxlm(corpus_model(config), s, kBudget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : MlxLmEstimate{};
}

MlxLmSettings workload(uint64_t prompt, uint64_t generated, uint64_t step = 2048) {
  MlxLmSettings s;
  s.prompt_tokens = prompt;
  s.max_tokens = generated;
  s.prefill_step_size = step;
  return s;
}

TEST(MlxLmKvCapacity, GrowsInStepsOf256AndTrimsAnUnalignedOffset) {
  EXPECT_EQ(mlxlm_kv_capacity(2048, 2048, 128), 2304u);  // 2048, then + 256 for 2176
  // 62 chunks of 512 (31,744), 444 more (+512 = 32,256), 892 decoded:
  // 33,080 tokens -> + 4 x 256 = 33,280.
  EXPECT_EQ(mlxlm_kv_capacity(32188, 512, 892), 33280u);
  // 300 -> 512 slots; 300 more overflows at offset 300 (not aligned):
  // trimmed to 300, + 512 = 812; the last 100 fit.
  EXPECT_EQ(mlxlm_kv_capacity(700, 300, 0), 812u);
}

TEST(MlxLmEstimate, DenseGqaLlama32_3B) {
  // 28 layers x 2 x 8 KV heads x 128 x 2 B = 4,096 B per token and layer.
  MlxLmEstimate e = run("llama3/Llama-3.2-3B-Instruct", workload(2048, 128));
  EXPECT_EQ(e.full_chunks, 0u);
  EXPECT_EQ(e.last_chunk_tokens, 2048u);
  EXPECT_EQ(e.last_chunk.kv_bytes, 28ull * 2048 * 4096);            // 234,881,024
  EXPECT_TRUE(e.fused_attention);                                    // head dim 128
  EXPECT_EQ(e.last_chunk.attention_bytes, 24ull * 2048 * 128 * 4);   // the fp32 output
  EXPECT_EQ(e.last_chunk.mlp_bytes, 2048ull * 8192 * 2 * 3);         // 100,663,296
  EXPECT_EQ(e.last_chunk.logits_bytes, 2048ull * 128256 * 2);        // 525,336,576
  EXPECT_EQ(e.last_chunk.regrow_bytes, 0u);
  // The run-ahead replay (MiB = 2^20 bytes; an activation of width 3072 at
  // 2048 tokens is 6 Mi elements, 12 MiB). With 1000 bytes of weights the
  // buffers commit on activation elements (> 50 Mi): a layer takes two.
  // One runs from the k projection to the residual add: k 4 + v 4 + RoPE
  // 12 + 4 + SDPA 24 (fp32) + merge 12 + o_proj 12 = 72 MiB, its distinct
  // inputs n1 6 + q 6 + k 2 + caches 2 + 2 + updates 2 + 2 + rq 6 + attn 6
  // + merged 6 + residual 6 + out 6 = 52 Mi. The other runs from RMSNorm
  // to the next layer's q: 12 + gate 32 + up 32 + down 12 + norm 12 + q 12
  // = 112 MiB. At the LM head the open buffer holds the last MLP (88 MiB),
  // the final norm (12 MiB) and the logits (525,336,576); ten buffers are
  // in flight: 5 x 72 + 5 x 112 MiB = 964,689,920.
  EXPECT_EQ(e.last_chunk.transient_bytes, 104857600ull + 525336576ull + 964689920ull);
  EXPECT_EQ(e.last_chunk.total_bytes, 1000 + 234881024ull + 1594884096ull);
  // Decode to 2176 tokens: 2304 slots; the old 2048-slot buffer of one layer.
  EXPECT_EQ(e.decode.kv_bytes, 28ull * 2304 * 4096);
  EXPECT_EQ(e.decode.regrow_bytes, 2048ull * 4096);
  EXPECT_EQ(e.decode.logits_bytes, 128256ull * 2);
  EXPECT_EQ(e.peak_phase, MlxLmPhase::kLastChunk);
  EXPECT_EQ(e.total_bytes, 1829766120u);
  EXPECT_EQ(e.kv_capacity_tokens, 2304u);
  EXPECT_EQ(e.wired_limit_mb, 1746u);  // ceil(1,829,766,120 / 2^20)
}

TEST(MlxLmEstimate, QuantizedKvCachePacksWordsWithScalesAndBiases) {
  // 4 bits, group 64: 2,048 elements -> 1,024 B packed + 32 groups x 2 x 2 B
  // = 1,152 B per token and layer.
  MlxLmSettings s = workload(2048, 128);
  s.kv_bits = 4;
  MlxLmEstimate e = run("llama3/Llama-3.2-3B-Instruct", s);
  EXPECT_EQ(e.decode.kv_bytes, 28ull * 2304 * 1152);
  s.kv_group_size = 32;  // 64 groups: 1,024 + 256 = 1,280 B
  EXPECT_EQ(run("llama3/Llama-3.2-3B-Instruct", s).decode.kv_bytes, 28ull * 2304 * 1280);
}

TEST(MlxLmEstimate, MaxKvSizeRotatesEveryLayerOfAModelWithoutItsOwnCaches) {
  // --max-kv-size 1024, chunks of 512: 512, then 511 + 512 = 1023 kept +
  // ... : 512 -> 1024 -> 1535 -> 1535 (the last 1023 + 512); decode trims
  // to 1024.
  MlxLmSettings s = workload(2048, 128, 512);
  s.max_kv_size = 1024;
  MlxLmEstimate e = run("llama3/Llama-3.2-3B-Instruct", s);
  EXPECT_EQ(e.rotating_layers, 28u);
  EXPECT_EQ(e.full_chunks, 3u);
  EXPECT_EQ(e.last_chunk.kv_bytes, 28ull * 1535 * 4096);
  EXPECT_EQ(e.decode.kv_bytes, 28ull * 1024 * 4096);
  EXPECT_EQ(e.decode.regrow_bytes, 1535ull * 4096);
  EXPECT_FALSE(e.max_kv_size_ignored);
  EXPECT_EQ(e.kv_capacity_tokens, 0u);  // no unbounded layer
}

TEST(MlxLmEstimate, SlidingWindowGemma3RotatesItsWindowLayers) {
  // gemma-3-1b: 26 layers, 1 KV head x 256: 1,024 B per token and layer;
  // one layer in 6 global (4), 22 on RotatingKVCache(512).
  MlxLmEstimate e = run("gemma3/gemma-3-1b-it", workload(2048, 128));
  EXPECT_EQ(e.rotating_layers, 22u);
  // One chunk of 2048: every cache holds it whole (a rotating cache keeps
  // its window - 1 plus the chunk).
  EXPECT_EQ(e.last_chunk.kv_bytes, 26ull * 2048 * 1024);  // 54,525,952
  // Head dim 256 has no fused prompt kernel: output + 4 x 2048 x 2048 x 2.
  EXPECT_FALSE(e.fused_attention);
  EXPECT_EQ(e.last_chunk.attention_bytes, 4ull * 2048 * 256 * 4 + 4ull * 2048 * 2048 * 2);
  EXPECT_EQ(e.last_chunk.mlp_bytes, 2048ull * 6912 * 2 * 3);
  EXPECT_EQ(e.last_chunk.logits_bytes, 2048ull * 262144 * 2);  // 1 GiB
  // Decode: the global layers grow to 2304 slots, the rotating ones are
  // trimmed to 512; the old 2048-slot buffer is the regrow.
  EXPECT_EQ(e.decode.kv_bytes, 4ull * 2304 * 1024 + 22ull * 512 * 1024);  // 20,971,520
  EXPECT_EQ(e.decode.regrow_bytes, 2048ull * 1024);
  // The replay: the logits (1 GiB) and the buffers in flight before them.
  EXPECT_EQ(e.last_chunk.transient_bytes, 2069890024u - 1000 - 54525952u);
  EXPECT_EQ(e.total_bytes, 2069890024u);
  // A model with its own make_cache ignores --max-kv-size.
  MlxLmSettings s = workload(2048, 128);
  s.max_kv_size = 4096;
  MlxLmEstimate ignored = run("gemma3/gemma-3-1b-it", s);
  EXPECT_TRUE(ignored.max_kv_size_ignored);
  EXPECT_EQ(ignored.total_bytes, e.total_bytes);
}

TEST(MlxLmEstimate, HybridQwen35MoeHasRecurrentStateAndTwoChunks) {
  // Qwen3.5-35B-A3B: 40 layers, one in 4 full attention (10) with 2 KV
  // heads x 256 (2,048 B per token and layer); 30 gated delta-net layers of
  // conv 3 x 8,192 x 4 B + 32 x 128 x 128 x 4 B = 2,195,456 B; 8 of 256
  // experts of 512, hidden 2048, vocabulary 248,320. Batch 2.
  MlxLmSettings s = workload(4096, 128);
  s.batch = 2;
  MlxLmEstimate e = run("qwen3_5/Qwen3.5-35B-A3B", s);
  EXPECT_EQ(e.recurrent_layers, 30u);
  EXPECT_EQ(e.recurrent_bytes, 2ull * 30 * 2195456);  // 131,727,360
  EXPECT_EQ(e.full_chunks, 1u);
  EXPECT_EQ(e.last_chunk_tokens, 2048u);
  // The first chunk: 2048 slots; unfused (head dim 256) over 2048 keys.
  EXPECT_EQ(e.prefill_chunk.kv_bytes, 2ull * 10 * 2048 * 2048);
  EXPECT_EQ(e.prefill_chunk.attention_bytes,
            2 * (16ull * 2048 * 256 * 4 + 16ull * 2048 * 2048 * 2));
  EXPECT_EQ(e.prefill_chunk.mlp_bytes, 2 * (2048ull * 8 * 512 * 2 * 3 + 2048ull * 8 * 2048 * 2));
  // The last chunk: 4096 slots, 4096 keys, the logits, and one layer's
  // old 2048-slot buffer.
  EXPECT_EQ(e.last_chunk.kv_bytes, 2ull * 10 * 4096 * 2048);
  EXPECT_EQ(e.last_chunk.attention_bytes, 2 * (16ull * 2048 * 256 * 4 + 16ull * 2048 * 4096 * 2));
  EXPECT_EQ(e.last_chunk.logits_bytes, 2ull * 2048 * 248320 * 2);  // 2,034,237,440
  EXPECT_EQ(e.last_chunk.regrow_bytes, 2ull * 2048 * 2048);
  EXPECT_EQ(e.peak_phase, MlxLmPhase::kLastChunk);
  // The replay: the logits, the old buffers and what is in flight with them.
  EXPECT_GT(e.last_chunk.transient_bytes, 2034237440ull + 8388608ull);
  EXPECT_EQ(e.total_bytes, 1000 + 167772160ull + 131727360ull + 3372679168ull);
  // Decode: 4224 tokens -> 4352 slots.
  EXPECT_EQ(e.decode.kv_bytes, 2ull * 10 * 4352 * 2048);
  EXPECT_EQ(e.decode.attention_bytes, 2ull * 16 * 256 * 4);  // the fused vector kernel
}

TEST(MlxLmEstimate, MlaDeepSeekV3CachesTheLatent) {
  // DeepSeek-V3: 61 layers of 512 latent + 64 rope = 576 elements, 1,152 B
  // per token and layer; 128 heads; 8 of 256 experts of 2048 (the 3 dense
  // layers' 18,432 are narrower per token), hidden 7168.
  MlxLmEstimate e = run("deepseek_v3/DeepSeek-V3", workload(512, 128));
  EXPECT_EQ(e.last_chunk.kv_bytes, 61ull * 512 * 1152);  // 35,979,264
  // Rope scores 128 x 512 x 512 x 2, and K and V expanded: 128 x 512 x 128 x 2 x 2.
  EXPECT_FALSE(e.fused_attention);
  EXPECT_EQ(e.last_chunk.attention_bytes, 128ull * 512 * 512 * 2 + 128ull * 512 * 128 * 2 * 2);
  EXPECT_EQ(e.last_chunk.mlp_bytes, 512ull * 8 * 2048 * 2 * 3 + 512ull * 8 * 7168 * 2);
  EXPECT_EQ(e.last_chunk.logits_bytes, 512ull * 129280 * 2);  // 132,382,720
  EXPECT_GT(e.last_chunk.transient_bytes, 132382720ull);  // the logits and more in flight
  EXPECT_EQ(e.total_bytes, 1602782184u);
  EXPECT_EQ(e.decode.kv_bytes, 61ull * 768 * 1152);
}

TEST(MlxLmEstimate, UsageErrorsNameTheirField) {
  auto error_of = [](MlxLmSettings s) {
    Result<MlxLmEstimate> e = estimate_mlxlm(corpus_model("llama3/Llama-3.2-3B-Instruct"), s, kBudget);
    return e.ok() ? std::string("ok") : e.error().message();
  };
  MlxLmSettings s;
  s.prompt_tokens = 0;
  EXPECT_EQ(error_of(s), "prompt_tokens: must be between 1 and 67108864");
  s = MlxLmSettings{};
  s.kv_bits = 4;
  s.kv_group_size = 48;
  EXPECT_EQ(error_of(s), "kv_group_size: must be 32, 64 or 128");
  s = MlxLmSettings{};
  s.prompt_tokens = 1u << 20;
  s.prefill_step_size = 1;
  EXPECT_EQ(error_of(s), "prefill_step_size: the prompt would take more than 65536 chunks");
  s = MlxLmSettings{};
  s.buffers.max_active = 0;
  EXPECT_EQ(error_of(s), "buffers: MLX's command-buffer limits must be 1..100000 ops, "
                         "1..1000000 mega-elements and 1..64 buffers in flight");
}

}  // namespace
}  // namespace memfit
