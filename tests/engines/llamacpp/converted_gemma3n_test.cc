// Gemma 3n's converted tensors (engines/llamacpp/converted_gemma3n.cc),
// checked against the dump of Unsloth's gemma-3n-E4B-it Q4_K_M
// (tests/data/logs/llamacpp/llamacpp-14448-gemma3n-e4b-q4km-rocm-890m.log:
// 847 tensors, f32 422, f16 108, q8_0 1, q4_K 282, q6_K 34); counts by
// type and bytes worked by hand below.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engines/llamacpp/converted_gemma3n.h"
#include "engines/llamacpp/converted_models.h"
#include "engines/llamacpp/quantize_plan.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {
namespace {

using converted_test::f32_count;
using converted_test::find;
using converted_test::type_counts;

// Gemma 3n E4B (the dump's gemma3n.* keys): 35 layers of 2,048, 8 heads
// and 2 KV heads of 256, FFN 16,384, 262,144 tokens, tied.
Model e4b() {
  Model m;
  m.spec.model_type = "gemma3n_text";
  m.spec.geometry = ModelGeometry{35, 2048, 8, 2, 256, 16384, 262144};
  m.spec.layers.assign(35, LayerCache{});
  m.spec.tied_embeddings = true;
  return m;
}

// 7 outside the blocks (altup_proj, altup_unembd_proj, output_norm,
// per_layer_model_proj, per_layer_proj_norm, per_layer_token_embd,
// token_embd) and 24 a block: 7 + 35 x 24 = 847, the dump's count. F32:
// output_norm, per_layer_proj_norm and a block's 10 norms (attn_norm,
// attn_q_norm, attn_k_norm, post_attention_norm, ffn_norm, post_ffw_norm,
// post_norm, altup_correct_scale, altup_router_norm, laurel_post_norm) and
// its two AltUp coefficient matrices: 2 + 35 x 12 = 422, the dump's.
TEST(ConvertedGemma3n, E4bTensorList) {
  const Model m = e4b();
  ConverterHints h;
  h.gemma3n = true;
  Result<std::vector<ConvertedTensor>> t = converted_tensors(m.spec, nullptr, &h);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->size(), 847u);
  EXPECT_EQ(f32_count(*t), 422);
  EXPECT_EQ(t->front().name, "altup_proj.weight");
  EXPECT_EQ(t->front().ne, (std::vector<uint64_t>{2048, 2048, 3}));
  // Without a GGUF's say-so (a config's spec) there is no list.
  EXPECT_FALSE(converted_tensors(m.spec).ok());
}

