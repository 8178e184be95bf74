// Ollama's own engine's reserved graph (src/engines/ollama/engine_graph.cc),
// replayed: each expected figure worked out from the placements the
// allocator rules make (the layout at the peak written beside it), and the
// records of Ollama 0.16.1's own engine on a Raspberry Pi (the corpus log
// ollama-josheeg-qwen3coder30b-iq3s-rpi5-cpu-{4k,16k}).
#include "engines/ollama/engine_graph.h"

#include <gtest/gtest.h>

#include "engines/ollama/releases.h"

namespace memfit {
namespace {

using ollama::EngineGraphRun;

// One qwen3 block: hidden 64, 2 heads / 1 KV head of 32, FFN 512,
// vocabulary 4096.
ModelSpec toy_qwen3() {
  ModelSpec s;
  s.model_type = "qwen3";
  s.geometry = {1, 64, 2, 1, 32, 512, 4096};
  s.layers.assign(1, LayerCache{LayerKind::kFullAttention, 64, 0, 0, 0});
  return s;
}

// Qwen3-30B-A3B (Qwen3-Coder-30B-A3B's shape): 48 blocks, hidden 2048, 32
// heads / 4 KV heads of 128, 128 experts of 768, 8 a token, vocabulary
// 151,936.
ModelSpec qwen3moe_30b() {
  ModelSpec s;
  s.model_type = "qwen3moe";
  s.geometry = {48, 2048, 32, 4, 128, 6144, 151936};
  s.layers.assign(48, LayerCache{LayerKind::kFullAttention, 1024, 0, 0, 0});
  s.moe = MoeInfo{128, 8, 0, 768};
  return s;
}

uint64_t bytes(const ModelSpec& spec, const EngineGraphRun& run) {
  Result<std::optional<uint64_t>> r = ollama::engine_graph_bytes(spec, run);
  EXPECT_TRUE(r && r->has_value());
  return r && r->has_value() ? **r : 0;
}

TEST(OllamaEngineGraph, OnTheHostTheLogitsAreOneRowASequence) {
  // 16 tokens, one sequence, 256 cells, flash attention, every layer and
  // the output on the host (32-B alignment). The inputs are Input()
  // buffers, not in this one. The last layer keeps the one output row
  // (4 x 64 = 256 B) of the attention output and the residual; its FFN's
  // up and gate (4 x 512 = 2,048 each) and SwiGLU land in the holes the
  // attention left, its down projection (256) at 6,400 with l_out and the
  // final norm in place over it; the logits, 4 x 4,096 x 1 = 16,384 B,
  // take the free space above: 6,400 + 256 + 16,384 = 23,040. llama.cpp's
  // graph would keep 16 rows of logits (262,144 B).
  const EngineGraphRun run{.num_batch = 16, .parallel = 1, .cells = 256, .flash_attention = true,
                           .on_gpu = false, .output_layer = true};
  EXPECT_EQ(bytes(toy_qwen3(), run), 23040u);
}

TEST(OllamaEngineGraph, OnAGpuTheSchedulersInputCopiesComeFirst) {
  // The same batch with every block on a GPU and the output layer on the
  // host (128-B alignment): the scheduler's copies of the token rows (4 x
  // 64 x 16 = 4,096), positions, cache slots (4 x 16 = 64, 128 each),
  // the F32 mask (4 x 256 x 16 = 16,384) and the outputs (128) take
  // 20,864 B; layer 0's attention norm (4,096) above them, Q's product
  // (4,096) above it and Q's norm above that: 20,864 + 3 x 4,096 =
  // 33,152 (the F16 cast, 8,192, later fills the norm's freed place).
  const EngineGraphRun run{.num_batch = 16, .parallel = 1, .cells = 256, .flash_attention = true,
                           .on_gpu = true, .output_layer = false};
  EXPECT_EQ(bytes(toy_qwen3(), run), 33152u);
}

TEST(OllamaEngineGraph, TheRaspberryPiRecordsOfQwen3Coder30B) {
  // Ollama 0.16.1, CPU only, BatchSize 512, Parallel 1, flash attention:
  // "compute graph" device=CPU 88.0 MiB at 4,096 cells and 96.0 MiB at
  // 16,384 (llama.cpp's phases priced 303 MiB: 512 rows of logits). The
  // replay: 92,274,688 = 88 MiB and 100,663,296 = 96 MiB.
  EngineGraphRun run{.num_batch = 512, .parallel = 1, .cells = 4096, .flash_attention = true,
                     .on_gpu = false, .output_layer = true};
  EXPECT_EQ(bytes(qwen3moe_30b(), run), 88u << 20);
  run.cells = 16384;
  EXPECT_EQ(bytes(qwen3moe_30b(), run), 96u << 20);
}

TEST(OllamaEngineGraph, BeforeV0127TheReservedMaskIsAnInput) {
  // Qwen3 1.7B (28 blocks, hidden 2048, 16 heads / 8 KV heads of 128, FFN
  // 6,144), 4,096 cells, 512 tokens, flash attention, on the host. From
  // v0.12.7 the F16 cast of the mask, 2 x 4,096 x 512 = 4,194,304 B, is in
  // the graph: 54,525,952 B (52 MiB). Before, the reservation took an
  // empty F16 input instead (1c093e97a), out of this buffer: 4 MiB less,
  // 50,331,648 B (48 MiB), what a public report of Ollama 0.12.6 running
  // qwen3:1.7b on the host prints ("compute graph" device=CPU 48.0 MiB).
  ModelSpec s;
  s.model_type = "qwen3";
  s.geometry = {28, 2048, 16, 8, 128, 6144, 151936};
  s.layers.assign(28, LayerCache{LayerKind::kFullAttention, 2048, 0, 0, 0});
  EngineGraphRun run{.num_batch = 512, .parallel = 1, .cells = 4096, .context = 4096, .flash_attention = true,
                     .on_gpu = false, .output_layer = true};
  EXPECT_EQ(bytes(s, run), 52u << 20);
  run.mask_cast = false;
  EXPECT_EQ(bytes(s, run), 48u << 20);
  EXPECT_TRUE(ollama::own_engine_reserve_casts_mask(ollama::OllamaRelease{0, 12, 7}));
  EXPECT_FALSE(ollama::own_engine_reserve_casts_mask(ollama::OllamaRelease{0, 12, 6}));
}

TEST(OllamaEngineGraph, BertsBatchIsItsContextAndVsHoleStays) {
  // all-MiniLM-L6-v2 (6 blocks, hidden 384, 12 heads of 32, FFN 1,536,
  // vocabulary 30,522) with KvSize 256 and BatchSize 256, on the host: a
  // row set is 4 x 384 x 256 = 393,216 B. At layer 0's scores: Q at 0
  // (nn.Attention expands Q, then K and V), the layer's input (the
  // embeddings' LayerNorm) at 393,216, K at 786,432, V's freed place at
  // 1,179,648 (V is copied permuted, then freed), V's copy at 1,572,864,
  // and the scores, 4 x 256 x 256 x 12 = 3,145,728, above: 1,966,080 +
  // 3,145,728 = 5,111,808 B (4.875 MiB; Ollama 0.16.3 prints "4.9 MiB").
  ModelSpec s;
  s.model_type = "bert";
  s.geometry = {6, 384, 12, 12, 32, 1536, 30522};
  s.layers.assign(6, LayerCache{LayerKind::kFullAttention, 0, 0, 0, 0});
  s.embedding.bidirectional = true;
  EngineGraphRun run{.num_batch = 256, .parallel = 1, .cells = 256, .context = 256, .flash_attention = false,
                     .on_gpu = false, .output_layer = true};
  EXPECT_EQ(bytes(s, run), 5111808u);
  // A context past the batch is the batch ("model does not support
  // caching, setting batch size to context length"): 512 tokens, the
  // scores alone 4 x 512 x 512 x 12 = 12,582,912 B, more than before.
  run.context = 512;
  EXPECT_GT(bytes(s, run), 12582912u);
}

TEST(OllamaEngineGraph, OtherFamiliesAreNotMirrored) {
  // A sliding-window layer (gemma3, gpt-oss) or another architecture:
  // nullopt, llama.cpp's phases stay (modelled).
  ModelSpec windowed = toy_qwen3();
  windowed.layers[0].kind = LayerKind::kSlidingWindow;
  ModelSpec llama = toy_qwen3();
  llama.model_type = "llama";
  // (BERT's Forward is mirrored: BertsBatchIsItsContextAndVsHoleStays.)
  const EngineGraphRun run{.num_batch = 16, .parallel = 1, .cells = 256};
  for (const ModelSpec& spec : {windowed, llama}) {
    EXPECT_FALSE(ollama::mirrors_engine_graph(spec));
    Result<std::optional<uint64_t>> r = ollama::engine_graph_bytes(spec, run);
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->has_value());
  }
  EXPECT_TRUE(ollama::mirrors_engine_graph(toy_qwen3()));
}

TEST(OllamaEngineGraph, TheAttentionNodeIsThePromptBatchOverEveryCell) {
  // Qwen3-30B-A3B, 512 tokens over 8,192 cells: Q's 512 tokens of 32
  // heads, K's 4 heads of 8,192 cells, V heads of 128: what ggml-cuda's
  // flash attention kernel sizes its temporaries by (gpu_pool.h).
  EngineGraphRun run{.num_batch = 512, .parallel = 2, .cells = 8192, .flash_attention = true,
                     .on_gpu = true, .output_layer = true};
  const std::optional<ollama::FlashAttentionNode> fa = ollama::engine_graph_attention(qwen3moe_30b(), run);
  ASSERT_TRUE(fa.has_value());
  EXPECT_EQ(fa->tokens, 512u);
  EXPECT_EQ(fa->heads, 32u);
  EXPECT_EQ(fa->kv_heads, 4u);
  EXPECT_EQ(fa->cells, 8192u);
  EXPECT_EQ(fa->head_dim_v, 128u);
  // Without flash attention the scores are products, not this node.
  run.flash_attention = false;
  EXPECT_FALSE(ollama::engine_graph_attention(qwen3moe_30b(), run).has_value());
}

}  // namespace
}  // namespace memfit
