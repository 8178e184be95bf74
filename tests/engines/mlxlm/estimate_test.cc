// estimate_mlxlm(): mlx-lm's cache and transient rules (docs/engine-mlxlm.md)
// worked by hand on real corpus configs. Weights are a round 1000 bytes so
// every total is the sum of the terms checked above it.
#include <gtest/gtest.h>

#include "engines/mlxlm/kv_cache.h"
#include "memfit/mlxlm.h"
#include "support/corpus.h"

namespace memfit {
namespace {

const MemoryBudget kBudget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

Model corpus_model(const std::string& config) {
  return testing::corpus_model(config, 1000, WeightsSource::kSafetensorsHeader);
}

MlxLmEstimate run(const std::string& config, MlxLmSettings s) {
  Result<MlxLmEstimate> e = estimate_mlxlm(corpus_model(config), s, kBudget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : MlxLmEstimate{};
}

// The passes below are worked by hand under mlx-lm's rule before #406
// (0.17.0 to 0.26.x: the LM head over the whole last chunk); the current
// release's one row of logits is releases_test.cc's.
MlxLmSettings workload(uint64_t prompt, uint64_t generated, uint64_t step = 2048) {
  MlxLmSettings s;
  s.mlx_lm_release = MlxRelease{0, 26, 4};
  s.prompt_tokens = prompt;
  s.max_tokens = generated;
  s.prefill_step_size = step;
  return s;
}

// One command buffer that never commits (more ops and input elements than
// a pass has; one buffer in flight): the replay's transient is then the
// sum of every op's output in the pass, which can be worked by hand from
// the op list (mlxlm/forward.h). It checks each op's tensor size; the
// figure under MLX's real limits stays pinned in the tests above it.
MlxLmSettings never_commits(MlxLmSettings s) {
  s.buffers = MlxBufferLimits{100000, 1000000, true, 1};
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
  // buffers commit on the elements bound to them, outputs included (Metal;
  // > 50 Mi): a layer takes two. One runs from the q projection to the
  // residual add: q 12 + k 4 + v 4 + RoPE 12 + 4 + SDPA 24 (fp32) + merge
  // 12 + o_proj 12 = 84 MiB, and the RMSNorm output (12 MiB) its q, k and v
  // take from the buffer before, held until this one completes: 96 MiB; its
  // arrays n1 6 + q 6 + k 2 + v 2 + rq 6 + rk 2 + caches 2 + 2 + attn 6 +
  // merged 6 + out 6 + residual 6 = 52 Mi. The other runs from RMSNorm to
  // the next layer's RMSNorm: 12 + gate 32 + up 32 + down 12 + norm 12 =
  // 100 MiB, less that norm's 12 once the next buffer takes it: 88 MiB. The
  // LM head's output (256.5 Mi elements) commits alone with the final
  // norm's 12 MiB it takes, over ten buffers in flight:
  // 12 MiB + 525,336,576 + 5 x 96 + 5 x 88 MiB (964,689,920).
  EXPECT_EQ(e.last_chunk.transient_bytes, 12582912ull + 525336576ull + 964689920ull);
  EXPECT_EQ(e.last_chunk.total_bytes, 1000 + 234881024ull + 1502609408ull);
  // Decode to 2176 tokens: 2304 slots; the old 2048-slot buffer of one layer.
  EXPECT_EQ(e.decode.kv_bytes, 28ull * 2304 * 4096);
  EXPECT_EQ(e.decode.regrow_bytes, 2048ull * 4096);
  EXPECT_EQ(e.decode.logits_bytes, 128256ull * 2);
  EXPECT_EQ(e.peak_phase, MlxLmPhase::kLastChunk);
  EXPECT_EQ(e.total_bytes, 1737491432u);
  EXPECT_EQ(e.kv_capacity_tokens, 2304u);
  EXPECT_EQ(e.wired_limit_mb, 1658u);  // ceil(1,737,491,432 / 2^20)
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

TEST(MlxLmEstimate, QuantizedKvCacheAttendsWithoutTheFusedKernel) {
  // mlx-lm sends a quantized cache to quantized_scaled_dot_product_attention
  // (mlx_lm/models/base.py): the scores are a materialized matrix even where
  // the fused kernel takes head dim 128. Llama 3.2 3B, 24 query heads, one
  // chunk of 2,048 over 2,048 keys: the output 24 x 2,048 x 128 x 4 =
  // 25,165,824 + the scores 24 x 2,048 x 2,048 x 2 = 201,326,592.
  MlxLmSettings s = workload(2048, 128);
  s.kv_bits = 4;
  MlxLmEstimate e = run("llama3/Llama-3.2-3B-Instruct", s);
  EXPECT_FALSE(e.fused_attention);
  EXPECT_EQ(e.last_chunk.attention_bytes, 226492416u);
  // Decode: one query over 2,048 + 128 = 2,176 keys: 24 x 128 x 4 = 12,288
  // + 24 x 2,176 x 2 = 104,448 (a 16-bit cache: the fused vector kernel's
  // output alone, 12,288).
  EXPECT_EQ(e.decode.attention_bytes, 116736u);
  EXPECT_EQ(run("llama3/Llama-3.2-3B-Instruct", workload(2048, 128)).decode.attention_bytes, 12288u);
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
  // The replay: the logits (1 GiB) and the buffers in flight before them
  // (pinned; outputs counted and held by their last consumer's buffer).
  EXPECT_EQ(e.last_chunk.transient_bytes, 1860174824u - 1000 - 54525952u);
  EXPECT_EQ(e.total_bytes, 1860174824u);
  // A model with its own make_cache ignores --max-kv-size.
  MlxLmSettings s = workload(2048, 128);
  s.max_kv_size = 4096;
  MlxLmEstimate ignored = run("gemma3/gemma-3-1b-it", s);
  EXPECT_TRUE(ignored.max_kv_size_ignored);
  EXPECT_EQ(ignored.total_bytes, e.total_bytes);
}

TEST(MlxLmEstimate, SlidingWindowGemma3TwoChunksWorkedByHand) {
  // gemma-3-1b-it: 26 layers, hidden 1,152, 4 heads x 256 (q width 1,024),
  // 1 KV head x 256 (k/v width 256), MLP 6,912, vocabulary 262,144. K + V
  // per token and layer: 2 x 1 x 256 x 2 B = 1,024 B. sliding_window_pattern
  // 6: layers 5, 11, 17, 23 global (KVCache), the other 22 on
  // RotatingKVCache(max_size 512). P = 4,096 in chunks of 2,048, G = 128.
  const MlxLmSettings s = workload(4096, 128);
  MlxLmEstimate e = run("gemma3/gemma-3-1b-it", s);
  EXPECT_EQ(e.kv_layers, 26u);
  EXPECT_EQ(e.rotating_layers, 22u);
  EXPECT_EQ(e.recurrent_bytes, 0u);
  EXPECT_EQ(e.full_chunks, 1u);          // (4,096 - 1) / 2,048
  EXPECT_EQ(e.last_chunk_tokens, 2048u);  // 4,096 - 2,048
  // The first chunk: every cache is empty and takes the 2,048 tokens whole
  // (KVCache: 8 steps of 256; a rotating cache concatenates the chunk).
  EXPECT_EQ(e.prefill_chunk.kv_bytes, 26ull * 2048 * 1024);  // 54,525,952
  EXPECT_EQ(e.prefill_chunk.regrow_bytes, 0u);               // nothing to regrow from
  // Head dim 256 has no fused prompt kernel: the fp32 output 4 x 2,048 x
  // 256 x 4 = 8,388,608 plus the scores 4 x 2,048 x 2,048 keys x 2 B =
  // 33,554,432.
  EXPECT_EQ(e.prefill_chunk.attention_bytes, 8388608u + 33554432u);
  EXPECT_EQ(e.prefill_chunk.mlp_bytes, 2048ull * 6912 * 2 * 3);  // 84,934,656
  EXPECT_EQ(e.prefill_chunk.logits_bytes, 0u);  // no LM head before the last chunk
  // The last chunk: a global cache at offset 2,048 (a multiple of 256, no
  // trim) concatenates 8 x 256 more: 4,096 slots. A rotating cache keeps
  // its last 512 - 1 = 511 tokens and appends the chunk: 2,559.
  // 4 x 4,096 x 1,024 + 22 x 2,559 x 1,024 = 16,777,216 + 57,649,152.
  EXPECT_EQ(e.last_chunk.kv_bytes, 74426368u);
  // Every layer replaced a 2,048-slot buffer: 2,048 x 1,024 B.
  EXPECT_EQ(e.last_chunk.regrow_bytes, 2097152u);
  // Keys: the global layers see all 4,096: 8,388,608 + 4 x 2,048 x 4,096 x 2.
  EXPECT_EQ(e.last_chunk.attention_bytes, 8388608u + 67108864u);
  EXPECT_EQ(e.last_chunk.logits_bytes, 2048ull * 262144 * 2);  // 1,073,741,824
  // Decode to 4,224 tokens: a global cache grows by 256 from 4,096 to
  // 4,352; a rotating one is trimmed to its 512 on the first step.
  // 4 x 4,352 x 1,024 + 22 x 512 x 1,024 = 17,825,792 + 11,534,336.
  EXPECT_EQ(e.decode.kv_bytes, 29360128u);
  // The largest old buffer: a global layer's 4,096 slots (a rotating
  // layer's 2,559 x 1,024 = 2,620,416 is smaller).
  EXPECT_EQ(e.decode.regrow_bytes, 4096ull * 1024);
  // One query, 4 heads over 1 KV head (4 <= 32), head dim 256: the fused
  // vector kernel, its fp32 output 4 x 256 x 4.
  EXPECT_EQ(e.decode.attention_bytes, 4096u);
  EXPECT_EQ(e.decode.mlp_bytes, 6912ull * 2 * 3);  // 41,472
  EXPECT_EQ(e.decode.logits_bytes, 262144ull * 2);  // 524,288
  EXPECT_EQ(e.kv_capacity_tokens, 4352u);

  // The replay's inputs, by hand. With a buffer that never commits, the
  // transient is the sum of every op's output. Per layer, t tokens: RMSNorm
  // h, q qd, k kvd, v kvd, RoPE qd + kvd, merge qd, o_proj h, RMSNorm h,
  // gate I, up I, down h (the adds, mask, softmax and SwiGLU in place):
  // 2 B x t x (4h + 3qd + 3kvd + 2I) = 2 x t x (4,608 + 3,072 + 768 +
  // 13,824 = 22,272); plus the cache writes' old buffer, the scores and
  // the attention output.
  // Last chunk, t = 2,048: 91,226,112 + old 2,097,152 + scores 67,108,864
  // + output 8,388,608 = 168,820,736 a layer, x 26 = 4,389,339,136; then
  // the final RMSNorm 2,048 x 1,152 x 2 = 4,718,592 and the logits
  // 1,073,741,824: 5,467,799,552.
  MlxLmEstimate sum = run("gemma3/gemma-3-1b-it", never_commits(s));
  EXPECT_EQ(sum.last_chunk.transient_bytes, 5467799552u);
  // First chunk: 91,226,112 + scores 33,554,432 + output 8,388,608 (no old
  // buffer) = 133,169,152 x 26; no LM head.
  EXPECT_EQ(sum.prefill_chunk.transient_bytes, 26ull * 133169152);  // 3,462,397,952
  // Decode, t = 1: 2 x 22,272 + the fused output 4,096 = 48,640 a layer,
  // x 26 = 1,264,640; the old buffers 4 x 4,194,304 + 22 x 2,620,416 =
  // 74,426,368; the final norm 2,304 and the logits 524,288.
  EXPECT_EQ(sum.decode.transient_bytes, 1264640u + 74426368u + 2304u + 524288u);  // 76,217,600
  // Under MLX's Max/Ultra limits (50 ops, 50 Mi input elements, 10 buffers
  // in flight) the last chunk's transient is what the buffers in flight
  // hold at the LM head: the logits and less than the whole pass. Pinned:
  // the replay, not worked by hand (Metal counts each op's output, and an
  // output stays until its last consumer's buffer completes).
  EXPECT_GT(e.last_chunk.transient_bytes, 1073741824u);
  EXPECT_LT(e.last_chunk.transient_bytes, sum.last_chunk.transient_bytes);
  EXPECT_EQ(e.last_chunk.transient_bytes, 1988624384u);
  EXPECT_EQ(e.peak_phase, MlxLmPhase::kLastChunk);
  // Weights 1,000 + KV 74,426,368 + the transient.
  EXPECT_EQ(e.total_bytes, 1000u + 74426368u + e.last_chunk.transient_bytes);
}

// Qwen3.5-35B-A3B: 40 layers, one in 4 full attention (10) with 2 KV
// heads x 256 (2 x 2 x 256 x 2 B = 2,048 B per token and layer); 30 gated
// delta-net layers, each an ArraysCache of the conv state (kernel 4 - 1 =
// 3) x conv channels (2 x 16 key heads x 128 + 32 value heads x 128 =
// 8,192) at 4 B (the upper bound; mlx-lm keeps it at 2) = 98,304 and the
// SSM state 32 value heads x 128 x 128 x 4 B = 2,097,152: 2,195,456 B;
// 8 of 256 experts of 512 and a shared expert of 512, hidden 2048, 16
// query heads x 256, vocabulary 248,320. 4096 + 128 tokens, batch 2.
MlxLmSettings qwen35_workload() {
  MlxLmSettings s = workload(4096, 128);
  s.batch = 2;
  return s;
}

TEST(MlxLmEstimate, HybridQwen35MoeHasRecurrentStateAndTwoChunks) {
  const MlxLmSettings s = qwen35_workload();
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
  // Pinned: the replay under MLX's Max/Ultra limits, outputs counted and
  // held by their last consumer's buffer (its inputs are worked by hand
  // below).
  EXPECT_EQ(e.last_chunk.transient_bytes, 3242655744ull);
  EXPECT_EQ(e.total_bytes, 1000 + 167772160ull + 131727360ull + 3242655744ull);
  // Decode: 4224 tokens -> 4352 slots (4,096 + 1 x 256); the old buffer is
  // a full layer's 4,096 slots x 2,048 B x 2 sequences.
  EXPECT_EQ(e.decode.kv_bytes, 2ull * 10 * 4352 * 2048);
  EXPECT_EQ(e.decode.regrow_bytes, 2ull * 4096 * 2048);               // 16,777,216
  EXPECT_EQ(e.decode.attention_bytes, 2ull * 16 * 256 * 4);  // the fused vector kernel (8 q per KV head)
  EXPECT_EQ(e.decode.mlp_bytes, 2 * (8ull * 512 * 2 * 3 + 8ull * 2048 * 2));  // 114,688
  EXPECT_EQ(e.decode.logits_bytes, 2ull * 248320 * 2);                 // 993,280
  EXPECT_EQ(e.kv_capacity_tokens, 4352u);
}

TEST(MlxLmEstimate, HybridQwen35MoeReplayWorkedByHand) {
  // The replay's inputs, by hand: one buffer that never commits sums every
  // op's output. Per token (t = chunk x batch), in bytes: the norm h 2 x
  // 2,048, q 2 x 4,096, k and v 2 x 512 each: 14,336. A full-attention
  // layer adds RoPE on q and k (8,192 + 1,024), the merge 8,192, o_proj
  // 4,096 and the second norm 4,096: 25,600, plus the cache writes' old
  // buffer, the scores and the output. A delta-net layer adds the mixer
  // output 8,192, the merge 8,192, o_proj 4,096 and the norm 4,096: 24,576.
  // SwitchGLU (8 rows a token, sorted at 64 or more rows): router and
  // softmax 2 x 2 x 256, argpartition 4 x 256 (uint32): 2,048; top-k 8 x
  // (2 + 4) = 48; the sort 8 x 8 = 64 and the sorted copy 8 x 2,048 x 2 =
  // 32,768; gate and up 2 x 8 x 512 x 2 = 16,384; down 32,768; the unsort
  // 32,768; the sum over k 4,096; the shared expert's gate and up 2 x 512
  // x 2 and down 4,096 = 6,144: 127,088. So a delta-net layer is 166,000 t
  // and a full one 167,024 t plus its attention terms.
  MlxLmEstimate sum = run("qwen3_5/Qwen3.5-35B-A3B", never_commits(qwen35_workload()));
  // Last chunk, t = 4,096: 30 x 166,000 x 4,096 = 20,398,080,000; 10 x
  // (167,024 x 4,096 = 684,130,304 + old 8,388,608 + scores 536,870,912 +
  // output 67,108,864) = 12,964,986,880; the final norm 4,096 x 2,048 x 2
  // = 16,777,216; the logits 2,034,237,440.
  EXPECT_EQ(sum.last_chunk.transient_bytes, 35414081536ull);
  // First chunk: no old buffer, scores over 2,048 keys (268,435,456):
  // 20,398,080,000 + 10 x (684,130,304 + 268,435,456 + 67,108,864); no LM
  // head.
  EXPECT_EQ(sum.prefill_chunk.transient_bytes, 30594826240ull);
  // Decode, t = 2: 16 routed rows, under 64, are not sorted (no sort, copy
  // or unsort: 61,488 a token for the MoE). Delta-net 30 x 100,400 x 2 =
  // 6,024,000; full 10 x (101,424 x 2 + the fused output 32,768 + the old
  // buffer 16,777,216) = 170,128,320; the norm 8,192; the logits 993,280:
  // 177,153,792. And the split-K scratch (split_k.h): the workload's mlx-lm
  // 0.26.4 installs with MLX 0.29.2, whose steel GEMM splits every 16-bit
  // product of 2 rows (2/16 = 0 tiles) with K/16 >= 8, in 16 partitions
  // from K/16 = 64 (8 below), float32: per layer q 16 x 2 x 4,096 x 4 =
  // 524,288, k and v 65,536 each, o 262,144, the router 32,768, the shared
  // expert's gate and up 65,536 each and down (K 512: 8) 131,072:
  // 1,212,416, x 40 = 48,496,640; the LM head 16 x 2 x 248,320 x 4 =
  // 31,784,960. 177,153,792 + 80,281,600.
  EXPECT_EQ(sum.decode.transient_bytes, 257435392u);
}

TEST(MlxLmEstimate, HybridQwen35MoeQuantizedCache) {
  // --kv-bits 4: 1,024 elements a token and layer pack to 512 B, plus 16
  // groups of 64 x (scale + bias) x 2 B = 64: 576 B; the same 4,352 slots
  // at the end. The recurrent state is not quantized.
  MlxLmSettings q = qwen35_workload();
  q.kv_bits = 4;
  MlxLmEstimate quant = run("qwen3_5/Qwen3.5-35B-A3B", q);
  EXPECT_EQ(quant.decode.kv_bytes, 2ull * 10 * 4352 * 576);
  EXPECT_EQ(quant.recurrent_bytes, 131727360u);
}

TEST(MlxLmEstimate, MlaDeepSeekV3CachesTheLatent) {
  // DeepSeek-V3: 61 layers; mlx-lm's deepseek_v3 caches the normed latent
  // (kv_lora_rank 512) as keys and the roped k_pe (qk_rope_head_dim 64) as
  // values of one KVCache: 576 elements x 2 B = 1,152 B per token and
  // layer; 128 heads; 8 of 256 experts of 2048 (the 3 dense layers'
  // 18,432 are narrower per token), hidden 7168. P = 512: one chunk.
  MlxLmEstimate e = run("deepseek_v3/DeepSeek-V3", workload(512, 128));
  EXPECT_EQ(e.last_chunk.kv_bytes, 61ull * 512 * 1152);  // 35,979,264
  // Rope scores 128 x 512 x 512 x 2 and their masked copy (mx.where), the
  // boolean mask 512 x 512, and K and V expanded: 128 x 512 x 128 x 2 x 2.
  EXPECT_FALSE(e.fused_attention);
  EXPECT_EQ(e.last_chunk.attention_bytes,
            2 * 128ull * 512 * 512 * 2 + 512ull * 512 + 128ull * 512 * 128 * 2 * 2);
  EXPECT_EQ(e.last_chunk.mlp_bytes, 512ull * 8 * 2048 * 2 * 3 + 512ull * 8 * 7168 * 2);
  EXPECT_EQ(e.last_chunk.logits_bytes, 512ull * 129280 * 2);  // 132,382,720
  EXPECT_GT(e.last_chunk.transient_bytes, 132382720ull);  // the logits and more in flight
  EXPECT_EQ(e.last_chunk.regrow_bytes, 0u);
  EXPECT_EQ(e.kv_layers, 61u);
  EXPECT_EQ(e.rotating_layers, 0u);
  EXPECT_EQ(e.recurrent_bytes, 0u);
  // Pinned: the replay under MLX's Max/Ultra limits (inputs by hand below):
  // 1,468,244,968 - 1,000 - 35,979,264. Each op's output counts toward its
  // buffer (Metal), so the rope scores (128 heads x 512 x 512) commit the
  // buffers sooner and fewer layers' attention is in flight at the peak
  // (1,836,285,952 before outputs were counted).
  EXPECT_EQ(e.last_chunk.transient_bytes, 1432264704u);
  EXPECT_EQ(e.total_bytes, 1468244968u);
  // Decode to 640 tokens: the latent KVCache grows by 256 from 512 to 768;
  // the old buffer is one layer's 512 x 1,152 B.
  EXPECT_EQ(e.decode.kv_bytes, 61ull * 768 * 1152);  // 53,968,896
  EXPECT_EQ(e.decode.regrow_bytes, 512ull * 1152);   // 589,824
  // One query over 640 keys: rope scores 128 x 640 x 2 = 163,840 and the
  // expansion 128 x 640 x 128 x 2 x 2 = 41,943,040 (memfit prices the
  // prompt's expansion here too; mlx-lm's one-token step attends in the
  // latent space, so this term is high at decode).
  EXPECT_EQ(e.decode.attention_bytes, 163840u + 41943040u);
  EXPECT_EQ(e.decode.mlp_bytes, 8ull * 2048 * 2 * 3 + 8ull * 7168 * 2);  // 212,992
  EXPECT_EQ(e.decode.logits_bytes, 129280ull * 2);
  EXPECT_EQ(e.kv_capacity_tokens, 768u);

  // The replay's inputs, by hand (one buffer that never commits). The op
  // list prices an MLA layer's projections at the config's 128 heads x
  // hidden / heads = 56 (q, k and v 7,168 wide; mlx-lm's q_a / q_b and
  // kv_a projections differ: modelled) and every layer's MLP as SwitchGLU
  // (the 3 dense layers too). Per token, in bytes: norm, q, k, v, RoPE q
  // and k, merge, o_proj and norm, 9 x 7,168 x 2 = 129,024; SwitchGLU:
  // router, softmax and argpartition 8 x 256 = 2,048, top-k 48, sort 64,
  // the sorted copy 8 x 7,168 x 2 = 114,688, gate and up 2 x 8 x 2,048 x 2
  // = 65,536, down 114,688, the unsort 114,688, the sum 14,336, the shared
  // expert 2 x 2,048 x 2 + 14,336 = 22,528: 448,624. A layer: 577,648 t
  // plus the MLA attention (and the cache writes' old buffer).
  MlxLmEstimate sum = run("deepseek_v3/DeepSeek-V3", never_commits(workload(512, 128)));
  // t = 512: 61 x (577,648 x 512 = 295,755,776 + 168,034,304) =
  // 28,291,194,880; the final norm 512 x 7,168 x 2 = 7,340,032; the
  // logits 132,382,720.
  EXPECT_EQ(sum.last_chunk.transient_bytes, 28430917632ull);
  // Decode, t = 1: 8 rows are not sorted (448,624 - 64 - 2 x 114,688 =
  // 219,184): 61 x (129,024 + 219,184 + 42,106,880 + the old 589,824) =
  // 2,625,739,632; the norm 14,336; the logits 258,560.
  EXPECT_EQ(sum.decode.transient_bytes, 2626012528ull);

  // Two chunks of 2,048: the latent cache 2,048 then 4,096 slots; the last
  // chunk regrows from a 2,048-slot buffer, and attends over 4,096 keys.
  MlxLmEstimate two = run("deepseek_v3/DeepSeek-V3", workload(4096, 128));
  EXPECT_EQ(two.full_chunks, 1u);
  EXPECT_EQ(two.prefill_chunk.kv_bytes, 61ull * 2048 * 1152);  // 143,917,056
  EXPECT_EQ(two.last_chunk.kv_bytes, 61ull * 4096 * 1152);     // 287,834,112
  EXPECT_EQ(two.last_chunk.regrow_bytes, 2048ull * 1152);      // 2,359,296
  // 2 x 128 x 2,048 x 2,048 x 2 + 2,048 x 2,048 + 128 x 2,048 x 128 x 2 x 2
  // = 2,285,895,680.
  EXPECT_EQ(two.prefill_chunk.attention_bytes, 2285895680u);
  // 2 x 128 x 2,048 x 4,096 x 2 + 2,048 x 4,096 + 128 x 4,096 x 128 x 2 x 2
  // = 4,571,791,360: the context doubled, the attention term doubled.
  EXPECT_EQ(two.last_chunk.attention_bytes, 4571791360u);
  EXPECT_EQ(two.last_chunk.logits_bytes, 2048ull * 129280 * 2);  // 529,530,880
  EXPECT_EQ(two.decode.kv_bytes, 61ull * 4352 * 1152);          // 4,224 -> 4,352 slots
  MlxLmEstimate two_sum = run("deepseek_v3/DeepSeek-V3", never_commits(workload(4096, 128)));
  // 61 x (577,648 x 2,048 + 2,285,895,680) = 211,604,045,824.
  EXPECT_EQ(two_sum.prefill_chunk.transient_bytes, 211604045824ull);
  // 61 x (577,648 x 2,048 + 4,571,791,360 + 2,359,296) + 2,048 x 7,168 x 2
  // + 529,530,880 = 351,746,490,368.
  EXPECT_EQ(two_sum.last_chunk.transient_bytes, 351746490368ull);
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

TEST(MlxLmEstimate, KvBitsRefusedWhereMlxLmCannotQuantizeTheCache) {
  auto error_of = [](const std::string& config, MlxLmSettings s) {
    Result<MlxLmEstimate> e = estimate_mlxlm(corpus_model(config), s, kBudget);
    return e.ok() ? std::string("ok") : e.error().message();
  };
  MlxLmSettings s = workload(2048, 128);
  s.kv_bits = 4;
  // Gemma 3's sliding-window layers are RotatingKVCaches: to_quantized
  // raises NotImplementedError in mlx-lm. (--max-kv-size is ignored there.)
  const std::string sliding =
      "kv_bits: mlx-lm cannot quantize a rotating cache (RotatingKVCache), which the model's "
      "sliding-window layers use";
  EXPECT_EQ(error_of("gemma3/gemma-3-1b-it", s), sliding);
  MlxLmSettings bounded = s;
  bounded.max_kv_size = 4096;
  EXPECT_EQ(error_of("gemma3/gemma-3-1b-it", bounded), sliding);
  // --max-kv-size puts every layer of a model without its own caches on one.
  bounded.max_kv_size = 1024;
  EXPECT_EQ(error_of("llama3/Llama-3.2-3B-Instruct", bounded),
            "kv_bits: mlx-lm cannot quantize a rotating cache (RotatingKVCache), which "
            "--max-kv-size puts every layer on");
  // A hybrid's own make_cache ignores --max-kv-size: its attention layers
  // stay KVCaches and quantize (the 2 x 10 layers x 4,352 slots x 576 B
  // of HybridQwen35MoeHasRecurrentStateAndTwoChunks at P 4096).
  MlxLmSettings hybrid = workload(4096, 128, 2048);
  hybrid.kv_bits = 4;
  hybrid.batch = 2;
  hybrid.max_kv_size = 1024;
  MlxLmEstimate priced = run("qwen3_5/Qwen3.5-35B-A3B", hybrid);
  EXPECT_TRUE(priced.max_kv_size_ignored);
  EXPECT_EQ(priced.decode.kv_bytes, 2ull * 10 * 4352 * 576);
  // MLA: deepseek_v3's attention reads the cache's rope key as an array;
  // QuantizedKVCache returns packed tuples. The reason, whatever the group
  // size (hidden / heads = 56 is no group's multiple).
  const std::string mla =
      "kv_bits: mlx-lm cannot quantize an MLA model's latent cache (its attention reads the "
      "cache as arrays, not packed words)";
  EXPECT_EQ(error_of("deepseek_v3/DeepSeek-V3", s), mla);
  s.kv_group_size = 32;
  EXPECT_EQ(error_of("deepseek_v3/DeepSeek-V3", s), mla);
  // Without --kv-bits every one of them is priced.
  for (const char* config : {"gemma3/gemma-3-1b-it", "deepseek_v3/DeepSeek-V3"}) {
    EXPECT_EQ(error_of(config, workload(2048, 128)), "ok") << config;
  }
}

}  // namespace
}  // namespace memfit
