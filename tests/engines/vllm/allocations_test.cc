// vllm_param_allocations() and vllm_cuda_allocated_slack()
// (docs/engine-vllm.md, "The allocator's rounding"): what PyTorch's
// allocated-bytes counter holds past vLLM's parameters on CUDA, worked by
// hand on real geometries.
#include <gtest/gtest.h>

#include <vector>

#include "engines/vllm/allocations.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kMiB;

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

TEST(VllmAllocations, QuantizedAndMambaHybridModelsAreNotPriced) {
  ModelSpec quantized = qwen2_7b();
  quantized.quantization.method = "awq";
  EXPECT_TRUE(vllm_param_allocations(quantized, 1, {}).empty());
  // A hybrid without gated delta nets (a Mamba hybrid's mixers are not
  // listed).
  ModelSpec hybrid = qwen2_7b();
  hybrid.layout = "hybrid";
  EXPECT_TRUE(vllm_param_allocations(hybrid, 1, {}).empty());
}

TEST(VllmAllocations, Qwen35GatedDeltaHybridHoldsItsBlocksAtTensorParallelFour) {
  // Qwen3.5-27B at TP 4 (hidden 5,120, a row 10,240 B; 64 layers, 16 of
  // them full attention, 48 gated delta nets):
  //   qkv_proj, gated: (24 / 4 x 2 + 2 x 1 KV head) x 256 = 3,584 rows,
  //     35 MiB, takes 36 (1 MiB left: whole): +1 MiB x 16 layers
  //   o_proj 1,536 rows x 10,240 = 15 MiB, takes 16: +1 MiB x 16
  //   in_proj_qkvz (2 x 2,048 + 2 x 6,144) / 4 = 4,096 rows = 40 MiB,
  //     in_proj_ba 24 rows = 245,760 B and conv1d 2,560 x 4 x 2 B = 20,480
  //     B: multiples of 512, +0
  //   dt_bias 12 x 2 B = 24 -> 512 (+488), A_log 12 x 4 B = 48 -> 512
  //     (+464), the gated norm 128 x 2 B = 256 -> 512 (+256)
  //   out_proj [5,120, 1,536] = 15 MiB, takes 16: +1 MiB
  //     a gated delta layer: 1,048,576 + 488 + 464 + 256 = 1,049,784, x 48
  //   gate_up_proj 2 x 4,352 x 10,240 = 85 MiB, takes 86: +1 MiB x 64;
  //     down_proj 42.5 MiB takes 44, 1.5 left: split, +0
  //   the tables 62,080 rows = 606.25 MiB (1.75 left: split), the norms
  //     (20 x 512 B) and the 128 MiB rope cache: +0
  // 32 MiB + 48 x 1,049,784 + 64 MiB = 33,554,432 + 50,389,632 +
  // 67,108,864 = 151,052,928 B (vllm-neverfiles-foam-qwen35-27b-tp4's v0.19
  // run printed 148.6 MiB, 155,796,370 B, past the tensors memfit splits,
  // at the print's 0.01 GiB).
  const ModelSpec spec = testing::corpus_spec("qwen3_5/Qwen3.5-27B");
  EXPECT_EQ(vllm_cuda_allocated_slack(vllm_param_allocations(spec, 4, {})), 151052928u);
}

TEST(VllmAllocations, GatedAttentionDoublesTheQueryRowsOfQkvProj) {
  // Qwen3.5-27B at TP 1: qkv_proj (24 x 2 + 2 x 4) x 256 x 10,240 B =
  // 140 MiB (a 2 MiB multiple, +0), where without the gate (24 + 8) x 256
  // rows = 80 MiB (+0) too: the allocation itself says which.
  ModelSpec spec = testing::corpus_spec("qwen3_5/Qwen3.5-27B");
  ASSERT_TRUE(spec.attention_output_gate);
  EXPECT_EQ(vllm_param_allocations(spec, 1, {}).front().bytes.saturated(), 146800640u);
  spec.attention_output_gate = false;
  EXPECT_EQ(vllm_param_allocations(spec, 1, {}).front().bytes.saturated(), 83886080u);
}

