// estimate_llamacpp(): the rules of docs/llamacpp-rules.md worked by hand.
// Rows marked "measured" reproduce log lines of the pinned library
// (@node-llama-cpp/linux-x64@3.21.1, llama.cpp v0.4.0, CPU) on the doc's
// synthetic models: 4 blocks, hidden 256, 8 heads, 2 KV heads of 32,
// n_ff 512, vocab 32000, training context 4096.
#include <gtest/gtest.h>

#include "memfit/llamacpp.h"
#include "support/corpus.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
const MemoryBudget kBudget{64ull << 30, 64ull << 30, BudgetSource::kExplicit};

Model model_of(ModelSpec spec) {
  Model m;
  m.has_config = true;
  m.spec = std::move(spec);
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

// The doc's synthetic llama: 4 full-attention layers of 2 x 2 x 32 elements.
ModelSpec synthetic(std::vector<LayerCache> layers) {
  ModelSpec s;
  s.geometry = {4, 256, 8, 2, 32, 512, 32000};
  s.max_position_tokens = 4096;
  s.layers = std::move(layers);
  return s;
}
ModelSpec synthetic_llama_estimate() { return synthetic(std::vector<LayerCache>(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0})); }
ModelSpec synthetic_gemma2() {
  LayerCache swa{LayerKind::kSlidingWindow, 128, 0, 128, 0};
  LayerCache full{LayerKind::kFullAttention, 128, 0, 0, 0};
  return synthetic({swa, full, swa, full});
}

