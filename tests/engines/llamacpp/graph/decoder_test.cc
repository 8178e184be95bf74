// The replayed compute buffer (src/engines/llamacpp/graph/decoder.cc) on
// docs/validation-llamacpp.md's models. Every expected figure is the
// high-water mark the pinned library's own allocator reached for the same
// model and settings (its ggml-alloc.c, rebuilt with a print of every
// placement, under @node-llama-cpp/linux-x64@3.21.1's libllama; the layout
// at the peak is written out by hand beside each).
#include <gtest/gtest.h>

#include <string>

#include "memfit/llamacpp.h"
#include "support/corpus.h"
#include "support/llamacpp_replay.h"

namespace memfit {
namespace {

// `llama-dense`: 4 blocks, hidden 512, 8 heads / 2 KV heads of 64, FFN
// 1536, vocabulary 32000.
ModelSpec validation_llama(std::string arch = "llama") {
  ModelSpec s;
  s.model_type = std::move(arch);
  s.geometry = {4, 512, 8, 2, 64, 1536, 32000};
  s.max_position_tokens = 8192;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  return s;
}

// One hidden row set of n tokens: 4 x 512 x n bytes.
constexpr uint64_t rows(uint64_t n) { return 4 * 512 * n; }

TEST(LlamaCppGraphReplay, TheLogitsSitOnTwoRowsAndTheTokenIdsHole) {
  // -c 4096 -ub 512, flash attention, f16 cache (measured 64.50 MiB): at
  // the peak only the logits 4 x 32000 x 512 = 65,536,000 are placed, above
  // the freed token ids' 4 x 512 = 2,048 B at 0 (too small to take them),
  // inp_embd (never read, never freed) and the last l_out that the final
  // norm and result_norm reuse in place, 2 x 1,048,576:
  // 2,048 + 2,097,152 + 65,536,000 = 67,635,200.
  LlamaCppEstimate e = run_llamacpp(validation_llama(), llamacpp_settings(4096, 1, 512, FlashAttn::kOn));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2048u + 2 * rows(512) + 65536000u);
  // Without flash attention the same (its scores, 4 x 1024 x 512 x 8 =
  // 16 MiB a layer at -c 1000, stay below the logits).
  EXPECT_EQ(run_llamacpp(validation_llama(),
                         llamacpp_settings(1000, 1, 512, FlashAttn::kOff)).compute_bytes, 67635200u);
  // qwen3moe's graph has the same output phase.
  ModelSpec moe = validation_llama("qwen3moe");
  moe.moe = MoeInfo{8, 2, 0, 256};
  EXPECT_EQ(run_llamacpp(moe, llamacpp_settings(4096, 1, 512, FlashAttn::kOn)).compute_bytes, 67635200u);
}

TEST(LlamaCppGraphReplay, RotatedQuantizedKeysMoveTheLastResidualUp) {
  // -c 2048 -np 2 -ub 1024, no flash attention, q8_0 K (measured 131.00
  // MiB): K is rotated (Hadamard 64 x 64 input), which changes the holes the
  // layers leave: the last layer's residual ffn_inp lands directly above
  // inp_embd and the FFN output, l_out and the final norm one row higher;
  // the residual's row is freed after them and stays a hole under the
  // logits: 4,096 (token ids) + 3 x 2,097,152 + 4 x 32000 x 1024 =
  // 137,367,552.
  LlamaCppSettings s = llamacpp_settings(2048, 2, 1024, FlashAttn::kOff, GgmlType::kQ8_0, GgmlType::kF16);
  EXPECT_EQ(run_llamacpp(validation_llama(), s).compute_bytes, 4096u + 3 * rows(1024) + 131072000u);
  // The same one row higher with both caches q8_0 and flash attention at
  // -c 8192 -np 4 -ub 256 (measured 32.75 MiB): 1,024 + 3 x 524,288 + 4 x
  // 32000 x 256 = 34,341,888.
  s = llamacpp_settings(8192, 4, 256, FlashAttn::kOn, GgmlType::kQ8_0, GgmlType::kQ8_0);
  EXPECT_EQ(run_llamacpp(validation_llama(), s).compute_bytes, 1024u + 3 * rows(256) + 32768000u);
}

TEST(LlamaCppGraphReplay, AQuantizedCacheBeforeTheRotationsIsTheUnquantizedGraph) {
  // Before #21038 (memfit takes b8621) a q8_0 K cache adds no Hadamard
  // input or product: b8600 at -c 1000 -ub 512 without flash attention (no
  // mask cast there) is the f16 graph of the first test, the logits above
  // the token ids' hole and two rows: 2,048 + 2 x 1,048,576 + 65,536,000 =
  // 67,635,200.
  LlamaCppSettings s = llamacpp_settings(1000, 1, 512, FlashAttn::kOff, GgmlType::kQ8_0, GgmlType::kF16);
  s.build = 8600;
  const LlamaCppEstimate e = run_llamacpp(validation_llama(), s);
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2048u + 2 * rows(512) + 65536000u);
  // From b8621 the cache is rotated, and a build before b9444 keeps the
  // phases (the rotations are the pinned build's).
  s.build = 8621;
  EXPECT_FALSE(run_llamacpp(validation_llama(), s).compute_replayed);
}

