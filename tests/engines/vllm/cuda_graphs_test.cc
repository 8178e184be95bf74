// vLLM's CUDA graphs (engines/vllm/cuda_graphs.h): the graph counts as
// vLLM makes them from the settings, checked against the counts the
// corpus's logs print ("Profiling CUDA graph memory: PIECEWISE=N
// (largest=T), FULL=M"), and their memory at 256 KiB a layer and graph.
#include <gtest/gtest.h>

#include "engines/vllm/cuda_graphs.h"

namespace memfit {
namespace {

constexpr uint64_t kKiB = 1ull << 10;

ModelSpec layers(uint64_t n) {
  ModelSpec spec;
  spec.geometry.layers = n;
  return spec;
}

VllmSettings batch(uint64_t seqs, uint64_t batched_tokens) {
  VllmSettings s;
  s.max_num_seqs = seqs;
  s.max_num_batched_tokens = batched_tokens;
  return s;
}

TEST(VllmCudaGraphs, DefaultSmallGpuCaptures51PiecewiseAnd35Full) {
  // 256 sequences: largest min(2 x 256, 512, 2048) = 512. PIECEWISE: 1, 2,
  // 4 (3), 8 to 248 by 8 (31), 256 to 512 by 16 (17) = 51; FULL: the sizes
  // up to 256, 3 + 31 + 1 = 35 (tokenkaki's Qwen3-8B, v0.19.1, prints
  // PIECEWISE=51 (largest=512), FULL=35 (largest=256)). Qwen3-8B's 36
  // layers: 86 x 36 x 256 KiB = 811,597,824 B (0.76 GiB; that A100 printed
  // 2.35, the band's upper end).
  const VllmCudaGraphs g = vllm_cuda_graphs(layers(36), batch(256, 2048), VllmAccounting::kCurrent);
  EXPECT_EQ(g.piecewise, 51u);
  EXPECT_EQ(g.full, 35u);
  EXPECT_EQ(g.largest_tokens, 512u);
  EXPECT_EQ(g.bytes, 811597824u);
}

TEST(VllmCudaGraphs, LargeGpuDefaultCapturesFullGraphsUpTo512) {
  // 1024 sequences (an H100's default): largest 512, FULL sizes up to
  // min(512, 1024): 51 + 51 (foam's Qwen3.5-27B TP 4 prints PIECEWISE=51,
  // FULL=51). 64 layers: 102 x 64 x 256 KiB = 1,711,276,032 B (1.59 GiB,
  // as that run estimated).
  const VllmCudaGraphs g = vllm_cuda_graphs(layers(64), batch(1024, 8192), VllmAccounting::kCurrent);
  EXPECT_EQ(g.piecewise, 51u);
  EXPECT_EQ(g.full, 51u);
  EXPECT_EQ(g.bytes, 102u * 64 * 256 * kKiB);
  EXPECT_EQ(g.bytes, 1711276032u);
}

TEST(VllmCudaGraphs, FewSequencesCaptureFewGraphs) {
  // 16 sequences: largest 32, PIECEWISE 1, 2, 4, 8, 16, 24, 32 = 7, FULL
  // up to 16 = 5 (AutoScientists' Qwen3-Coder-30B-A3B prints PIECEWISE=7
  // (largest=32), FULL=5 (largest=16)); 48 layers: 12 x 48 x 256 KiB =
  // 150,994,944 B (144 MiB; the run estimated 0.15 GiB).
  const VllmCudaGraphs g = vllm_cuda_graphs(layers(48), batch(16, 8192), VllmAccounting::kCurrent);
  EXPECT_EQ(g.piecewise, 7u);
  EXPECT_EQ(g.full, 5u);
  EXPECT_EQ(g.largest_tokens, 32u);
  EXPECT_EQ(g.bytes, 150994944u);
  // 10 sequences: largest 20, PIECEWISE 1, 2, 4, 8, 16 = 5, FULL up to 10
  // = 4 (typhoon-ocr-7b prints PIECEWISE=5 (largest=16), FULL=4
  // (largest=8)); 64 sequences: largest 128, 3 + 16 = 19, FULL up to 64,
  // 3 + 8 = 11 (Qwen3-30B-A3B-FP8 at v0.22.1: PIECEWISE=19, FULL=11).
  const VllmCudaGraphs ten = vllm_cuda_graphs(layers(28), batch(10, 8192), VllmAccounting::kCurrent);
  EXPECT_EQ(ten.piecewise, 5u);
  EXPECT_EQ(ten.full, 4u);
  const VllmCudaGraphs sixty_four = vllm_cuda_graphs(layers(48), batch(64, 8192), VllmAccounting::kCurrent);
  EXPECT_EQ(sixty_four.piecewise, 19u);
  EXPECT_EQ(sixty_four.full, 11u);
  EXPECT_EQ(sixty_four.largest_tokens, 128u);
}

TEST(VllmCudaGraphs, BatchedTokensCapTheLargestSize) {
  // 1,024 sequences but 200 batched tokens: largest min(2,048, 512, 200)
  // = 200: 1, 2, 4 and 8 to 200 by 8 (25) = 28 PIECEWISE, and FULL up to
  // min(200, 1,024), the same 28. One sequence: largest 2, sizes 1 and 2;
  // FULL up to 1: one graph.
  const VllmCudaGraphs g = vllm_cuda_graphs(layers(1), batch(1024, 200), VllmAccounting::kV011);
  EXPECT_EQ(g.largest_tokens, 200u);
  EXPECT_EQ(g.piecewise, 28u);
  EXPECT_EQ(g.full, 28u);
  EXPECT_EQ(g.bytes, 56u * 256 * kKiB);
  const VllmCudaGraphs one = vllm_cuda_graphs(layers(1), batch(1, 2048), VllmAccounting::kCurrent);
  EXPECT_EQ(one.piecewise, 2u);
  EXPECT_EQ(one.full, 1u);
}

TEST(VllmCudaGraphs, EagerCapturesNoneAndV07KeepsItsGibibyte) {
  VllmSettings s = batch(256, 2048);
  s.enforce_eager = true;
  const VllmCudaGraphs eager = vllm_cuda_graphs(layers(36), s, VllmAccounting::kCurrent);
  EXPECT_EQ(eager.bytes, 0u);
  EXPECT_EQ(eager.piecewise + eager.full, 0u);
  const VllmCudaGraphs v07 = vllm_cuda_graphs(layers(36), batch(256, 2048), VllmAccounting::kV07);
  EXPECT_EQ(v07.bytes, kVllmCudaGraphBytes);
  EXPECT_EQ(v07.piecewise + v07.full, 0u);
}

}  // namespace
}  // namespace memfit