LlamaCppEstimate run(const ModelSpec& spec, LlamaCppSettings s) {
  Result<LlamaCppEstimate> e = estimate_llamacpp(model_of(spec), s, kBudget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

std::string error_of(const ModelSpec& spec, LlamaCppSettings s) {
  Result<LlamaCppEstimate> e = estimate_llamacpp(model_of(spec), s, kBudget);
  return e.ok() ? "ok" : e.error().message();
}

TEST(LlamaCppEstimate, SyntheticLlamaMatchesTheMeasuredLogLines) {
  // Measured: n_ctx 1000 -> 1024 cells; KV 4 x 64 x 2 B x 1024 x 2 = 1.00 MiB;
  // output 4 x 32000 = 128,000 B (0.12 MiB).
  LlamaCppSettings s;
  s.ctx_size = 1000;
  s.flash_attn = FlashAttn::kOff;
  LlamaCppEstimate e = run(synthetic_llama_estimate(), s);
  EXPECT_EQ(e.context.n_ctx, 1024u);
  EXPECT_EQ(e.context.n_batch, 1000u);
  EXPECT_EQ(e.context.n_ubatch, 512u);
  EXPECT_EQ(e.kv_bytes, 1 * kMiB);
  EXPECT_EQ(e.kv_bytes_per_token, 1024u);  // the report's KV per token: 4 x 64 x 2 B x 2
  EXPECT_EQ(e.output_bytes, 128000u);

  // Measured: n_ctx 12288, 3 sequences -> 4096 cells x 3 streams = 12.00 MiB,
  // output 3 rows = 384,000 B (0.37 MiB).
  s.ctx_size = 12288;
  s.parallel = 3;
  e = run(synthetic_llama_estimate(), s);
  EXPECT_EQ(e.context.n_ctx_seq, 4096u);
  EXPECT_EQ(e.context.streams, 3u);
  EXPECT_EQ(e.kv_bytes, 12 * kMiB);
  EXPECT_EQ(e.kv_bytes_per_token, 1024u);  // one stream's token: 3 streams do not change it
  EXPECT_EQ(e.output_bytes, 384000u);

  // Measured: 4096 cells, q8_0 K and V, FA on: row(q8_0, 64) = 68 B;
  // 4 x 68 x 4096 x 2 = 2,228,224 B (2.12 MiB).
  LlamaCppSettings q;
  q.ctx_size = 4096;
  q.cache_type_k = q.cache_type_v = GgmlType::kQ8_0;
  q.flash_attn = FlashAttn::kOn;
  EXPECT_EQ(run(synthetic_llama_estimate(), q).kv_bytes, 2228224u);
  EXPECT_EQ(run(synthetic_llama_estimate(), q).kv_bytes_per_token, 544u);  // 4 x 68 x 2
}

TEST(LlamaCppEstimate, ComputeBufferModelAgainstTheCalibrationPoints) {
  // Output phase, FA on, 512 cells, U 512 (measured 63.50 MiB): tail
  // max(3 x 256, 256 + 2 x 8 x 32) = 768 floats a token; 4 x 512 x (32000 +
  // 768) = 67,108,864 = 64.00 MiB, 0.5 MiB over. (Attention: 4 x 512 x
  // (512 + 256 + 128 + 512) + f16 mask 2 x 512 x 512 = 3,407,872; FFN
  // 4 x 512 x (512 + 3 x 512) = 4,194,304: smaller.)
  LlamaCppSettings s;
  s.ctx_size = 512;
  EXPECT_EQ(run(synthetic_llama_estimate(), s).compute_bytes, 67108864u);
  // 4096 cells, q8_0 (measured 67.00 MiB): the same 64.00 MiB, 4.5% under:
  // in that layout the freed f16 mask (4 MiB) stayed below the logits.
  s.ctx_size = 4096;
  s.cache_type_k = s.cache_type_v = GgmlType::kQ8_0;
  EXPECT_EQ(run(synthetic_llama_estimate(), s).compute_bytes, 67108864u);
  // Attention phase, FA off, 3 streams of 4096 cells, n_tok round_up(512, 3)
  // = 513 (measured 74.91 MiB): scores 4 x 4096 x 513 x 8 = 67,239,936
  // + f32 mask 4 x 4096 x 513 = 8,404,992 + activations 4 x 513 x 1408
  // = 2,889,216 -> 78,534,144 = 74.90 MiB.
  LlamaCppSettings off;
  off.ctx_size = 12288;
  off.parallel = 3;
  off.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(synthetic_llama_estimate(), off).compute_bytes, 78534144u);
}

// docs/validation-llamacpp.md's llama-dense: 4 blocks, hidden 512, 8 heads,
// 2 KV heads of 64, n_ff 1536, vocab 32000, training context 8192.
ModelSpec validation_llama() {
  ModelSpec s;
  s.geometry = {4, 512, 8, 2, 64, 1536, 32000};
  s.max_position_tokens = 8192;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  return s;
}

TEST(LlamaCppEstimate, ComputeBufferOfTheValidationLlama) {
  // -c 12000 -b 1024 -ub 1024 -fa off (measured 434.02 MiB): 12032 cells,
  // n_tok 1024; scores 4 x 12032 x 1024 x 8 = 394,264,576 + mask
  // 4 x 12032 x 1024 = 49,283,072 + activations 4 x 1024 x (2 x 512 + 512 +
  // 2 x 128 + 2 x 512 = 2816) = 11,534,336 -> 455,081,984 = 434.00 MiB.
  LlamaCppSettings s;
  s.ctx_size = 12000;
  s.batch_size = s.ubatch_size = 1024;
  s.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(validation_llama(), s).compute_bytes, 455081984u);
  // -c 6000 -b 2048 -ub 2048 -fa on, q4_0 (measured 262.01 MiB): n_tok
  // min(6000, 2048) = 2048; logits + tail max(1536, 512 + 1024) = 1536:
  // 4 x 2048 x (32000 + 1536) = 274,726,912 = 262.00 MiB.
  LlamaCppSettings q;
  q.ctx_size = 6000;
  q.batch_size = q.ubatch_size = 2048;
  q.flash_attn = FlashAttn::kOn;
  q.cache_type_k = q.cache_type_v = GgmlType::kQ4_0;
  EXPECT_EQ(run(validation_llama(), q).compute_bytes, 274726912u);
  // -c 3000 -np 3 -ub 512 -fa on (measured 64.50 MiB): the graph has
  // round_up(512, 3) = 513 tokens but min(3000, 512) = 512 output rows, so
  // the logits and the tail above inp_embd have 512 rows and inp_embd 513:
  // 4 x 512 x (32000 + 1536 - 512) + 4 x 513 x 512 = 67,633,152 + 1,050,624
  // = 68,683,776 (65.50 MiB; rounding the rows too gave 68,815,872).
  LlamaCppSettings np3;
  np3.ctx_size = 3000;
  np3.parallel = 3;
  np3.flash_attn = FlashAttn::kOn;
  EXPECT_EQ(run(validation_llama(), np3).compute_bytes, 68683776u);
}

