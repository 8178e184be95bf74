// The replayed compute buffer of deepseek2 MLA models
// (src/engines/llamacpp/graph/mla.cc) on docs/validation-llamacpp.md's
// deepseek2-mla, and the file facts it reads
// (src/engines/llamacpp/graph/file_facts.cc).
// Every expected figure is the high-water mark the pinned library's own
// allocator reached for the same model and settings (its ggml-alloc.c,
// rebuilt with a print of every placement, under
// @node-llama-cpp/linux-x64@3.21.1's libllama; the layout at the peak is
// written out by hand beside each).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engines/llamacpp/graph/file_facts.h"
#include "memfit/gguf.h"
#include "memfit/llamacpp.h"
#include "memfit/model.h"
#include "support/llamacpp_replay.h"

namespace memfit {
namespace {

using llamacpp::graph::file_facts;
using llamacpp::graph::MlaGraph;

GgufKeyValue kv(std::string key, uint64_t v) {
  return {std::move(key), GgufValue{GgufValueType::kUint32, v}};
}

GgufTensorInfo tensor(std::string name, uint64_t ne0, uint64_t ne1) {
  GgufTensorInfo t;
  t.name = std::move(name);
  t.n_dims = 2;
  t.dims = {ne0, ne1, 1, 1};
  return t;
}

// `deepseek2-mla`: 3 decoder blocks (the first dense, FFN 1536; then 16
// routed experts of 256, 4 per token, one shared) and a NextN block;
// hidden 512, 8 heads, Q through a rank-256 LoRA pair, a latent of 256 +
// 64 rope, heads of 128 + 64 (K) and 128 (V), sigmoid routing with a
// selection bias, normalized and scaled weights, vocabulary 32000. The
// header holds the keys and tensors the replay's file facts come from.
Model validation_mla() {
  Model m;
  ModelSpec& s = m.spec;
  s.model_type = "deepseek2";
  s.geometry = {3, 512, 8, 8, 64, 1536, 32000};
  s.max_position_tokens = 8192;
  s.layers.assign(3, LayerCache{LayerKind::kMlaLatent, 320, 0, 0, 0});
  s.nextn_layers = 1;
  s.moe = MoeInfo{16, 4, 1, 256};
  GgufHeader h;
  h.metadata = {{"general.architecture", GgufValue{GgufValueType::kString, std::string("deepseek2")}},
                kv("deepseek2.attention.key_length_mla", 192),
                kv("deepseek2.attention.value_length_mla", 128),
                kv("deepseek2.attention.kv_lora_rank", 256),
                kv("deepseek2.rope.dimension_count", 64),
                kv("deepseek2.leading_dense_block_count", 1),
                kv("deepseek2.expert_gating_func", 2),
                {"deepseek2.expert_weights_norm", GgufValue{GgufValueType::kBool, true}},
                {"deepseek2.expert_weights_scale", GgufValue{GgufValueType::kFloat32, 2.5}}};
  for (int il = 0; il < 3; ++il) {
    h.tensors.push_back(tensor("blk." + std::to_string(il) + ".attn_q_a.weight", 512, 256));
    if (il > 0) h.tensors.push_back(tensor("blk." + std::to_string(il) + ".exp_probs_b.bias", 16, 1));
  }
  m.gguf = std::make_shared<const GgufHeader>(std::move(h));
  return m;
}

// validation_mla() with `change` made to its header.
template <typename Change>
Model with_header(Change change) {
  Model m = validation_mla();
  GgufHeader h = *m.gguf;
  change(h);
  m.gguf = std::make_shared<const GgufHeader>(std::move(h));
  return m;
}

// The prompt graph's peak at the logits for n tokens (n outputs): from 0,
// the token ids 4n and inp_embd 2048n (never freed), the last block's
// residual ffn_inp and its norm 2 x 2048n, the router's logits (sigmoid in
// place), biased scores and argsort 3 x 64n, the weighted routed experts
// [512, 4, n] f32 = 8192n still live when their sum is placed above them,
// 2048n (the sum, which l_out, the final norm and result_norm reuse in
// place), then the logits 4 x 32000 x n.
constexpr uint64_t logits_peak(uint64_t n) {
  return 4 * n + 2048 * n + 2 * 2048 * n + 3 * 64 * n + 8192 * n + 2048 * n + 128000 * n;
}

TEST(LlamaCppGraphMla, TheLogitsSitAboveTheLastBlocksRoutedExperts) {
  // -c 4096 -ub 512, flash attention, f16 cache (measured 70.60 MiB):
  // 2,048 + 1,048,576 + 2,097,152 + 98,304 + 4,194,304 + 1,048,576 +
  // 65,536,000 = 74,024,960.
  LlamaCppEstimate e = run_llamacpp(validation_mla(), llamacpp_settings(4096, 1, 512, FlashAttn::kOn));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, logits_peak(512));
  EXPECT_EQ(logits_peak(512), 74024960u);
  // -c 2304 -ub 64, bf16 cache: the same layout at 64 tokens, 256 +
  // 131,072 + 262,144 + 12,288 + 524,288 + 131,072 + 8,192,000 = 9,253,120.
  e = run_llamacpp(validation_mla(), llamacpp_settings(2304, 1, 64, FlashAttn::kOn, GgmlType::kBF16));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 9253120u);
  EXPECT_EQ(logits_peak(64), 9253120u);
}