// At Q4_K_M under the pinned release's rules (no matrix, no options):
// token_embd (tied: the output's rule) Q6_K; attn_v and ffn_down Q6_K in
// use_more_bits' 17 layers of 35 (0-3, 30-34 and 6, 9, ..., 27); the other
// 9 x 35 - 34 = 281 block matrices (q, k, v, o, gate, up, down, inp_gate,
// proj) and per_layer_token_embd (token_embd's rule: the default) Q4_K,
// 282; q6_K 1 + 17 + 17 = 35. Left as the converter wrote them, F16: the
// AltUp projections and per_layer_model_proj, and a block's altup_router,
// laurel_l and laurel_r (llama-quantize never quantizes a name holding
// "altup" or "laurel"): 3 + 35 x 3 = 108, the dump's f16. (Unsloth's file
// has token_embd q4_K and per_layer_token_embd q8_0: llama-quantize's
// options, which check-log finds from the counts.)
TEST(ConvertedGemma3n, E4bQ4KMPinnedRules) {
  const Model m = e4b();
  ConverterHints h;
  h.gemma3n = true;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_K_M"), nullptr, {}, &h);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(type_counts(*q),
            (std::map<std::string, int>{{"f16", 108}, {"f32", 422}, {"q4_K", 282}, {"q6_K", 35}}));
  const SafetensorsTensor* router = find(*q, "blk.0.altup_router.weight");
  ASSERT_NE(router, nullptr);
  EXPECT_EQ(router->dtype, "f16");
  const SafetensorsTensor* coef = find(*q, "blk.0.altup_predict_coef.weight");
  ASSERT_NE(coef, nullptr);
  EXPECT_EQ(coef->dtype, "f32");
  EXPECT_EQ(coef->shape, (std::vector<uint64_t>{16, 4}));
  // Bytes: token_embd 2,048 x 262,144 = 536,870,912 at Q6_K (210 B a 256)
  // 440,401,920; per_layer_token_embd 8,960 x 262,144 = 2,348,810,240 at
  // Q4_K (144 B a 256) 1,321,205,760. F16: altup_proj and
  // altup_unembd_proj 2 x 2,048 x 2,048 x 3 x 2 = 50,331,648,
  // per_layer_model_proj 2,048 x 8,960 x 2 = 36,700,160, a block's
  // router 2,048 x 4, laurel_l and laurel_r 2 x 2,048 x 64: 270,336 x 2 x
  // 35 = 18,923,520; 105,955,328. F32: a block's 8 norms of 2,048, its Q/K
  // norms 2 x 256, its coefficients 16 + 64: 16,976 x 35 = 594,160, and
  // 2,048 + 256: 596,464 x 4 = 2,385,856. A block's Q4_K matrices q and o
  // 2 x 4,194,304, k 1,048,576, gate and up 2 x 33,554,432, inp_gate and
  // proj 2 x 524,288: 77,594,624 x 144 / 256 = 43,646,976, x 35 =
  // 1,527,644,160; attn_v (1,048,576) 17 x 860,160 + 18 x 589,824 =
  // 25,239,552; ffn_down (33,554,432) 17 x 27,525,120 + 18 x 18,874,368 =
  // 807,665,664. Together 4,230,498,240 B.
  EXPECT_EQ(q->weights.bytes, 4230498240u);
}

// Unsloth's file: the same list with token_embd Q4_K (the
// --token-embedding-type check-log finds) and per_layer_token_embd Q8_0
// (--tensor-type): q4_K 282 - 1 + 1 = 282, q6_K 35 - 1 = 34, q8_0 1,
// the dump's counts. Bytes: the pinned list's 4,230,498,240 less token_embd
// at Q6_K (440,401,920) and per_layer_token_embd at Q4_K (1,321,205,760),
// plus token_embd at Q4_K (536,870,912 x 144 / 256 = 301,989,888) and
// per_layer_token_embd at Q8_0 (2,348,810,240 x 34 / 32 = 2,495,610,880):
// 5,266,491,328 B, which the log's 4.90 GiB and the two devices' buffers
// (5,022.53 + 288.00 MiB, the output a duplicate of token_embd) agree with.
TEST(ConvertedGemma3n, UnslothE4bQ4KMBytes) {
  const Model m = e4b();
  ConverterHints h;
  h.gemma3n = true;
  Result<std::vector<ConvertedTensor>> t = converted_tensors(m.spec, nullptr, &h);
  ASSERT_TRUE(t.ok()) << t.error().message();
  Result<std::vector<GgmlType>> types = quantized_types(m.spec, *t, *find_gguf_file_type("Q4_K_M"));
  ASSERT_TRUE(types.ok()) << types.error().message();
  for (size_t i = 0; i < t->size(); ++i) {
    if ((*t)[i].name == "token_embd.weight") (*types)[i] = GgmlType::kQ4_K;
    if ((*t)[i].name == "per_layer_token_embd.weight") (*types)[i] = GgmlType::kQ8_0;
  }
  Result<Model> q = gguf_model_of_types(m, *t, *types, {});
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{
                                 {"f16", 108}, {"f32", 422}, {"q4_K", 282}, {"q6_K", 34}, {"q8_0", 1}}));
  EXPECT_EQ(q->weights.bytes, 5266491328u);
}

// A spec without the FFN width (or of another model type) builds nothing.
TEST(ConvertedGemma3n, NeedsEveryWidth) {
  Model m = e4b();
  EXPECT_TRUE(gemma3n_builds(m.spec));
  m.spec.geometry.intermediate = 0;
  EXPECT_FALSE(gemma3n_builds(m.spec));
  m = e4b();
  m.spec.model_type = "gemma3_text";
  EXPECT_FALSE(gemma3n_builds(m.spec));
}

}  // namespace
}  // namespace memfit::llamacpp