TEST(LlamaCppEstimate, ComputeBufferOfRoutedExperts) {
  // docs/validation-llamacpp.md's qwen3moe-wide: hidden 512, 8 heads / 2 KV
  // heads of 64, 16 experts, 8 used, 512 wide, vocab 8000. -c 4096 -ub 512,
  // FA auto (measured 32.01 MiB): FFN 4 x 512 x (3 x (8 x 512 + 16) +
  // 4 x 512 = 14384) = 29,458,432 + f16 mask 2 x 4096 x 512 = 4,194,304
  // -> 33,652,736 = 32.09 MiB; above the output phase 4 x 512 x (8000 +
  // 1536) = 19,529,728 and the attention phase 4 x 512 x 2816 + 4,194,304
  // = 9,961,472.
  ModelSpec spec;
  spec.geometry = {4, 512, 8, 2, 64, 4096, 8000};
  spec.max_position_tokens = 8192;
  spec.layers.assign(4, LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  spec.moe = MoeInfo{16, 8, 0, 512};
  LlamaCppSettings s;
  s.ctx_size = 4096;
  EXPECT_EQ(run(spec, s).compute_bytes, 33652736u);
  // Without moe_intermediate_size the experts are intermediate_size wide:
  // 3 x (8 x 4096 + 16) + 2048 = 100,400 floats a token -> 4 x 512 x 100,400
  // + 4,194,304 = 209,813,504.
  spec.moe.expert_intermediate = 0;
  EXPECT_EQ(run(spec, s).compute_bytes, 209813504u);
}

// docs/validation-llamacpp.md's deepseek2-mla: 3 decoder blocks of one
// latent row of 256 + 64 = 320 elements, 8 heads, hidden 512, a NextN block
// after them. head_dim 64 is what the GGUF reader gives that file
// (hidden / heads).
ModelSpec validation_mla(std::string arch) {
  ModelSpec s;
  s.model_type = std::move(arch);
  s.geometry = {3, 512, 8, 1, 64, 1536, 32000};
  s.max_position_tokens = 8192;
  s.layers.assign(3, LayerCache{LayerKind::kMlaLatent, 320, 0, 0, 0});
  s.nextn_layers = 1;
  return s;
}

TEST(LlamaCppEstimate, NextNBlocksKeepAKvCacheUnlessTheArchitectureFiltersThem) {
  // deepseek2 (measured 10.00 MiB at -c 4096): 4 layers (3 + NextN) x 320 x
  // 2 B x 4096 = 10,485,760, K only.
  LlamaCppSettings s;
  s.ctx_size = 4096;
  LlamaCppEstimate e = run(validation_mla("deepseek2"), s);
  EXPECT_EQ(e.kv_layers, 4u);
  EXPECT_EQ(e.kv_bytes, 10485760u);
  EXPECT_EQ(e.kv_bytes_per_token, 2560u);  // 4 x 320 x 2 B, K only
  EXPECT_EQ(e.v_bytes, 0u);
  // deepseek32 filters the NextN block: 3 x 320 x 2 x 4096 = 7,864,320.
  e = run(validation_mla("deepseek32"), s);
  EXPECT_EQ(e.kv_layers, 3u);
  EXPECT_EQ(e.kv_bytes, 7864320u);
  // From v0.5.0 (b11300 taken) every model's is filtered: deepseek2's too,
  // 3 x 320 x 2 x 4096 = 7,864,320; b11299 keeps it (10,485,760).
  LlamaCppSettings v050 = s;
  v050.build = 11300;
  e = run(validation_mla("deepseek2"), v050);
  EXPECT_EQ(e.kv_layers, 3u);
  EXPECT_EQ(e.kv_bytes, 7864320u);
  v050.build = 11299;
  EXPECT_EQ(run(validation_mla("deepseek2"), v050).kv_bytes, 10485760u);
  // A count no reader gives (it is below block_count there) overflows into
  // an error, not an allocation.
  ModelSpec absurd = validation_mla("deepseek2");
  absurd.nextn_layers = uint64_t{1} << 62;
  EXPECT_NE(error_of(absurd, s), "ok");
  // A recurrent model's memory leaves them out too: 4 SSM layers, no KV.
  ModelSpec ssm = synthetic(std::vector<LayerCache>(4, LayerCache{LayerKind::kSsm, 0, 0, 0, 100}));
  ssm.nextn_layers = 1;
  e = run(ssm, s);
  EXPECT_EQ(e.kv_layers, 0u);
  EXPECT_EQ(e.recurrent_layers, 4u);
}

// GLM-4.5's support (#14939) gave glm4moe a KV cache of n_layer -
// nextn_predict_layers layers, up to b7847 (the last build seen with it;
// b7848 taken as the first that caches the block, as the pinned v0.4.0
// does). The synthetic llama's 4 full-attention blocks (2 KV heads x 32 =
// 64 elements a row) and one NextN block, f16, 4096 cells.
TEST(LlamaCppEstimate, Glm4MoeLeavesItsNextNBlockOutOfTheKvCacheBeforeB7848) {
  ModelSpec spec = synthetic_llama_estimate();
  spec.model_type = "glm4_moe";
  spec.nextn_layers = 1;
  LlamaCppSettings s;
  s.ctx_size = 4096;
  // b6168 (the GLM-4.5-Air log prints 46 layers of 47 blocks): 4 layers x
  // 64 x 2 B x 2 (K, V) = 1024 B a token; x 4096 = 4,194,304 B.
  s.build = 6168;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.kv_layers, 4u);
  EXPECT_EQ(e.kv_bytes_per_token, 1024u);
  EXPECT_EQ(e.kv_bytes, 4194304u);
  s.build = 7847;
  EXPECT_EQ(run(spec, s).kv_layers, 4u);
  // b7848 and the pinned v0.4.0 (no build given) cache the NextN block like
  // the last decoder layer: 5 x 64 x 2 B x 2 = 1280 B a token; x 4096 =
  // 5,242,880 B.
  s.build = 7848;
  e = run(spec, s);
  EXPECT_EQ(e.kv_layers, 5u);
  EXPECT_EQ(e.kv_bytes, 5242880u);
  s.build.reset();
  EXPECT_EQ(run(spec, s).kv_bytes, 5242880u);
  // A GGUF's dump names the architecture glm4moe: the same 4 layers at b6168.
  spec.model_type = "glm4moe";
  s.build = 6168;
  EXPECT_EQ(run(spec, s).kv_bytes, 4194304u);
  // Another architecture keeps its NextN block at b6168 (deepseek2 above).
  spec.model_type = "qwen2";
  s.build = 6168;
  EXPECT_EQ(run(spec, s).kv_layers, 5u);
}

