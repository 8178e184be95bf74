// The deepseek2 graph of the builds before #12801 under op offload
// (src/engines/llamacpp/graph/deepseek2_legacy.cc): a one-block model whose
// block is the host's, its products run on GPU 0, worked by hand.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/parts.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"
#include "support/units.h"

namespace memfit {
namespace {

using llamacpp::WeightHomes;
using llamacpp::graph::block_tensor;
using llamacpp::graph::replay_deepseek2_legacy_offload;

using ::memfit::testing::kMiB;

// One MoE block (no dense lead): hidden 256, 2 heads of K 64 + 32 (rope)
// and V 64, one Q projection (no LoRA), a latent of 64 + 32, 4 routed
// experts of 128 (2 a token) and one shared, vocabulary 1000; K and V
// cached per head, decompressed (2 x 96 of K and 2 x 64 of V a cell).
ModelSpec legacy_spec() {
  ModelSpec s;
  s.model_type = "deepseek2";
  s.geometry = {1, 256, 2, 2, 96, 512, 1000};
  s.layers.assign(1, LayerCache{LayerKind::kMlaLatent, 2 * 96 + 2 * 64, 2 * 96, 0, 0});
  s.moe = MoeInfo{4, 2, 1, 128};
  s.mla = MlaGeometry{.q_lora_rank = 0, .kv_lora_rank = 64, .qk_nope = 64, .qk_rope = 32, .v_head = 64};
  return s;
}

// Every weight the graph reads on the host, 4 KiB each, but the experts:
// up and gate 1 MiB, down 1.5 MiB (the copies the GPU makes of them).
WeightHomes host_homes() {
  WeightHomes h;
  const int dev = llamacpp::kWeightOnHost;
  for (const char* kind : {"attn_norm", "attn_q", "attn_kv_a_mqa", "attn_kv_a_norm", "attn_kv_b", "attn_output",
                           "ffn_norm", "ffn_gate_inp", "ffn_up_shexp", "ffn_gate_shexp", "ffn_down_shexp"}) {
    h[block_tensor(0, kind)] = {dev, 4096};
  }
  h[block_tensor(0, "ffn_up_exps")] = {dev, kMiB};
  h[block_tensor(0, "ffn_gate_exps")] = {dev, kMiB};
  h[block_tensor(0, "ffn_down_exps")] = {dev, 3 * kMiB / 2};
  h["token_embd.weight"] = {dev, 4096};
  h["output_norm.weight"] = {0, 1024};
  h["output.weight"] = {0, 4096};
  return h;
}

LlamaCppContext context(uint64_t cells, uint64_t ubatch, bool flash_attn = false) {
  LlamaCppContext c;
  c.n_ctx = c.n_ctx_seq = cells;
  c.n_batch = c.n_ubatch = ubatch;
  c.flash_attn = flash_attn;
  c.v_trans = !flash_attn;
  return c;
}

LlamaCppSettings build(uint64_t b) {
  LlamaCppSettings s;
  s.build = b;
  return s;
}

TEST(LlamaCppGraphDeepseek2Legacy, TheDownCopyGoesAboveTheGateCopysHole) {
  // b4436, 256 cells, a ubatch of 64: the host block's products (batch 64
  // >= 32) run on GPU 0, each starting a split with its weight's copy at
  // the split's start, freed after the product. When the routed experts
  // begin, the layer's residual (ffn_inp, 256 x 64 x 4 = 64 KiB) sits at
  // [192, 256) KiB, the top of what is live: everything above it (the
  // scores, the K and V copies) is freed. The up copy (1 MiB) fits no hole
  // below and goes at 256 KiB; up's rows (128 x 2 x 64 x 4 = 64 KiB) fit a
  // hole below. The up copy is freed after its product; the gate copy
  // (1 MiB) takes its place, gate's rows (64 KiB) above it at 1280 KiB.
  // SiLU runs in place over gate's rows, ggml_mul(up, gate) in place over
  // up's, so gate's rows and then the gate copy are freed: the buffer is
  // free from 256 KiB up. The down copy (1.5 MiB) goes there, [256, 1792)
  // KiB, and its product's rows (256 x 2 x 64 x 4 = 128 KiB), for which no
  // hole below is large enough, above it: 1792 + 128 = 1920 KiB =
  // 1,966,080 B, the peak (the shared expert, the logits and the attention
  // stay below 256 KiB + 1 MiB).
  const std::vector<int> device_of_layer = {llamacpp::kWeightOnHost, 0};
  Result<std::optional<uint64_t>> bytes = replay_deepseek2_legacy_offload(
      legacy_spec(), context(256, 64), build(4436), device_of_layer, host_homes(), 0, 0);
  ASSERT_TRUE(bytes) << bytes.error().message();
  ASSERT_TRUE(bytes->has_value());
  EXPECT_EQ(**bytes, 1966080u);
}

TEST(LlamaCppGraphDeepseek2Legacy, AGpuBlocksScoresSpanItsWholeCache) {
  // The same block and output on GPU 0 (every weight its own), 1024 cells,
  // a ubatch of 64: no copies but the inputs', placed at the split's start:
  // the token rows (256 x 64 x 4 = 64 KiB, the residual), the positions
  // (256 B), the F32 mask (1024 x 64 x 4 = 256 KiB) and the output ids
  // (256 B): 328,192 B. Above them the attention norm's rows (64 KiB, live
  // until the latent's product), Q (2 x 96 x 64 x 4 = 48 KiB), Q's rope
  // part copied (2 x 32 x 64 x 4 = 16 KiB, roped in place) and the Q
  // states (48 KiB): 328,192 + 65,536 + 49,152 + 16,384 = 459,264, the
  // states [459,264, 508,416). K's chain fits the holes below; V's states
  // (2 x 64 x 64 x 4 = 32 KiB) go on top and are freed after their store,
  // so the scores (2 heads x 1024 cells x 64 x 4 = 512 KiB), read with
  // the Q states still live, start at 508,416: 508,416 + 524,288 =
  // 1,032,704 B, the peak (the routed experts' rows stay below it).
  WeightHomes homes = host_homes();
  for (auto& [name, home] : homes) {
    if (name != "token_embd.weight") home.device = 0;
  }
  const std::vector<int> device_of_layer = {0, 0};
  Result<std::optional<uint64_t>> bytes =
      replay_deepseek2_legacy_offload(legacy_spec(), context(1024, 64), build(4436), device_of_layer, homes, 0, 0);
  ASSERT_TRUE(bytes) << bytes.error().message();
  ASSERT_TRUE(bytes->has_value());
  EXPECT_EQ(**bytes, 1032704u);
}

TEST(LlamaCppGraphDeepseek2Legacy, OnlyTheBuildsBeforeTheMlaGraphWithoutFlashAttention) {
  const std::vector<int> device_of_layer = {llamacpp::kWeightOnHost, 0};
  for (const auto& [c, b] : {std::pair{context(256, 64), build(5091)}, std::pair{context(256, 64, true), build(4436)},
                             std::pair{context(256, 64), LlamaCppSettings{}}}) {
    Result<std::optional<uint64_t>> bytes =
        replay_deepseek2_legacy_offload(legacy_spec(), c, b, device_of_layer, host_homes(), 0, 0);
    ASSERT_TRUE(bytes) << bytes.error().message();
    EXPECT_FALSE(bytes->has_value());
  }
  // An MLA latent (a file with the MLA keys) is not this graph.
  ModelSpec latent = legacy_spec();
  latent.layers.assign(1, LayerCache{LayerKind::kMlaLatent, 96, 0, 0, 0, 64});
  Result<std::optional<uint64_t>> bytes =
      replay_deepseek2_legacy_offload(latent, context(256, 64), build(4436), device_of_layer, host_homes(), 0, 0);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_FALSE(bytes->has_value());
  // A weight the homes lack leaves the model to the phases.
  WeightHomes lacking = host_homes();
  lacking.erase(block_tensor(0, "attn_kv_b"));
  bytes = replay_deepseek2_legacy_offload(legacy_spec(), context(256, 64), build(4436), device_of_layer, lacking, 0, 0);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_FALSE(bytes->has_value());
}

}  // namespace
}  // namespace memfit
