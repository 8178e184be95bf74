// Gemma 4's converted tensors (engines/llamacpp/converted_gemma4.cc),
// checked against the tensor counts real files print; counts by type and
// bytes worked by hand below.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engines/llamacpp/converted_gemma4.h"
#include "engines/llamacpp/converted_models.h"
#include "engines/llamacpp/quantize_plan.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {
namespace {

using converted_test::f32_count;
using converted_test::find;
using converted_test::type_counts;

// A gemma4_text spec of `layers` layers (hidden, vocab as given; the
// rest is in the widths).
Model gemma4_model(uint64_t layers, uint64_t hidden, uint64_t heads, uint64_t kv_heads, uint64_t ff) {
  Model m;
  m.spec.model_type = "gemma4_text";
  m.spec.geometry = ModelGeometry{layers, hidden, heads, kv_heads, 256, ff, 262144};
  m.spec.layers.assign(layers, LayerCache{});
  m.spec.tied_embeddings = true;
  return m;
}

// Gemma 4 E2B (google/gemma-4-E2B-it): 35 layers of 1,536, 8 heads and 1
// KV head, every fifth layer global (4, 9, ..., 34: heads of 512, the
// others 256), FFN 6,144 in the first 15 layers and 12,288
// (use_double_wide_mlp) in the 20 KV-sharing ones, per-layer inputs of
// 256, 262,144 tokens, tied.
Gemma4Widths e2b_widths() {
  Gemma4Widths w;
  for (uint64_t i = 0; i < 35; ++i) {
    w.sliding.push_back(i % 5 != 4);
    w.ff.push_back(i < 15 ? 6144 : 12288);
  }
  w.kv_heads.assign(35, 1);
  w.heads = 8;
  w.head_dim_swa = 256;
  w.head_dim_full = 512;
  w.per_layer_input = 256;
  w.kept_type = GgmlType::kBF16;
  return w;
}

// 601 tensors: 6 outside the blocks (output_norm, per_layer_model_proj,
// per_layer_proj_norm, per_layer_token_embd, rope_freqs, token_embd) and 17
// a block (9 matrices: attn_q/k/v/output, ffn_gate/up/down, inp_gate,
// proj; 8 F32: attn_norm, attn_q_norm, attn_k_norm, post_attention_norm,
// layer_output_scale, ffn_norm, post_ffw_norm, post_norm): 6 + 35 x 17 =
// 601, as the E2B GGUFs' dumps say ("601 tensors"). F32: 3 + 35 x 8 = 283.
TEST(ConvertedGemma4, E2bTensorList) {
  const Model m = gemma4_model(35, 1536, 8, 1, 12288);
  const Gemma4Widths w = e2b_widths();
  ConverterHints h;
  h.gemma4 = &w;
  Result<std::vector<ConvertedTensor>> t = converted_tensors(m.spec, nullptr, &h);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->size(), 601u);
  EXPECT_EQ(f32_count(*t), 283);
  // Without the widths there is no list: the spec alone cannot size it.
  EXPECT_FALSE(converted_tensors(m.spec).ok());
}

// The E2B at Q4_K_M under the pinned release's rules (no matrix):
// token_embd (tied: the output's rule) Q6_K; attn_v and ffn_down Q6_K in
// use_more_bits' 17 layers of 35 (0-3, 30-34 and 6, 9, ..., 27); the other
// 9 x 35 - 34 = 281 block matrices and per_layer_token_embd (token_embd's
// rule: the default) Q4_K, 282; per_layer_model_proj left BF16: q6_K 1 +
// 17 + 17 = 35. (NekoKatoriChan's importance-matrix E2B Q4_K_M,
// animehacker/llama-turboquant issue #3, prints the same f32 283 and bf16
// 1 in the same 601 tensors, its matrices q4_K 194, q5_K 70, q6_K 53: a
// mix of per-tensor choices these rules do not make.)
TEST(ConvertedGemma4, E2bQ4KMPinnedRules) {
  const Model m = gemma4_model(35, 1536, 8, 1, 12288);
  const Gemma4Widths w = e2b_widths();
  ConverterHints h;
  h.gemma4 = &w;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_K_M"), nullptr, {}, &h);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"bf16", 1}, {"f32", 283}, {"q4_K", 282}, {"q6_K", 35}}));
  const SafetensorsTensor* ple = find(*q, "per_layer_token_embd.weight");
  ASSERT_NE(ple, nullptr);
  EXPECT_EQ(ple->dtype, "q4_K");
  EXPECT_EQ(ple->shape, (std::vector<uint64_t>{262144, 35 * 256}));
}