TEST(LlamaCppEstimate, DeepSeekV32CachesTheIndexerKeyBesideTheLatent) {
  // llama_kv_cache_dsa: the latent cache (576 wide, K only) and an indexer
  // cache of one 128-wide key head, both in the K type, n_ctx cells, on the
  // 61 decoder layers (the NextN block filtered out). f16 at -c 4096: 61 x
  // (576 + 128) x 2 B x 4096 = 351,797,248 B.
  ModelSpec spec = testing::corpus_spec("deepseek_v32/DeepSeek-V3.2-Exp-ptpc");
  spec.model_type = "deepseek32";  // as a GGUF names it
  spec.nextn_layers = 1;
  LlamaCppSettings s;
  s.ctx_size = 4096;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.kv_layers, 61u);
  EXPECT_EQ(e.kv_bytes, 351797248u);
  EXPECT_EQ(e.v_bytes, 0u);
  // q8_0 K and V: 704 / 32 = 22 blocks of 34 B = 748 B a row, the same as
  // 576 / 32 + 128 / 32 blocks apart; 61 x 748 x 4096 = 186,892,288 B.
  s.cache_type_k = GgmlType::kQ8_0;
  s.cache_type_v = GgmlType::kQ8_0;
  EXPECT_EQ(run(spec, s).kv_bytes, 186892288u);
}

