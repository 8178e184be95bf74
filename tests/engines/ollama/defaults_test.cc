// Ollama's defaults (src/engines/ollama/defaults.cc): the context by VRAM
// tier, its clamps, and the runner, sequences and cache type it decides.
#include <gtest/gtest.h>

#include "engines/ollama/releases.h"
#include "engines/ollama/settings.h"

namespace memfit::ollama {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

std::vector<SchedulerGpu> gpus_of(std::initializer_list<uint64_t> totals) {
  std::vector<SchedulerGpu> gpus;
  for (uint64_t t : totals) gpus.push_back({"cuda:" + std::to_string(gpus.size()), t, t, false});
  return gpus;
}

TEST(OllamaDefaults, ContextByVramTier) {
  // 8 GiB < 23 GiB: 4096.
  EXPECT_EQ(choose_context({}, gpus_of({8 * kGiB}), 0).num_ctx, 4096u);
  // 24 GiB >= 23 GiB, < 47 GiB: 32768.
  EXPECT_EQ(choose_context({}, gpus_of({24 * kGiB}), 0).num_ctx, 32768u);
  // 24 + 24 = 48 GiB >= 47 GiB: 262144.
  ContextChoice two = choose_context({}, gpus_of({24 * kGiB, 24 * kGiB}), 0);
  EXPECT_EQ(two.num_ctx, 262144u);
  EXPECT_EQ(two.total_vram_bytes, 48 * kGiB);
  EXPECT_EQ(two.source, "the VRAM tier");
  // No GPU: 0 bytes, the lowest tier.
  EXPECT_EQ(choose_context({}, {}, 0).num_ctx, 4096u);
}

TEST(OllamaDefaults, OverheadComesOffEachGpuOfTheTier) {
  OllamaRequest given;
  given.gpu_overhead_bytes = 1 * kGiB;  // 24 - 1 = 23 GiB: still 32768
  EXPECT_EQ(choose_context(given, gpus_of({24 * kGiB}), 0).num_ctx, 32768u);
  given.gpu_overhead_bytes = 2 * kGiB;  // 24 - 2 = 22 GiB: 4096
  EXPECT_EQ(choose_context(given, gpus_of({24 * kGiB}), 0).num_ctx, 4096u);
  // Two 24 GiB GPUs less 1 GiB each: 46 GiB < 47 GiB, 32768.
  given.gpu_overhead_bytes = 1 * kGiB;
  EXPECT_EQ(choose_context(given, gpus_of({24 * kGiB, 24 * kGiB}), 0).num_ctx, 32768u);
}

TEST(OllamaDefaults, NumCtxThenContextLengthThenTierClampedToTrained) {
  OllamaRequest given;
  given.context_length = 16384;
  ContextChoice env = choose_context(given, gpus_of({8 * kGiB}), 0);
  EXPECT_EQ(env.num_ctx, 16384u);
  EXPECT_EQ(env.source, "OLLAMA_CONTEXT_LENGTH");
  given.num_ctx = 2;  // raised to 4
  ContextChoice tiny = choose_context(given, gpus_of({8 * kGiB}), 0);
  EXPECT_EQ(tiny.num_ctx, 4u);
  EXPECT_EQ(tiny.source, "num_ctx");
  // 262144 by the tier, lowered to a trained context of 8192.
  ContextChoice clamped = choose_context({}, gpus_of({80 * kGiB}), 8192);
  EXPECT_EQ(clamped.num_ctx, 8192u);
  EXPECT_EQ(clamped.trained_tokens, 8192u);
}

TEST(OllamaDefaults, RunnerByArchitecture) {
  EXPECT_EQ(runner_for("llama"), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("qwen2"), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("qwen3"), OllamaRunner::kOllama);
  EXPECT_EQ(runner_for("gemma3"), OllamaRunner::kOllama);
  EXPECT_EQ(runner_for("gpt-oss"), OllamaRunner::kOllama);
}

// A two-block llama-shaped model: 32 heads, 8 KV heads of 128, so each
// layer caches 2 x 8 x 128 = 2048 elements per token.
Model two_block_model(std::string arch) {
  Model m;
  m.spec.model_type = std::move(arch);
  m.spec.geometry = {.layers = 2, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .vocab = 32000};
  m.spec.layers.assign(2, LayerCache{.elems_per_token = 2048});
  m.spec.max_position_tokens = 131072;
  m.tensors = {{"token_embd.weight", "q8_0", {32000, 4096}, 100},
               {"blk.0.attn_q.weight", "q8_0", {4096, 4096}, 1000},
               {"blk.0.ffn_up.weight", "q8_0", {4096, 4096}, 2000},
               {"blk.1.attn_q.weight", "q8_0", {4096, 4096}, 1500},
               {"output_norm.weight", "f32", {4096}, 16},
               {"output.weight", "q8_0", {32000, 4096}, 300}};
  return m;
}

TEST(OllamaDefaults, KvIsNumCtxTimesParallel) {
  const Model m = two_block_model("test");
  OllamaRequest given;
  given.num_ctx = 1024;
  given.num_parallel = 4;
  OllamaDecisions d = decide_defaults(given, m, gpus_of({8 * kGiB}));
  EXPECT_EQ(d.parallel, 4u);
  EXPECT_EQ(d.num_batch, 512u);
  Result<LayerSizes> s = llama_runner_sizes(m, d);
  ASSERT_TRUE(s.ok()) << s.error().message();
  // 1024 x 4 = 4096 cells x 2048 elements x 2 bytes (f16) = 16 MiB a layer.
  ASSERT_EQ(s->layer_bytes.size(), 3u);
  EXPECT_EQ(s->layer_bytes[0], 3000u + 16777216u);
  EXPECT_EQ(s->layer_bytes[1], 1500u + 16777216u);
  // The output layer: output_norm 16 + output 300 (token_embd left out).
  EXPECT_EQ(s->layer_bytes[2], 316u);
  EXPECT_EQ(s->first_layer_buffer_bytes, 3000u + 16777216u);
  // No formula for "test": 32 / 8 = 4 x the 32 MiB cache / 6 = 22369621.
  EXPECT_EQ(s->graph_partial_bytes, 22369621u);
  EXPECT_EQ(s->graph_full_bytes, 22369621u);
}

TEST(OllamaDefaults, GptOssGetsAtLeast8192TokensWhenTheGpusHold20GiB) {
  // server/routes.go scheduleRunner: max(num_ctx, 8192) for gptoss unless
  // the GPUs' total (less OLLAMA_GPU_OVERHEAD) is below 20 GiB (v0.11.4 to
  // v0.15.4); always in v0.11.0 to v0.11.3; the VRAM tier from v0.15.5.
  const Model m = two_block_model("gptoss");  // trained for 131072 tokens
  OllamaRequest given;
  given.release = parse_ollama_release("0.12.6").value();
  // 24 GiB >= 20 GiB: 4096 (0.12.6's default) raised to 8192.
  OllamaDecisions big = decide_defaults(given, m, gpus_of({24 * kGiB}));
  EXPECT_EQ(big.context.num_ctx, 8192u);
  EXPECT_EQ(big.context.source, "the release's floor for the family");
  // 16 GiB < 20 GiB (low VRAM mode): 4096 stays.
  EXPECT_EQ(decide_defaults(given, m, gpus_of({16 * kGiB})).context.num_ctx, 4096u);
  // Over a Modelfile's num_ctx too: 2048 -> 8192.
  given.num_ctx = 2048;
  EXPECT_EQ(decide_defaults(given, m, gpus_of({24 * kGiB})).context.num_ctx, 8192u);
  // 0.11.3 has no low VRAM mode: 16 GiB gets 8192 as well.
  given.num_ctx.reset();
  given.release = parse_ollama_release("0.11.3").value();
  EXPECT_EQ(decide_defaults(given, m, gpus_of({16 * kGiB})).context.num_ctx, 8192u);
  // 0.15.5: the tier, 24 GiB -> 32768; 16 GiB -> 4096, no floor.
  given.release = parse_ollama_release("0.15.5").value();
  EXPECT_EQ(decide_defaults(given, m, gpus_of({16 * kGiB})).context.num_ctx, 4096u);
  // A family not listed: llama at 0.12.6 on 24 GiB keeps 4096.
  given.release = parse_ollama_release("0.12.6").value();
  EXPECT_EQ(decide_defaults(given, two_block_model("llama"), gpus_of({24 * kGiB})).context.num_ctx, 4096u);
}

TEST(OllamaDefaults, QuantizedCacheNeedsFlashAttentionOn) {
  const Model m = two_block_model("llama");  // the llama.cpp runner
  OllamaRequest given;
  given.release = kPinnedRelease;
  given.kv_cache_type = GgmlType::kQ8_0;
  OllamaDecisions unset = decide_defaults(given, m, gpus_of({8 * kGiB}));
  EXPECT_EQ(unset.flash_attn, FlashAttn::kAuto);
  EXPECT_EQ(unset.kv_type, GgmlType::kF16);
  EXPECT_FALSE(unset.kv_type_note.empty());
  given.flash_attention = true;
  OllamaDecisions on = decide_defaults(given, m, gpus_of({8 * kGiB}));
  EXPECT_EQ(on.flash_attn, FlashAttn::kOn);
  EXPECT_EQ(on.kv_type, GgmlType::kQ8_0);
  // q8_0 is 1 byte an element: 4096 cells x 2048 = 8 MiB a layer.
  on.context.num_ctx = 4096;
  Result<LayerSizes> s = llama_runner_sizes(m, on);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->layer_bytes[1], 1500u + 8388608u);
}