TEST(LlamaCppGraphReplay, ScoresWithoutFlashAttention) {
  // -c 12000 -ub 1024, no flash attention (measured 434.02 MiB; the phase
  // model said 455,081,984): 12032 cells. The peak is layer 0's scores,
  // 4 x 12032 x 1024 x 8 = 394,264,576 (the softmax runs in place), placed
  // above: the freed token ids' hole 4,096, inp_embd 2,097,152, positions
  // 4,096, K row indices 8 x 1024 = 8,192, V element indices 8 x 1024 x 128
  // = 1,048,576, the f32 mask 4 x 12032 x 1024 = 49,283,072, output ids
  // 4,096, embd 2,097,152, two freed rows (the attention norm and Q before
  // RoPE, 2 x 2,097,152; K and V were stored and freed inside them) and the
  // roped Q 2,097,152:
  // 4,096 + 2,097,152 + 4,096 + 8,192 + 1,048,576 + 49,283,072 + 4,096
  // + 2,097,152 + 4,194,304 + 2,097,152 + 394,264,576 = 455,102,464.
  EXPECT_EQ(run_llamacpp(validation_llama(),
                         llamacpp_settings(12000, 1, 1024, FlashAttn::kOff)).compute_bytes,
            4096u + 2097152u + 4096u + 8192u + 1048576u + 49283072u + 4096u + 2097152u + 4194304u +
                2097152u + 394264576u);
}

TEST(LlamaCppGraphReplay, RoutedExpertsPeakInTheFirstLayersFfn) {
  // `qwen3moe-wide`: 16 experts, 8 used, 512 wide, vocabulary 8000. -c 4096
  // -ub 512, flash attention (measured 32.01 MiB): the peak is layer 0's
  // gate, up and SwiGLU, each 4 x 512 x 8 x 512 = 8,388,608, above the
  // inputs (2,048 token ids + 1,048,576 inp_embd + 2,048 positions + 2 x
  // 4,096 KV indices + 2 x 4096 x 512 f16 mask + 2,048 output ids =
  // 5,257,216) and three rows: the FFN norm, the router's hole and the
  // residual: 5,257,216 + 3 x 1,048,576 + 3 x 8,388,608 = 33,568,768.
  ModelSpec spec = validation_llama("qwen3moe");
  spec.geometry.vocab = 8000;
  spec.geometry.intermediate = 4096;
  spec.moe = MoeInfo{16, 8, 0, 512};
  EXPECT_EQ(run_llamacpp(spec, llamacpp_settings(4096, 1, 512, FlashAttn::kOn)).compute_bytes,
            5257216u + 3 * rows(512) + 3 * 8388608u);
}