TEST(LlamaCppEstimate, ComputeBufferOfMla) {
  // -c 4096 -ub 512, FA auto (measured 70.60 MiB): tail 2 x 512 + 8 x 320 +
  // 8 x 64 = 4096 floats; 4 x 512 x (32000 + 4096) = 73,924,608 = 70.50 MiB.
  LlamaCppSettings s;
  s.ctx_size = 4096;
  EXPECT_EQ(run(validation_mla("deepseek2"), s).compute_bytes, 73924608u);
  // -c 12000 -b 1024 -ub 1024 -fa off (measured 457.21 MiB): 12032 cells;
  // scores 4 x 12032 x 1024 x 8 = 394,264,576 + mask 49,283,072 +
  // activations 4 x 1024 x (1024 + 2 x 2560 + 2 x 512 = 7168) = 29,360,128
  // + transposed latent V 640 B x 12032 = 7,700,480 -> 480,608,256
  // (458.34 MiB, 0.25% over).
  LlamaCppSettings off;
  off.ctx_size = 12000;
  off.batch_size = off.ubatch_size = 1024;
  off.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(validation_mla("deepseek2"), off).compute_bytes, 480608256u);
}

TEST(LlamaCppEstimate, SyntheticGemma2SwaCellsMatchTheMeasuredLogLines) {
  // Measured, n_ctx 4096, U 513: base 4096 cells x 2 layers x 256 B = 2.00 MiB;
  // SWA pad256(128 + 513) = 768 cells x 2 layers x 256 B = 393,216 (0.38 MiB).
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.ubatch_size = 513;
  LlamaCppEstimate e = run(synthetic_gemma2(), s);
  EXPECT_EQ(e.context.swa_cells, 768u);
  EXPECT_EQ(e.kv_bytes, 2 * kMiB + 393216);
  // Measured, 4 sequences, n_ctx_seq 8192, not unified: SWA 768 cells in each
  // of 4 streams: 2 x 256 x 768 x 4 = 1,572,864 (1.50 MiB); base 2 x 256 x
  // 8192 x 4 = 16 MiB.
  s.ctx_size = 32768;
  s.parallel = 4;
  e = run(synthetic_gemma2(), s);
  EXPECT_EQ(e.context.n_ctx_seq, 8192u);
  EXPECT_EQ(e.kv_bytes, 16 * kMiB + 1572864);
  // Measured, --swa-full: SWA = base = 4096 cells (1 stream): 2 + 2 MiB.
  LlamaCppSettings full;
  full.ctx_size = 4096;
  full.swa_full = true;
  e = run(synthetic_gemma2(), full);
  EXPECT_EQ(e.context.swa_cells, 4096u);
  EXPECT_EQ(e.kv_bytes, 4 * kMiB);
}