// Gemma 4 E4B at Q8_0: 42 layers of 2,560, 8 heads and 2 KV heads, every
// sixth layer global (5, 11, ..., 41: 7 layers, heads of 512; 35 windowed
// of 256), FFN 10,240 throughout, per-layer inputs of 256.
// Q8_0 elements: a windowed block q 2,560 x 2,048 = 5,242,880, k and v
// 2,560 x 512 x 2 = 2,621,440, o 5,242,880, the FFN 3 x 2,560 x 10,240 =
// 78,643,200, inp_gate and proj 2 x 655,360 = 1,310,720: 93,061,120, x 35
// = 3,257,139,200; a global block q and o 2 x 10,485,760, k and v 2 x
// 2,621,440, FFN and per-layer as above: 106,168,320, x 7 = 743,178,240;
// token_embd 2,560 x 262,144 = 671,088,640; per_layer_token_embd 10,752 x
// 262,144 = 2,818,572,288. 7,489,978,368 x 34 / 32 = 7,958,102,016 B.
// BF16: per_layer_model_proj 2,560 x 10,752 x 2 = 55,050,240 B.
// F32: a block's 5 norms of 2,560, its Q/K norms (2 x head width) and
// layer_output_scale 1: 13,313 windowed x 35 + 13,825 global x 7 =
// 562,730; output_norm 2,560, per_layer_proj_norm 256, rope_freqs 256:
// 565,802 x 4 = 2,263,208 B. Together 8,015,415,464 B, tensors 380 q8_0 +
// 1 bf16 + 339 f32 = 720, the E4B dump's count.
TEST(ConvertedGemma4, E4bQ8_0Bytes) {
  const Model m = gemma4_model(42, 2560, 8, 2, 10240);
  Gemma4Widths w;
  for (uint64_t i = 0; i < 42; ++i) w.sliding.push_back(i % 6 != 5);
  w.kv_heads.assign(42, 2);
  w.ff.assign(42, 10240);
  w.heads = 8;
  w.head_dim_swa = 256;
  w.head_dim_full = 512;
  w.per_layer_input = 256;
  w.kept_type = GgmlType::kBF16;
  ConverterHints h;
  h.gemma4 = &w;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q8_0"), nullptr, {}, &h);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"bf16", 1}, {"f32", 339}, {"q8_0", 380}}));
  EXPECT_EQ(q->weights.bytes, 8015415464u);
}

// Gemma 4 26B-A4B: 30 layers of 2,816, 16 heads, 8 KV heads on the 25
// windowed layers and 2 on the 5 global ones (5, 11, ..., 29), FFN 2,112,
// 128 experts of 704, no per-layer inputs. A block: 13 F32 (8 norms,
// layer_output_scale, the router, its scale, ffn_down_exps.scale) and the
// matrices q, k, o, gate, up, down, gate_up_exps, down_exps (8), plus v
// on a windowed layer (attention_k_eq_v: the global layers have none):
// F32 2 + 30 x 13 = 392, matrices 1 + 30 x 8 + 25 = 266, 658 tensors,
// the Unsloth 26B-A4B dumps' counts (f32 392 and 266 quantized). With
// attn_v on every layer, 5 more.
TEST(ConvertedGemma4, MoeWithoutGlobalAttnV) {
  const Model m = gemma4_model(30, 2816, 16, 8, 2112);
  Gemma4Widths w;
  for (uint64_t i = 0; i < 30; ++i) {
    w.sliding.push_back(i % 6 != 5);
    w.kv_heads.push_back(i % 6 != 5 ? 8 : 2);
  }
  w.ff.assign(30, 2112);
  w.heads = 16;
  w.head_dim_swa = 256;
  w.head_dim_full = 512;
  w.experts = 128;
  w.expert_ff = 704;
  ConverterHints h;
  h.gemma4 = &w;
  h.gemma4_k_eq_v = true;
  Result<std::vector<ConvertedTensor>> t = converted_tensors(m.spec, nullptr, &h);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->size(), 658u);
  EXPECT_EQ(f32_count(*t), 392);
  h.gemma4_k_eq_v = false;
  Result<std::vector<ConvertedTensor>> all_v = converted_tensors(m.spec, nullptr, &h);
  ASSERT_TRUE(all_v.ok());
  EXPECT_EQ(all_v->size(), 663u);
  // The experts' fused gate and up: hidden -> 2 x 704, one slice an expert.
  for (const ConvertedTensor& c : *t) {
    if (c.name == "blk.0.ffn_gate_up_exps.weight") EXPECT_EQ(c.ne, (std::vector<uint64_t>{2816, 1408, 128}));
    if (c.name == "blk.5.attn_k.weight") EXPECT_EQ(c.ne, (std::vector<uint64_t>{2816, 2 * 512}));
  }
}

}  // namespace
}  // namespace memfit::llamacpp