TEST(LlamaCppGraphReplay, OtherModelsKeepThePhaseModel) {
  // An architecture without a graph builder, a sliding-window layer, an f32
  // cache under flash attention (llama.cpp casts it: not in the graph) and
  // GPU placement all keep the modelled phases.
  LlamaCppSettings s = llamacpp_settings(4096, 1, 512, FlashAttn::kOn);
  EXPECT_FALSE(run_llamacpp(validation_llama("phi2"), s).compute_replayed);
  ModelSpec swa = validation_llama();
  swa.layers[0].kind = LayerKind::kSlidingWindow;
  swa.layers[0].window_tokens = 512;
  EXPECT_FALSE(run_llamacpp(swa, s).compute_replayed);
  EXPECT_FALSE(run_llamacpp(validation_llama(),
                            llamacpp_settings(4096, 1, 512, FlashAttn::kOn, GgmlType::kF32, GgmlType::kF32))
                   .compute_replayed);
  EXPECT_TRUE(run_llamacpp(validation_llama(),
                           llamacpp_settings(4096, 1, 512, FlashAttn::kOff, GgmlType::kF32, GgmlType::kF32))
                  .compute_replayed);
  // A graph whose tensors would be sized from absurd header fields is not
  // built: 1000 layers of 1000 experts used (1000 x (48 + 32 + 2000)
  // tensors, past 2^17).
  ModelSpec absurd = validation_llama("qwen3moe");
  absurd.layers.assign(1000, LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  absurd.moe = MoeInfo{1000, 1000, 0, 8};
  EXPECT_FALSE(run_llamacpp(absurd, s).compute_replayed);
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

TEST(LlamaCppGraphReplay, TheSyntheticLlamaOfTheRulesDoc) {
  // docs/llamacpp-rules.md's hidden-256 llama (8 heads / 2 KV heads of 32,
  // FFN 512, vocabulary 32000), measured on the pinned library at 63.50 and
  // 67.00 MiB, where the phase model said 64.00 both times.
  ModelSpec s;
  s.model_type = "llama";
  s.geometry = {4, 256, 8, 2, 32, 512, 32000};
  s.max_position_tokens = 4096;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0});
  // -c 512, flash attention: the logits 4 x 32000 x 512 = 65,536,000 over
  // the token ids' hole 2,048, inp_embd and the last l_out (2 x 4 x 256 x
  // 512 = 1,048,576): 66,586,624 = 63.50 MiB.
  EXPECT_EQ(run_llamacpp(s,
                         llamacpp_settings(512, 1, 512, FlashAttn::kOn))
                        .compute_bytes, 2048u + 1048576u + 65536000u);
  // -c 4096, q8_0 cache (head 32: not rotated): the last l_out lands at
  // 4,196,352, above the hole the freed f16 mask (2 x 4096 x 512 =
  // 4,194,304) and indices left, so the logits start at 4,196,352 + 524,288
  // = 4,720,640: 4,720,640 + 65,536,000 = 70,256,640 = 67.00 MiB.
  EXPECT_EQ(run_llamacpp(s,
                         llamacpp_settings(4096, 1, 512, FlashAttn::kOn, GgmlType::kQ8_0, GgmlType::kQ8_0))
                        .compute_bytes,
            4196352u + 524288u + 65536000u);
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

TEST(LlamaCppGraphReplay, ABuildBefore18898EndsInTheLogitsAboveOneRow) {
  // `llama-dense` (4 blocks, hidden 512, 8 heads / 2 KV heads of 64, FFN
  // 1536, vocabulary 32000) on the host at b7108 (the build Ollama 0.13.2
  // to 0.24 vendors: no vector-input leaf, an F32 mask cast in the graph),
  // flash attention, -c 4096 -ub 512. `inp_embd` is the token path's
  // get_rows, freed after block 0, and every input (token ids, positions,
  // KV indices, the mask, out_ids) is freed by the last block, so the
  // bottom of the buffer is one free block: the last FFN's norm lands at 0,
  // its down projection at 0 once the norm is freed, l_out and result_norm
  // in place there, and the logits right above it:
  // 4 x 512 x 512 + 4 x 512 x 32000 = 1,048,576 + 65,536,000 = 66,584,576.
  // The phases' host tail kept two rows (67,633,152): the pinned graph's
  // never-freed inp_embd leaf is the second. Ollama 0.16.3's TinyLlama CPU
  // log prints 66.50 MiB = 4 x 512 x (32000 + 2048) the same way
  // (tests/data/logs/ollama/ollama-msjarvis-tinyllama-q4_0-cpu-v0163).
  ModelSpec s;
  s.model_type = "llama";
  s.geometry = {4, 512, 8, 2, 64, 1536, 32000};
  s.max_position_tokens = 8192;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  LlamaCppSettings st = llamacpp_settings(4096, 1, 512, FlashAttn::kOn);
  st.build = 7108;
  const LlamaCppEstimate e = run_llamacpp(s, st);
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 1048576u + 65536000u);
}

}  // namespace
}  // namespace memfit
namespace memfit {
namespace {

TEST(LlamaCppGraphReplay, Phi3sFusedQkvAndMergedUpPeakInBlockZerosFfn) {
  // A phi3 shape (4 blocks, hidden 512, 8 heads / 8 KV heads of 64, FFN
  // 1536, vocabulary 2000, so the logits, 4,096,000, are no peak) on the
  // host at b7108, flash attention, -c 4096 -ub 512. Inputs: token ids
  // 2,048 at 0, positions 2,048, k_idxs and v_idxs 4,096 each, the F32 mask
  // 4 x 4096 x 512 = 8,388,608 at 12,288, out_ids 2,048, inp_embd
  // 1,048,576 at 8,402,944 (to 9,451,520). Block 0: the norm at 9,451,520,
  // the one QKV product 4 x 512 x (8 + 2 x 8) x 64 = 3,145,728 above it
  // (to 13,645,824); the roped Q (a RoPE over a view runs out of place)
  // takes the freed norm's place and is scaled in place, the roped K goes
  // on top, 1,048,576 to 14,694,400. K stored and the product freed after
  // V's store (V is a view of it), the mask's F16 cast (4,194,304) fits
  // their 4 MiB hole exactly and the F32 mask is freed. The attention
  // lands in the mask's old place, its projection and ffn_inp in Q's, the
  // FFN norm in inp_embd's, the merged up product 4 x 512 x 3072 =
  // 6,291,456 at 12,288; the SwiGLU, 3,145,728, fits no hole (2,097,152
  // is left above the up product) and goes on top:
  // 14,694,400 + 3,145,728 = 17,840,128.
  ModelSpec s;
  s.model_type = "phi3";
  s.geometry = {4, 512, 8, 8, 64, 1536, 2000};
  s.max_position_tokens = 8192;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 1024, 0, 0, 0});
  LlamaCppSettings st = llamacpp_settings(4096, 1, 512, FlashAttn::kOn);
  st.build = 7108;
  const LlamaCppEstimate e = run_llamacpp(s, st);
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 14694400u + 3145728u);
}