TEST(LlamaCppEstimate, SyntheticMambaStateIsOneRowPerSequence) {
  // Measured (d_inner 512, state 16, kernel 4, 4 layers): R 4 x 3 x 512 x 4 B
  // = 24,576 and S 4 x 16 x 512 x 4 B = 131,072 for 1 sequence; 3 rows for 3.
  ModelSpec spec = synthetic(std::vector<LayerCache>(4, LayerCache{LayerKind::kSsm, 0, 0, 0, 6144 + 32768}));
  LlamaCppSettings s;
  EXPECT_EQ(run(spec, s).recurrent_bytes, 24576u + 131072u);
  s.parallel = 3;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.recurrent_bytes, 3 * (24576u + 131072u));
  EXPECT_EQ(e.kv_bytes, 0u);
}

TEST(LlamaCppEstimate, Qwen3_8bAt4096TokensF16) {
  // 36 layers x (8 x 128 K + 8 x 128 V) x 2 B x 4096 cells = 603,979,776;
  // output 4 x 151936 = 607,744; compute, replayed (qwen3's graph): the
  // logits 4 x 151936 x 512 = 311,164,928 over the freed token ids' 2,048 B,
  // inp_embd and the last l_out (2 x 4 x 4096 x 512 = 16,777,216):
  // 327,944,192. (The phase model took the logits over a 3-row tail,
  // 4 x 512 x (151936 + 12288) = 336,330,752.)
  LlamaCppSettings s;
  s.ctx_size = 4096;
  LlamaCppEstimate e = run(testing::corpus_spec("qwen3/Qwen3-8B"), s);
  EXPECT_EQ(e.kv_bytes, 603979776u);
  EXPECT_EQ(e.k_bytes, 301989888u);
  EXPECT_EQ(e.output_bytes, 607744u);
  EXPECT_EQ(e.context_bytes, 603979776u + 607744u);
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2048u + 16777216u + 311164928u);
  EXPECT_EQ(e.total_bytes, 1000u + 603979776u + 607744u + 327944192u);
  EXPECT_TRUE(e.fits);
  EXPECT_TRUE(e.context.flash_attn);
}

TEST(LlamaCppEstimate, Qwen3_8bStreamsQuantizedRowsAndTrainingContext) {
  const ModelSpec spec = testing::corpus_spec("qwen3/Qwen3-8B");
  // -c 4096 -np 3: pad256(floor(4096 / 3)) = pad256(1365) = 1536 cells x 3
  // streams = 4608; 36 x 4096 B x 4608 = 679,477,248; output 3 x 607,744.
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.parallel = 3;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.context.n_ctx_seq, 1536u);
  EXPECT_EQ(e.context.n_ctx, 4608u);
  EXPECT_EQ(e.kv_bytes, 679477248u);
  EXPECT_EQ(e.output_bytes, 1823232u);
  // --kv-unified -np 4: one stream of 4096 cells, the same KV as -np 1.
  s.parallel = 4;
  s.kv_unified = true;
  EXPECT_EQ(run(spec, s).kv_bytes, 603979776u);
  // q8_0: 1024 / 32 x 34 = 1088 B per row; 36 x 2 x 1088 x 4096 = 320,864,256.
  LlamaCppSettings q;
  q.ctx_size = 4096;
  q.cache_type_k = q.cache_type_v = GgmlType::kQ8_0;
  EXPECT_EQ(run(spec, q).kv_bytes, 320864256u);
  // -c 0: the training context, 40960: 36 x 4096 x 40960 = 6,039,797,760.
  LlamaCppSettings train;
  e = run(spec, train);
  EXPECT_EQ(e.context.n_ctx, 40960u);
  EXPECT_EQ(e.context.n_batch, 2048u);
  EXPECT_EQ(e.kv_bytes, 6039797760u);
}