TEST(LlamaCppGraphMla, WithoutFlashAttentionTheLastScoresPeak) {
  // -c 12000 (12,032 cells) -ub 1024, no flash attention (measured 457.21
  // MiB): the third block's scores, 4 x 12,032 x 1,024 x 8 heads =
  // 394,264,576, go on the buffer's end, above that block's Qcur (4 x 320
  // x 8 x 1,024 = 10,485,760) at 74,665,984: under it the inputs (token ids
  // 4,096 + inp_embd 2,097,152 + positions 4,096 + K rows 8,192 + the f32
  // mask 4 x 12,032 x 1,024 = 49,283,072 + output ids 4,096 = 51,400,704)
  // and the holes the blocks before left, up to the absorbed Q's slot
  // (4 x 256 x 1,024 x 8 = 8,388,608) at 66,277,376, which the latent
  // copied out of the cache (v_cont, 2 x 12,032 x 256 = 6,160,384) reuses.
  // 74,665,984 + 10,485,760 + 394,264,576 = 479,416,320.
  LlamaCppEstimate e = run_llamacpp(validation_mla(), llamacpp_settings(12000, 1, 1024, FlashAttn::kOff));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 479416320u);
  // An f32 cache without flash attention copies the latent out at 4 B a
  // value (measured at -c 16384 -ub 512: 337,651,712, the last scores of
  // 4 x 16,384 x 512 x 8 = 268,435,456 above 69,216,256); with flash
  // attention it is cast to f16 first, a copy this graph does not hold: the
  // phase model stays.
  EXPECT_EQ(run_llamacpp(validation_mla(),
                         llamacpp_settings(16384, 1, 512, FlashAttn::kOff, GgmlType::kF32)).compute_bytes,
            337651712u);
  EXPECT_FALSE(run_llamacpp(validation_mla(),
                            llamacpp_settings(4096, 1, 512, FlashAttn::kOn, GgmlType::kF32))
                           .compute_replayed);
}

TEST(LlamaCppGraphMla, WhatTheReplayDoesNotBuildKeepsThePhaseModel) {
  const LlamaCppSettings s = llamacpp_settings(4096, 1, 512, FlashAttn::kOn);
  const Model groups = with_header([](GgufHeader& h) {
    // DeepSeek V3's group-limited routing
    h.metadata.push_back(kv("deepseek2.expert_group_count", 8));
    h.metadata.push_back(kv("deepseek2.expert_group_used_count", 4));
  });
  EXPECT_FALSE(run_llamacpp(groups, s).compute_replayed);
  const Model fused = with_header([](GgufHeader& h) {
    h.tensors.push_back(tensor("blk.1.ffn_gate_up_exps.weight", 512, 512));
  });
  EXPECT_FALSE(run_llamacpp(fused, s).compute_replayed);
  Model unknown = validation_mla();
  unknown.gguf = nullptr;  // a config.json's model has no file facts
  EXPECT_FALSE(run_llamacpp(unknown, s).compute_replayed);
}

TEST(LlamaCppGraphMla, TheFileFactsComeFromKeysAndTensorShapes) {
  GgufHeader h;
  h.metadata = {{"general.architecture", GgufValue{GgufValueType::kString, std::string("deepseek2")}},
                kv("deepseek2.attention.key_length_mla", 192),
                kv("deepseek2.attention.value_length_mla", 128),
                kv("deepseek2.attention.kv_lora_rank", 256),
                kv("deepseek2.rope.dimension_count", 64),
                kv("deepseek2.leading_dense_block_count", 1),
                kv("deepseek2.expert_gating_func", 2),
                {"deepseek2.expert_weights_norm", GgufValue{GgufValueType::kBool, true}},
                {"deepseek2.expert_weights_scale", GgufValue{GgufValueType::kFloat32, 2.5}}};
  for (int il = 0; il < 2; ++il) {
    h.tensors.push_back(tensor("blk." + std::to_string(il) + ".attn_q_a.weight", 512, 256));
  }
  h.tensors.push_back(tensor("blk.1.exp_probs_b.bias", 16, 1));
  MlaGraph m = file_facts(h, 2).mla;
  EXPECT_EQ(m.q_lora_rank, 256u);
  EXPECT_EQ(m.latent, 256u);
  EXPECT_EQ(m.rope, 64u);
  EXPECT_EQ(m.nope, 128u);
  EXPECT_EQ(m.value, 128u);
  EXPECT_EQ(m.dense_layers, 1u);
  EXPECT_EQ(m.gating, 2u);
  EXPECT_TRUE(m.weights_norm);
  EXPECT_TRUE(m.weights_scaled);
  EXPECT_TRUE(m.selection_bias);
  EXPECT_FALSE(m.other_graph);
  // A lite file's one Q projection; fused gate/up experts are another graph.
  h.tensors[0] = tensor("blk.0.attn_q.weight", 512, 1536);
  h.tensors[1] = tensor("blk.1.attn_q.weight", 512, 1536);
  EXPECT_EQ(file_facts(h, 2).mla.q_lora_rank, 0u);
  EXPECT_FALSE(file_facts(h, 2).mla.other_graph);
  h.tensors.push_back(tensor("blk.1.ffn_gate_up_exps.weight", 512, 512));
  EXPECT_TRUE(file_facts(h, 2).mla.other_graph);
  // Files without the MLA keys (decompressed attention) carry nothing.
  h.metadata.erase(h.metadata.begin() + 1);
  EXPECT_EQ(file_facts(h, 2).mla.latent, 0u);
}

}  // namespace
}  // namespace memfit
