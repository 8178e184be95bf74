// vllm_param_allocations() and vllm_cuda_allocated_slack()
// (docs/engine-vllm.md, "The allocator's rounding"): what PyTorch's
// allocated-bytes counter holds past vLLM's parameters on CUDA, worked by
// hand on real geometries.
#include <gtest/gtest.h>

#include <vector>

#include "engines/vllm/allocations.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// Qwen2-7B's (and Qwen2.5-7B's) text model: hidden 3,584, 28 layers, 28
// heads and 4 KV heads of 128, intermediate 18,944, vocabulary 152,064
// untied, 32,768 positions.
ModelSpec qwen2_7b() {
  ModelSpec spec;
  spec.layout = "standard";
  spec.geometry.hidden = 3584;
  spec.geometry.heads = 28;
  spec.geometry.kv_heads = 4;
  spec.geometry.head_dim = 128;
  spec.geometry.intermediate = 18944;
  spec.geometry.vocab = 152064;
  spec.tied_embeddings = false;
  spec.max_position_tokens = 32768;
  spec.layers.assign(28, LayerCache{});
  for (LayerCache& l : spec.layers) l.kind = LayerKind::kFullAttention;
  return spec;
}

TEST(VllmAllocations, ALargeParameterHoldsItsBlockWhenTheRoundingLeavesAMebibyteOrLess) {
  // A layer: qkv_proj (28 + 8) x 128 x 3,584 x 2 B = 31.5 MiB takes a 32
  // MiB segment, 0.5 MiB left: whole, +524,288. o_proj 24.5 MiB takes 26,
  // 1.5 MiB left: split, +0. gate_up_proj 37,888 x 3,584 x 2 B = 259 MiB
  // takes 260, 1 MiB left (not more): whole, +1,048,576. down_proj 129.5
  // MiB takes 130: +524,288. 2 MiB a layer x 28 = 58,720,256. The two
  // vocabulary tables, 152,064 x 3,584 x 2 B = 1,039.5 MiB each: +524,288
  // each. The norms (7,168 B) are 512 B multiples; the rope cache, 32,768 x
  // 128 x 2 B = 8 MiB, shares a 20 MiB segment. 58,720,256 + 1,048,576 =
  // 59,768,832 B, 57 MiB (vllm-dennislee-qwen2-7b's A100 run printed 57.4
  // MiB more than the tensors).
  const ModelSpec spec = qwen2_7b();
  EXPECT_EQ(vllm_cuda_allocated_slack(vllm_param_allocations(spec, 1, {})), 59768832u);
}

TEST(VllmAllocations, Gemma3OneBillionsDownProjectionsHoldTheirBlocks) {
  // gemma-3-1b-it: 26 layers, hidden 1,152, intermediate 6,912. down_proj
  // 6,912 x 1,152 x 2 B = 15.1875 MiB takes 16, 0.8125 MiB left: whole,
  // +851,968 a layer; gate_up_proj 30.375 MiB takes 32, 1.625 left: split.
  // qkv_proj (4 + 2) x 256 x 1,152 x 2 B and o_proj are under 10 MiB; the
  // tied table 262,144 x 1,152 x 2 B = 576 MiB and each 16 MiB rope cache
  // are whole 2 MiB. The 53 norms of 2,304 B take 2,560 each (+256). 26 x
  // 851,968 + 53 x 256 = 22,164,736 B (Eole's vLLM 0.13 run printed 21.6
  // MiB past the tensors and both rope caches).
  const ModelSpec spec = testing::corpus_spec("gemma3/gemma-3-1b-it");
  EXPECT_EQ(vllm_cuda_allocated_slack(vllm_param_allocations(spec, 1, {})), 22164736u);
}

TEST(VllmAllocations, SmallRequestsRoundToFiveHundredTwelveBytes) {
  // 1,000 B takes 1,024 (24 over) twice; 9 MiB + 1 B, under 10 MiB, takes
  // a 512 B multiple of a shared segment (511 over); 10 MiB exactly is a
  // whole 2 MiB multiple (0 over).
  const std::vector<VllmAllocation> a = {{1000, 2}, {9 * kMiB + 1, 1}, {10 * kMiB, 1}};
  EXPECT_EQ(vllm_cuda_allocated_slack(a), 48u + 511u);
}

TEST(VllmAllocations, QuantizedAndHybridModelsAreNotPriced) {
  ModelSpec quantized = qwen2_7b();
  quantized.quantization.method = "awq";
  EXPECT_TRUE(vllm_param_allocations(quantized, 1, {}).empty());
  ModelSpec hybrid = qwen2_7b();
  hybrid.layout = "hybrid";
  EXPECT_TRUE(vllm_param_allocations(hybrid, 1, {}).empty());
}

}  // namespace
}  // namespace memfit
