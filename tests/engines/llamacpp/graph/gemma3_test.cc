// The replayed compute buffer of Gemma 3 (src/engines/
// llamacpp/graph/gemma3.cc) on docs/validation-llamacpp.md's gemma3-swa.
// Every expected figure is the high-water mark the pinned library's own
// allocator reached for the same model and settings (its ggml-alloc.c,
// rebuilt with a print of every placement, under
// @node-llama-cpp/linux-x64@3.21.1's libllama, swa_full as stated); the
// layout at the peak is written out by hand beside each.
#include <gtest/gtest.h>

#include "memfit/llamacpp.h"

#include "support/llamacpp_replay.h"

namespace memfit {
namespace {

// `gemma3-swa`: 6 blocks, the first five a window of 256, the last
// global; hidden 512, 4 heads / 1 KV head of 128, FFN 1536, vocabulary
// 32000.
ModelSpec validation_gemma3(const char* arch = "gemma3") {
  ModelSpec s;
  s.model_type = arch;
  s.geometry = {6, 512, 4, 1, 128, 1536, 32000};
  s.max_position_tokens = 32768;
  s.layers.assign(5, LayerCache{LayerKind::kSlidingWindow, 256, 0, 256, 0});
  s.layers.push_back(LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  return s;
}

TEST(LlamaCppGraphGemma3, TheLogitsSitAboveTheEmbeddingsAndTheLastRow) {
  // -c 4096 -ub 512, flash attention, f16 cache (measured 64.50 MiB): at
  // the peak the logits 4 x 32000 x 512 = 65,536,000 sit above the freed
  // token ids' 4 x 512 = 2,048 at 0, inp_embd (placed, never read) and the
  // last FFN output that the post-FFN norm, l_out, the final norm and
  // result_norm reuse in place, 2 x 4 x 512 x 512:
  // 2,048 + 2 x 1,048,576 + 65,536,000 = 67,635,200.
  LlamaCppEstimate e = run_llamacpp(validation_gemma3(), llamacpp_settings(4096, 1, 512, FlashAttn::kOn));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2048u + 2 * 1048576u + 65536000u);
  // config.json's gemma3_text is the same graph; --swa-full (every cache
  // 8192 / 2 = 4096 cells, scores 4 x 4096 x 512 x 4 = 32 MiB) stays
  // below the logits too (measured 64.50 MiB at -c 8192 -np 2, no flash
  // attention).
  LlamaCppSettings full = llamacpp_settings(8192, 2, 512, FlashAttn::kOff);
  full.swa_full = true;
  EXPECT_EQ(run_llamacpp(validation_gemma3("gemma3_text"), full).compute_bytes, 67635200u);
  // -c 2048 -np 2 -ub 1024, no flash attention, q8_0 K (measured 129.00
  // MiB): the same three at 1024 rows, the rotation of K changing nothing:
  // 4,096 + 2 x 2,097,152 + 131,072,000 = 135,270,400.
  LlamaCppSettings q8 = llamacpp_settings(2048, 2, 1024, FlashAttn::kOff, GgmlType::kQ8_0, GgmlType::kF16);
  EXPECT_EQ(run_llamacpp(validation_gemma3(), q8).compute_bytes, 4096u + 2 * 2097152u + 131072000u);
}

TEST(LlamaCppGraphGemma3, TheGlobalLayersScoresOverEveryInput) {
  // -c 12000 -ub 1024, no flash attention (measured 246.03 MiB; the phase
  // model said 257,949,696): 12032 base cells, min(12032, 256 + 1024) =
  // 1280 sliding-window cells. Every input is placed first, in the order
  // the graph reads it: token ids 4,096, inp_embd 2,097,152, positions
  // 4,096; the window cache's K row indices 8 x 1024 = 8,192, V element
  // indices 8 x 1024 x 128 = 1,048,576, f32 mask 4 x 1280 x 1024 =
  // 5,242,880; the base cache's the same with its mask 4 x 12032 x 1024 =
  // 49,283,072; output ids 4,096: 58,748,928. The peak is the global
  // layer's scores, 4 x 12032 x 1024 x 4 heads = 197,132,288 (the softmax
  // runs in place), right above its scaled Q, 2,097,152, which took the
  // first row above the inputs: 58,748,928 + 2,097,152 + 197,132,288 =
  // 257,978,368.
  LlamaCppEstimate e = run_llamacpp(validation_gemma3(), llamacpp_settings(12000, 1, 1024, FlashAttn::kOff));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 58748928u + 2097152u + 197132288u);
  // --swa-full at the same settings (measured 294.03 MiB): the window
  // cache has 12032 cells too, its mask 49,283,072 instead of 5,242,880, so
  // the inputs take 102,789,120, and the peak is the first window layer's
  // scores, the same 197,132,288, above the inputs, the scaled embeddings
  // 2,097,152, two freed rows (its attention norm and unnormed Q, 2 x
  // 2,097,152) and its scaled Q 2,097,152: 102,789,120 + 4 x 2,097,152 +
  // 197,132,288 = 308,310,016.
  LlamaCppSettings full = llamacpp_settings(12000, 1, 1024, FlashAttn::kOff);
  full.swa_full = true;
  EXPECT_EQ(run_llamacpp(validation_gemma3(), full).compute_bytes, 102789120u + 4 * 2097152u + 197132288u);
}

TEST(LlamaCppGraphGemma3, TwoStreamsScoresAboveTheFreedWindowInputs) {
  // -c 16384 -np 2 -ub 128, no flash attention (measured 21.50 MiB): two
  // streams of 8192 base cells, min(8192, 256 + 128) = 384 -> 512 window
  // cells, 64 rows a stream. Layout at the peak, the global layer's
  // scores 4 x 8192 x 64 x 4 heads x 2 streams = 16,777,216: the freed
  // token ids 512; inp_embd 4 x 512 x 128 = 262,144; the freed positions,
  // window and base K/V indices and window mask (512 + 2 x (1,024 +
  // 131,072) + 4 x 512 x 64 x 2 = 526,848); the base mask 4 x 8192 x 64 x
  // 2 = 4,194,304; output ids 512; the last residual 262,144; a freed row
  // 262,144; the scaled Q 262,144:
  // 512 + 262,144 + 526,848 + 4,194,304 + 512 + 3 x 262,144 + 16,777,216
  // = 22,547,968.
  LlamaCppEstimate e = run_llamacpp(validation_gemma3(), llamacpp_settings(16384, 2, 128, FlashAttn::kOff));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 512u + 262144u + 526848u + 4194304u + 512u + 3 * 262144u + 16777216u);
}

TEST(LlamaCppGraphGemma3, AnF32CacheUnderFlashAttentionKeepsThePhaseModel) {
  // Flash attention casts an f32 cache to f16 first, copies this graph
  // does not hold.
  LlamaCppSettings s = llamacpp_settings(2000, 1, 256, FlashAttn::kOn, GgmlType::kF32, GgmlType::kF32);
  EXPECT_FALSE(run_llamacpp(validation_gemma3(), s).compute_replayed);
}

}  // namespace
}  // namespace memfit