TEST(LlamaCppGraphReplay, Phi3BeforeTheQkViewsCopiesQAndKOutOfTheProduct) {
  // The phi3 shape above on the host, no flash attention, -c 512 -ub 512;
  // R = 4 x 512 x 512 = 1,048,576 (one row set, Q, K or V, the mask).
  // Inputs: token ids 2,048 at 0, positions 2,048, the F32 mask R at
  // 4,096, out_ids 2,048; the embeddings R at 1,054,720, to B = 2,103,296
  // (the token ids freed: a 2,048 hole at 0). Block 0: the norm at B, the
  // QKV product 3R at B + R.
  ModelSpec s;
  s.model_type = "phi3";
  s.geometry = {4, 512, 8, 8, 64, 1536, 2000};
  s.max_position_tokens = 8192;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 1024, 0, 0, 0});
  constexpr uint64_t R = 1048576;
  constexpr uint64_t B = 2103296;
  LlamaCppSettings st = llamacpp_settings(512, 1, 512, FlashAttn::kOff);
  // b5836 (#14568): Q and K are views. Q's RoPE takes the freed norm's
  // place B and is scaled there; V's copy (a ggml_cont until #15662) at
  // B + 4R, K's RoPE at B + 5R; the product, K and V freed after their
  // stores leave B + R free to the end: the scores, 4 x 512 x 512 x 8 =
  // 8R, land at B + R, below the peak, which is block 0's FFN: the up
  // product 6R at B + R, the SwiGLU 3R above it, B + 10R = 12,589,056.
  st.build = 5836;
  LlamaCppEstimate e = run_llamacpp(s, st);
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, B + 10 * R);
  // b5835: Q and K are ggml_conts of 2-D views too. Q's copy takes B, its
  // RoPE goes on top at B + 4R (the copy freed, the scale in place there);
  // V's copy takes B, K's copy B + 5R, K's RoPE the freed product's B + R.
  // After the stores B to B + 4R is free, 4R, under Q at B + 4R: the
  // scores, 8R, go above Q, from B + 5R: B + 13R = 15,734,784.
  st.build = 5835;
  e = run_llamacpp(s, st);
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, B + 13 * R);
}

}  // namespace
}  // namespace memfit