TEST(LlamaCppEstimate, Gemma2SlidingWindowPerSequenceAndUnified) {
  // gemma-2-2b: 13 SWA layers (window 4096) + 13 full, 4 KV heads x 256:
  // 4096 B per layer per cell at f16 (K + V).
  const ModelSpec spec = testing::corpus_spec("gemma2/gemma-2-2b-it");
  LlamaCppSettings s;
  s.ctx_size = 32768;
  // -np 1: SWA pad256(min(32768, 4096 + 512)) = 4608 cells;
  // 13 x 4096 x 32768 + 13 x 4096 x 4608 = 1,744,830,464 + 245,366,784.
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.context.swa_cells, 4608u);
  EXPECT_EQ(e.kv_bytes, 1744830464u + 245366784u);
  // -np 4 per sequence: base 8192 x 4 streams; SWA 4608 in each of 4 streams:
  // 1,744,830,464 + 13 x 4096 x 4608 x 4 = 981,467,136.
  s.parallel = 4;
  e = run(spec, s);
  EXPECT_EQ(e.kv_bytes, 1744830464u + 981467136u);
  // -np 4 --kv-unified: SWA pad256(4096 x 4 + 512) = 16896 cells, one stream:
  // 13 x 4096 x 16896 = 899,678,208.
  s.kv_unified = true;
  e = run(spec, s);
  EXPECT_EQ(e.context.swa_cells, 16896u);
  EXPECT_EQ(e.kv_bytes, 1744830464u + 899678208u);
}

TEST(LlamaCppEstimate, DeepSeekV3MlaCachesOneLatentRowAndNoV) {
  // 61 layers x 576 elements (512 latent + 64 rope) x 2 B x 4096 = 287,834,112.
  const ModelSpec spec = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  LlamaCppSettings s;
  s.ctx_size = 4096;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.k_bytes, 287834112u);
  EXPECT_EQ(e.v_bytes, 0u);
  // q8_0: 576 / 32 x 34 = 612 B; 61 x 612 x 4096 = 152,911,872.
  s.cache_type_k = s.cache_type_v = GgmlType::kQ8_0;
  EXPECT_EQ(run(spec, s).kv_bytes, 152911872u);
  s.cache_type_v = GgmlType::kF16;
  EXPECT_EQ(error_of(spec, s), "cache_type_v: an MLA model's K and V cache types must be equal");
}

// DeepSeek-R1 as a GGUF converted before #12801 holds it (no MLA keys):
// model/gguf/arch_rules.cc reads it as deepseek_v2, 128 heads of K
// (128 nope + 64 rope) and of V (128).
ModelSpec deepseek_r1_without_mla() {
  ModelSpec spec = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  for (LayerCache& l : spec.layers) {
    l.elems_per_token = 128 * (128 + 64) + 128 * 128;  // 40,960
    l.k_elems_per_token = 128 * (128 + 64);            // 24,576
  }
  return spec;
}

TEST(LlamaCppEstimate, DeepSeekWithoutMlaCachesEveryHeadsKAndV) {
  // K f16: 128 x 192 x 2 B = 49,152 B a cell and layer; V 128 x 128 x 2 B
  // = 32,768 B. 61 layers x 16,384 cells: K 61 x 16,384 x 49,152 =
  // 49,123,688,448 (46,848 MiB), V 61 x 16,384 x 32,768 = 32,749,125,632
  // (31,232 MiB): LM Studio's log in lmstudio-ai/lmstudio-bug-tracker #1454.
  const ModelSpec spec = deepseek_r1_without_mla();
  LlamaCppSettings s;
  s.ctx_size = 16384;
  s.flash_attn = FlashAttn::kOff;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.k_bytes, 49123688448u);
  EXPECT_EQ(e.v_bytes, 32749125632u);
  // Flash attention changes no width: every layer's V is as wide.
  s.flash_attn = FlashAttn::kOn;
  EXPECT_EQ(run(spec, s).kv_bytes, 49123688448u + 32749125632u);
}