// TinyLlama-1.1B-Chat-v1.0 as vLLM loads it under bitsandbytes 4-bit:
// hidden 2,048, 22 layers, 32 heads and 4 KV heads of 64, intermediate
// 5,632, vocabulary 32,000 untied, 2,048 positions.
ModelSpec tinyllama_bnb4() {
  ModelSpec spec;
  spec.layout = "standard";
  spec.geometry.hidden = 2048;
  spec.geometry.heads = 32;
  spec.geometry.kv_heads = 4;
  spec.geometry.head_dim = 64;
  spec.geometry.intermediate = 5632;
  spec.geometry.vocab = 32000;
  spec.tied_embeddings = false;
  spec.max_position_tokens = 2048;
  spec.layers.assign(22, LayerCache{});
  for (LayerCache& l : spec.layers) l.kind = LayerKind::kFullAttention;
  spec.quantization.method = "bitsandbytes";
  spec.quantization.bits = 4;
  spec.quantization.double_quant = true;
  return spec;
}

TEST(VllmAllocations, BitsAndBytesFourBitPacksEachLinearLayerIntoOneByteParameter) {
  // create_qweight_for_4bit: uint8 [input x output / 2, 1] per fused layer.
  //   qkv_proj (32 + 2 x 4) x 64 x 2,048 / 2 = 2,621,440 B (2.5 MiB) and
  //   o_proj 2,048 x 2,048 / 2 = 2,097,152 B: under 10 MiB, 512 B
  //   multiples, +0; down_proj 5,632 x 2,048 / 2 = 5,767,168 B (5.5 MiB):
  //   +0
  //   gate_up_proj 2 x 5,632 x 2,048 / 2 = 11,534,336 B = 11 MiB takes a
  //   12 MiB segment, 1 MiB left (not more): whole, +1,048,576 x 22 layers
  //   the two 16-bit tables 32,000 x 2,048 x 2 B = 131,072,000 B = 125 MiB
  //   take 126, 1 MiB left: whole, +1,048,576 each
  //   the norms (4,096 B) and the rope cache (2,048 x 64 x 2 B = 256 KiB):
  //   512 B multiples, +0
  // 24 x 1,048,576 = 25,165,824 B. Captain-Jay29/vllm's v0.8.3 run (in-flight
  // NF4) printed 0.7318 GiB, 785,764,267 B, 23,356,331 past memfit's
  // 762,407,936 B of tensors: 1.0023 of the print with it, 0.9703 without.
  const ModelSpec spec = tinyllama_bnb4();
  const std::vector<VllmAllocation> a = vllm_param_allocations(spec, 1, {});
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a[0].bytes.saturated(), 2621440u);  // qkv_proj
  EXPECT_EQ(vllm_cuda_allocated_slack(a), 25165824u);
}

TEST(VllmAllocations, BitsAndBytesEightBitMoeAndSkippedModulesAreNotPriced) {
  ModelSpec eight = tinyllama_bnb4();
  eight.quantization.bits = 8;
  EXPECT_TRUE(vllm_param_allocations(eight, 1, {}).empty());
  ModelSpec skipped = tinyllama_bnb4();
  skipped.quantization.unquantized_modules = {"model.layers.0.mlp.down_proj"};
  EXPECT_TRUE(vllm_param_allocations(skipped, 1, {}).empty());
  skipped.quantization.unquantized_modules = {"lm_head"};  // 16-bit anyway
  EXPECT_FALSE(vllm_param_allocations(skipped, 1, {}).empty());
  ModelSpec moe = tinyllama_bnb4();
  moe.moe.experts = 8;
  EXPECT_TRUE(vllm_param_allocations(moe, 1, {}).empty());
}

}  // namespace
}  // namespace memfit
