// What an SGLang rank holds past the checkpoint's tensors (held_weights.h)
// and an MLA model's allocator rounding (allocator_rounding.h), worked by
// hand for DeepSeek-V3 / R1 at TP 16, the geometry of the never-seen
// sglang-neverlogs11-slurmv4-r1-tp16-{prefill,decode}-h100 rows.
#include <gtest/gtest.h>

#include "engines/sglang/allocator_rounding.h"
#include "engines/sglang/held_weights.h"
#include "support/corpus.h"

namespace memfit::sglang {
namespace {

TEST(SglangHeldWeights, AbsorbedKvBIsKvBProjsRankShareAtTheCopysWidth) {
  // DeepSeek-V3: 61 MLA layers, 128 heads / 16 = 8 a rank, qk_nope 128 +
  // v_head 128 rows a head, kv_lora_rank 512 columns: 8 x 256 x 512 =
  // 1,048,576 elements a layer. CUDA dequantizes the FP8 128 x 128 blocks
  // to bf16: 2 B -> 2 MiB a layer x 61 = 127,926,272 B.
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_EQ(absorbed_kv_b_bytes(v3, 16, /*rocm=*/false), 127'926'272u);
  // ROCm requantizes per tensor: 1 B, 63,963,136 B.
  EXPECT_EQ(absorbed_kv_b_bytes(v3, 16, /*rocm=*/true), 63'963'136u);
  // A 16-bit checkpoint's copies are 16-bit on either platform.
  ModelSpec bf16 = v3;
  bf16.quantization = {};
  EXPECT_EQ(absorbed_kv_b_bytes(bf16, 16, /*rocm=*/true), 127'926'272u);
  // At attention TP 8 (16 heads a rank) twice as much: 255,852,544 B.
  EXPECT_EQ(absorbed_kv_b_bytes(v3, 8, /*rocm=*/false), 255'852'544u);
  // No MLA, no copies.
  EXPECT_EQ(absorbed_kv_b_bytes(testing::corpus_spec("llama3/Meta-Llama-3.1-8B"), 1, false), 0u);
}

TEST(SglangHeldWeights, DeepEpHoldsTheSharedExpertWholeOnEveryRank) {
  // DeepSeek-V3 FP8 at TP 16 under --moe-a2a-backend deepep: the shared
  // MLP (2,048 wide) whole: gate_up 4,096 x 7,168 = 29,360,128 B + 32 x 56
  // x 4 B = 29,367,296; down 7,168 x 2,048 = 14,680,064 + 56 x 16 x 4 =
  // 14,683,648; 44,050,944 a MoE layer. Its TP 16 share: gate_up 256 x
  // 7,168 = 1,835,008 + 2 x 56 x 4 = 1,835,456; down 7,168 x 128 = 917,504
  // + 56 x 4 = 917,728; 2,753,184. 41,297,760 more a layer x 58 MoE layers
  // = 2,395,270,080 B.
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_EQ(deepep_shared_expert_bytes(v3, 16, /*deepep=*/true), 2'395'270'080u);
  // Without DeepEP the shared expert is fused or split by TP: nothing more.
  EXPECT_EQ(deepep_shared_expert_bytes(v3, 16, /*deepep=*/false), 0u);
  // No MLA (Llama) or no shared expert: nothing.
  EXPECT_EQ(deepep_shared_expert_bytes(testing::corpus_spec("llama3/Meta-Llama-3.1-8B"), 8, true), 0u);
}

TEST(SglangHeldWeights, RopeCacheIsFloat32OnCudaAndMlaIsQkRopeWide) {
  // DeepSeek-V3's yarn: 4,096 x 40 = 163,840 rows of qk_rope_head_dim 64
  // (not hidden / heads = 56): x 4 B = 41,943,040 B; x 2 B (ROCm, before
  // #3134) 20,971,520 B.
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_EQ(rope_cache_bytes(v3, /*float32=*/true), 41'943'040u);
  EXPECT_EQ(rope_cache_bytes(v3, /*float32=*/false), 20'971'520u);
  // Llama-3.1-8B (llama3 rope: 131,072 rows of 128): 67,108,864 B float32,
  // 33,554,432 B as the shared rule's 2 bytes.
  const ModelSpec llama = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  EXPECT_EQ(rope_cache_bytes(llama, true), 67'108'864u);
  EXPECT_EQ(rope_cache_bytes(llama, false), 33'554'432u);
}

TEST(SglangAllocatorRounding, MlaLayersRoundTheirLargeParameters) {
  // DeepSeek-V3 FP8 (128 x 128 blocks) at TP 16, 1-byte linear layers:
  //   fused_qkv_a (1,536 + 512 + 64) x 7,168 = 15,138,816 B -> 16 MiB:
  //     +1,638,400 a layer; q_b (8 x 192 x 1,536), kv_b (8 x 256 x 512) and
  //     o (7,168 x 1,024) are under 10 MiB;
  //   58 MoE layers, 256 experts + the fused shared one = 257 of 2,048 / 16
  //     = 128: w13 257 x 256 x 7,168 = 471,597,056 B -> 450 MiB: +262,144;
  //     w2 257 x 7,168 x 128 = 235,798,528 B -> 226 MiB: +1,179,648; scales
  //     under 10 MiB: 3,080,192 a layer with fused_qkv_a, x 58 = 178,651,136;
  //   3 dense layers, 18,432 / 16 = 1,152: gate_up 2,304 x 7,168 =
  //     16,515,072 B -> 16 MiB: +262,144; down 8,257,536 B under 10 MiB:
  //     1,900,544 a layer with fused_qkv_a, x 3 = 5,701,632;
  //   vocabulary 129,280 / 16 = 8,080 rows x 7,168 x 2 B = 115,834,880 B ->
  //     112 MiB: +1,605,632, embedding and head 3,211,264.
  // 178,651,136 + 5,701,632 + 3,211,264 = 187,564,032 B.
  ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_EQ(allocator_rounding_bytes(v3, 16), 187'564'032u);
  // An NSA indexer's projection or an MTP module's eh_proj left unquantized
  // (GLM-5's modules_to_not_convert) keeps the layers described.
  v3.quantization.unquantized_modules = {"model.layers.0.self_attn.indexers_proj", "model.layers.61.eh_proj"};
  EXPECT_EQ(allocator_rounding_bytes(v3, 16), 187'564'032u);
  // kv_b_proj left unquantized mixes widths: not described.
  v3.quantization.unquantized_modules = {"model.layers.0.self_attn.kv_b_proj"};
  EXPECT_EQ(allocator_rounding_bytes(v3, 16), 0u);
}

TEST(SglangAllocatorRounding, EachMlaParameterIsShapedByItsOwnGroup) {
  // DeepSeek-V3 FP8 at TP 16 under DP attention, DP 2: attention TP 8, 16
  // heads a rank. fused_qkv_a stays whole (+1,638,400); q_b 16 x 192 x
  // 1,536 = 4.5 MiB and kv_b 16 x 256 x 512 = 2 MiB are under 10 MiB; o
  // 7,168 x 2,048 = 14 MiB is whole: the layers as at TP 16 (3,080,192 a
  // MoE layer x 58 + 1,900,544 a dense layer x 3 = 184,352,768). From
  // sgl-project/sglang#17403 the embedding is split by the attention TP
  // group: 129,280 / 8 = 16,160 rows x 7,168 x 2 B = 220.9375 MiB -> 222:
  // +1,114,112; the LM head by TP 16 as before, +1,605,632.
  // 184,352,768 + 2,719,744 = 187,072,512 B.
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  RankSplit split = tp_split(16);
  split.attention_tp = 8;
  split.dp_attention = true;
  split.mla_embedding_by_attention_tp = true;
  EXPECT_EQ(allocator_rounding_bytes(v3, split), 187'072'512u);
  // Before #17403 the embedding is whole on every rank: 129,280 x 7,168 x
  // 2 B = 1,767.5 MiB -> 1,768: +524,288. 186,482,688 B.
  split.mla_embedding_by_attention_tp = false;
  EXPECT_EQ(allocator_rounding_bytes(v3, split), 186'482'688u);
  // --enable-dp-lm-head: the head by the attention TP group too, the same
  // 16,160 rows: +1,114,112 for it. 185,991,168 B.
  split.dp_lm_head = true;
  EXPECT_EQ(allocator_rounding_bytes(v3, split), 185'991'168u);
}

TEST(SglangAllocatorRounding, DeepEpHoldsWholeExpertsAndTheSharedOneApart) {
  // DeepSeek-V3 FP8 at TP 16, --moe-a2a-backend deepep (EP 16): 256 / 16 =
  // 16 routed experts a rank, each 2,048 wide (MoE TP 1): w13 16 x 4,096 x
  // 7,168 x 1 B = 448 MiB and w2 224 MiB, whole; their scales (16 x 32 x 56
  // x 4 B = 114,688) under 10 MiB. The shared expert is not fused and is
  // whole on every rank: gate_up 4,096 x 7,168 = 28 MiB, down 14 MiB, whole.
  // A MoE layer rounds fused_qkv_a only, 1,638,400 x 58 = 95,027,200; the
  // dense layers 1,900,544 x 3 = 5,701,632; the vocabulary 3,211,264.
  // 103,940,096 B.
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  RankSplit split = tp_split(16);
  split.expert_parallel = 16;
  split.deepep = true;
  EXPECT_EQ(allocator_rounding_bytes(v3, split), 103'940'096u);
  // EP 2 without DeepEP: 128 experts a rank, 2,048 / 8 = 256 wide: w13 128
  // x 512 x 7,168 = 448 MiB, w2 224 MiB, whole; the shared expert unfused
  // (FusedMoE under EP) and split by TP, 256 x 7,168 = 1.75 MiB and less:
  // the same 103,940,096 B.
  split.expert_parallel = 2;
  split.deepep = false;
  EXPECT_EQ(allocator_rounding_bytes(v3, split), 103'940'096u);
}

}  // namespace
}  // namespace memfit::sglang
