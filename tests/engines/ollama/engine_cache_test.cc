// Ollama's own engine's cache (src/engines/ollama/engine_cache.cc):
// kvcache/causal.go's Init and the models' constructors at v0.24.0, and the
// config model_type read as the architecture Ollama lists (releases.cc).
#include <gtest/gtest.h>

#include "engines/ollama/engine_cache.h"
#include "engines/ollama/releases.h"

namespace memfit::ollama {
namespace {

TEST(OllamaEngineCache, SwaMemoryByModel) {
  // gpt-oss: NewSWAMemCache(128, 4096): 4096 tokens, one sequence, num_ctx 8192.
  EXPECT_EQ(own_engine_swa_memory("gpt_oss", 128, 1, 8192), 4096u);
  EXPECT_EQ(own_engine_swa_memory("gptoss", 128, 1, 8192), 4096u);
  // Gemma 4: NewSWAMemCache(1024, 4096).
  EXPECT_EQ(own_engine_swa_memory("gemma4", 1024, 1, 32768), 4096u);
  // Gemma 3: NewSWACache(1024): the window; with 2 sequences window + 1.
  EXPECT_EQ(own_engine_swa_memory("gemma3", 1024, 1, 32768), 1024u);
  EXPECT_EQ(own_engine_swa_memory("gemma3", 1024, 2, 32768), 1025u);
  // gpt-oss with 4 sequences: max(4096, 128 + 1) = 4096.
  EXPECT_EQ(own_engine_swa_memory("gpt-oss", 128, 4, 8192), 4096u);
  // A memory of the capacity or more keeps every cell: num_ctx 4096.
  EXPECT_EQ(own_engine_swa_memory("gpt_oss", 128, 1, 4096), 4096u);
  EXPECT_EQ(own_engine_swa_memory("gpt_oss", 128, 1, 2048), 2048u);
}

TEST(OllamaEngineCache, SpecRewritesWindowedLayersOnly) {
  ModelSpec spec;
  spec.model_type = "gpt_oss";
  LayerCache swa{LayerKind::kSlidingWindow, 2 * 8 * 64, 0, 128, 0};
  LayerCache full{LayerKind::kFullAttention, 2 * 8 * 64, 0, 0, 0};
  LayerCache chunk{LayerKind::kChunked, 2 * 8 * 128, 0, 8192, 0};
  spec.layers = {swa, full, chunk};
  const ModelSpec out = own_engine_cache_spec(spec, 1, 8192);
  // gpt-oss's window 128 becomes its 4096-token memory; with one cache of
  // 8192 cells, llama.cpp's round_up(1 x 4096 + 512, 256) = 4608 cells are
  // Ollama's roundUp(maxSequences x 4096 + maxBatch, 256): 18 such layers x
  // 4608 x 2048 B + 18 x 8192 x 2048 B = 162 + 288 = 450 MiB, gpt-oss-120b's
  // print on gfx1151 (ollama-rocm4909-gpt-oss-120b-gfx1151-newengine).
  EXPECT_EQ(out.layers[0].window_tokens, 4096u);
  EXPECT_EQ(out.layers[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(out.layers[1], full);
  // A chunked layer keeps every cell: its window becomes the capacity.
  EXPECT_EQ(out.layers[2].window_tokens, 8192u);
  EXPECT_EQ(out.layers[2].kind, LayerKind::kChunked);
}

TEST(OllamaEngineCache, RecurrentCheckpointsByRelease) {
  // kvcache/recurrent.go DefaultCheckpointCount (v0.17.1 on, every model on
  // NewRecurrentCache); qwen3next's own checkpoints.go before it (32);
  // none before v0.15.5 or for the other recurrent families then.
  EXPECT_EQ(own_engine_recurrent_checkpoints({0, 24, 0}, "qwen35moe"), 24u);
  EXPECT_EQ(own_engine_recurrent_checkpoints({0, 17, 1}, "nemotron_h"), 24u);
  EXPECT_EQ(own_engine_recurrent_checkpoints({0, 17, 0}, "qwen3next"), 32u);
  EXPECT_EQ(own_engine_recurrent_checkpoints({0, 15, 5}, "qwen3next"), 32u);
  EXPECT_EQ(own_engine_recurrent_checkpoints({0, 15, 4}, "qwen3next"), 0u);
  EXPECT_EQ(own_engine_recurrent_checkpoints({0, 16, 0}, "lfm2"), 0u);
}

TEST(OllamaEngineCache, PaddingByRelease) {
  // CachePadding: 256 with flash attention at every release; without it 32
  // before v0.13.2 (7837a5bc7), 256 from it.
  EXPECT_EQ(own_engine_cache_padding({0, 11, 10}, true), 256u);
  EXPECT_EQ(own_engine_cache_padding({0, 11, 10}, false), 32u);
  EXPECT_EQ(own_engine_cache_padding({0, 13, 1}, false), 32u);
  EXPECT_EQ(own_engine_cache_padding({0, 13, 2}, false), 256u);
  EXPECT_EQ(own_engine_cache_padding(kPinnedRelease, false), 256u);
}

TEST(OllamaEngineCache, HostGraphIsTheTokenRows) {
  // gpt-oss-120b, every block on ROCm0: 4 x 2880 x 512 = 5,898,240 B =
  // 5.625 MiB, the print's 5.6 MiB (ollama-rocm4909-gpt-oss-120b-gfx1151-newengine).
  EXPECT_EQ(own_engine_host_graph_bytes(2880, 201088, 512, 1, false), 5898240u);
  // Qwen3 8B with the output layer on the host, 4 sequences: the rows
  // 4 x 4096 x 512 = 8 MiB over the outputs 4 x 4 x (4096 + 151936) =
  // 2,496,512 B: 8,388,608 B, the print's 8.0 MiB
  // (ollama-ragnaive-qwen3-8b-q4km-a5000-newengine).
  EXPECT_EQ(own_engine_host_graph_bytes(4096, 151936, 512, 4, true), 8388608u);
  // A small batch under a wide vocabulary: 4 x 2048 x 32 = 262,144 B of
  // rows; 4 x 4 x (2048 + 262144) = 4,227,072 B of outputs wins.
  EXPECT_EQ(own_engine_host_graph_bytes(2048, 262144, 32, 4, true), 4227072u);
  EXPECT_EQ(own_engine_host_graph_bytes(2048, 262144, 32, 4, false), 262144u);
}

TEST(OllamaEngineCache, ConfigModelTypeReadAsOllamasArchitecture) {
  EXPECT_EQ(ollama_architecture("qwen3_moe"), "qwen3moe");
  EXPECT_EQ(ollama_architecture("gpt_oss"), "gptoss");
  EXPECT_EQ(ollama_architecture("gemma3_text"), "gemma3");
  EXPECT_EQ(ollama_architecture("deepseek_v3"), "deepseek2");
  EXPECT_EQ(ollama_architecture("nomic_bert"), "nomic-bert");
  // A GGUF's architecture and an unlisted type stay as they are.
  EXPECT_EQ(ollama_architecture("qwen3moe"), "qwen3moe");
  EXPECT_EQ(ollama_architecture("llama"), "llama");
  // So a config-priced qwen3_moe or gpt_oss model runs on the own engine.
  EXPECT_TRUE(ollama_engine_required(ollama_architecture("qwen3_moe"), kPinnedRelease));
  EXPECT_TRUE(ollama_engine_required(ollama_architecture("gpt_oss"), kPinnedRelease));
  EXPECT_FALSE(ollama_engine_required(ollama_architecture("llama"), kPinnedRelease));
}

}  // namespace
}  // namespace memfit::ollama