TEST(LlamaCppEstimate, DeepSeekWithoutMlaTakesKAndVTypesOfTheirOwn) {
  // ggml-org/llama.cpp #9390: q4_0 K, f16 V, 16,384 cells, flash attention
  // off. K 24,576 / 32 x 18 B = 13,824 B; V 32,768 B; a layer 16,384 x
  // 46,592 = 763,363,328 B (728 MiB: the log's 5,824 MiB for 8 layers).
  const ModelSpec spec = deepseek_r1_without_mla();
  LlamaCppSettings s;
  s.ctx_size = 16384;
  s.flash_attn = FlashAttn::kOff;
  s.cache_type_k = GgmlType::kQ4_0;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.k_bytes, uint64_t{61} * 16384 * 13824);
  EXPECT_EQ(e.v_bytes, uint64_t{61} * 16384 * 32768);
  EXPECT_EQ(e.kv_bytes, uint64_t{61} * 763363328);
}

TEST(LlamaCppEstimate, Mamba2StateIsPerSequenceAndIndependentOfContext) {
  // Codestral Mamba: 64 layers x (conv 3 x 10240 + ssm 128 x 64 x 128) x 4 B
  // = 64 x 4,317,184 per sequence; x 2 sequences = 552,599,552.
  const ModelSpec spec = testing::corpus_spec("mamba2/Mamba-Codestral-7B-hfconv");
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.parallel = 2;
  LlamaCppEstimate e = run(spec, s);
  EXPECT_EQ(e.recurrent_bytes, 552599552u);
  EXPECT_EQ(e.kv_bytes, 0u);
  s.ctx_size = 65536;
  EXPECT_EQ(run(spec, s).recurrent_bytes, 552599552u);
  // Its config declares no context: -c 0 has nothing to take.
  s.ctx_size = 0;
  EXPECT_EQ(error_of(spec, s), "ctx_size: the model declares no training context: give one");
}

TEST(LlamaCppEstimate, RefusesWhatLlamaCppRefuses) {
  LlamaCppSettings s;
  s.parallel = 0;
  EXPECT_EQ(error_of(synthetic_llama_estimate(), s), "parallel: must be 1 to 256, got 0");
  s.parallel = 257;
  EXPECT_EQ(error_of(synthetic_llama_estimate(), s), "parallel: must be 1 to 256, got 257");
  LlamaCppSettings v;
  v.cache_type_v = GgmlType::kQ4_0;
  v.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(error_of(synthetic_llama_estimate(), v),
            "flash_attn: a quantized V cache (q4_0) needs flash attention: on or auto");
  // One KV head of 48: a 48-element row is not whole q8_0 blocks.
  ModelSpec odd = synthetic(std::vector<LayerCache>(1, LayerCache{LayerKind::kFullAttention, 96, 0, 0, 0}));
  LlamaCppSettings k;
  k.cache_type_k = GgmlType::kQ8_0;
  EXPECT_EQ(error_of(odd, k), "cache_type_k: 48 elements per row is not a multiple of q8_0's block of 32");
}

TEST(LlamaCppEstimate, FlashAttnOffPadsEveryVRowToTheWidest) {
  // Two layers, V widths 64 and 128: with -fa off both V rows are 128 wide:
  // K (64 + 128) x 2 B x 256 + V 2 x 128 x 2 B x 256 = 98,304 + 131,072.
  ModelSpec spec = synthetic({LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0},
                              LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0}});
  LlamaCppSettings s;
  s.ctx_size = 256;
  s.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(spec, s).kv_bytes, 98304u + 131072u);
  s.flash_attn = FlashAttn::kAuto;
  EXPECT_EQ(run(spec, s).kv_bytes, 2 * 98304u);
}

TEST(LlamaCppOptions, ParsesLlamaCppSpellings) {
  EXPECT_EQ(*parse_llamacpp_cache_type("iq4_nl"), GgmlType::kIQ4_NL);
  EXPECT_EQ(*parse_llamacpp_cache_type("bf16"), GgmlType::kBF16);
  EXPECT_EQ(parse_llamacpp_cache_type("q4_K").error().message(),
            "'q4_K': expected f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl");
  EXPECT_EQ(*parse_flash_attn("off"), FlashAttn::kOff);
  EXPECT_EQ(parse_flash_attn("yes").error().message(), "'yes': expected on, off or auto");
}

}  // namespace
}  // namespace memfit