TEST(OllamaDefaults, LlamaGraphByGraphSizesFormula) {
  const Model m = two_block_model("llama");
  OllamaRequest given;
  given.num_ctx = 4096;
  OllamaDecisions d = decide_defaults(given, m, gpus_of({8 * kGiB}));
  Result<LayerSizes> s = llama_runner_sizes(m, d);
  ASSERT_TRUE(s.ok());
  // hidden 4096, heads 32, kv heads 8, head 128, vocab 32000, context
  // 4096, batch 512. full = max(4 x 512 x (1 + 4 x 4096 + 4096 x 33),
  // 4 x 512 x (4096 + 32000)) = max(2048 x 151553, 2048 x 36096).
  EXPECT_EQ(s->graph_full_bytes, 310380544u);
  // partial = 4 x 512 x 4096 + max(2048 x 8193 + 4096^2 x 9/16 + 4 x 4096
  // x (512 x 32 + 128 x 8), 2048 x 36096 + 4096 x 32000 x 105/128)
  // = 8388608 + max(16779264 + 9437184 + 285212672, 73924608 + 107520000).
  EXPECT_EQ(s->graph_partial_bytes, 319817728u);
}

TEST(OllamaDefaults, OneSequenceFamiliesIgnoreParallel) {
  OllamaRequest given;
  given.num_parallel = 4;
  OllamaDecisions d = decide_defaults(given, two_block_model("qwen3next"), gpus_of({8 * kGiB}));
  EXPECT_EQ(d.parallel, 1u);
  EXPECT_TRUE(d.parallel_forced_one);
}

}  // namespace
}  // namespace memfit::ollama
