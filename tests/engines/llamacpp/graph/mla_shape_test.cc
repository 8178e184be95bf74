// The geometry both deepseek2 graphs read (src/engines/llamacpp/graph/
// mla_shape.cc): filled from a DeepSeek-V3-like spec and checked, values
// worked by hand.
#include <gtest/gtest.h>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/mla_shape.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"

namespace memfit {
namespace {

using llamacpp::graph::kMaxFactor;
using llamacpp::graph::kMaxTensors;
using llamacpp::graph::mla_shape;
using llamacpp::graph::mla_shape_in_bounds;
using llamacpp::graph::mla_tensor_bound;
using llamacpp::graph::MlaShape;

// DeepSeek V3's widths (config.json): 61 layers of 7168, 128 heads, an
// FFN of 18432 in the 3 leading dense blocks, 256 routed experts of 2048
// (8 a token) and 1 shared, vocabulary 129280; MLA: q_lora 1536,
// kv_lora 512, nope 128, rope 64, v_head 128.
ModelSpec v3_spec() {
  ModelSpec s;
  s.model_type = "deepseek2";
  s.geometry = {61, 7168, 128, 128, 192, 18432, 129280};
  s.layers.assign(61, LayerCache{LayerKind::kMlaLatent, 576, 576, 0, 0});
  s.moe = MoeInfo{256, 8, 1, 2048};
  s.mla = MlaGeometry{
      .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_nope = 128, .qk_rope = 64, .v_head = 128, .leading_dense = 3};
  return s;
}

LlamaCppContext cells(uint64_t n_ctx_seq) {
  LlamaCppContext c;
  c.n_ctx = c.n_ctx_seq = n_ctx_seq;
  return c;
}

TEST(MlaShape, FillsTheSpecsWidthsTheMlaWidthsAndTheCells) {
  const MlaShape s = mla_shape(v3_spec(), v3_spec().mla, cells(16384));
  EXPECT_EQ(s.layers, 61u);
  EXPECT_EQ(s.dense_layers, 3u);
  EXPECT_EQ(s.hidden, 7168u);
  EXPECT_EQ(s.heads, 128u);
  EXPECT_EQ(s.q_lora, 1536u);
  EXPECT_EQ(s.latent, 512u);
  EXPECT_EQ(s.rope, 64u);
  EXPECT_EQ(s.nope, 128u);
  EXPECT_EQ(s.value, 128u);
  EXPECT_EQ(s.ffn, 18432u);
  EXPECT_EQ(s.shared_ffn, 2048u);  // 1 shared expert x 2048
  EXPECT_EQ(s.vocab, 129280u);
  EXPECT_EQ(s.n_kv, 16384u);
  EXPECT_EQ(s.moe.hidden, 7168u);
  EXPECT_EQ(s.moe.experts, 256u);
  EXPECT_EQ(s.moe.used, 8u);
  EXPECT_EQ(s.moe.expert_ffn, 2048u);
  // The gating is the builder's to set from the file.
  EXPECT_FALSE(s.moe.sigmoid);
  EXPECT_FALSE(s.moe.selection_bias);
  EXPECT_TRUE(mla_shape_in_bounds(s));
}

TEST(MlaShape, WidthsComeFromTheGivenMlaGeometryNotTheSpecs) {
  // The absorbed graph passes the file's keys: here a latent of 256 and
  // 2 shared experts, against the spec's 512 and 1.
  ModelSpec spec = v3_spec();
  spec.moe.shared_experts = 2;
  MlaGeometry file = spec.mla;
  file.kv_lora_rank = 256;
  file.leading_dense = 100;  // past the 61 layers: capped
  const MlaShape s = mla_shape(spec, file, cells(4096));
  EXPECT_EQ(s.latent, 256u);
  EXPECT_EQ(s.dense_layers, 61u);
  EXPECT_EQ(s.shared_ffn, 4096u);  // 2 x 2048
}

TEST(MlaShape, TensorBoundIsSixtyFourPlusNinetySixAndTwoPerExpertUsedALayer) {
  // 64 + 61 x (96 + 2 x 8) = 64 + 61 x 112 = 6896.
  EXPECT_EQ(mla_tensor_bound(mla_shape(v3_spec(), v3_spec().mla, cells(16384))), 6896u);
}

TEST(MlaShape, AZeroOrOversizedWidthIsOutOfBounds) {
  const MlaShape good = mla_shape(v3_spec(), v3_spec().mla, cells(16384));
  MlaShape s = good;
  s.rope = 0;
  EXPECT_FALSE(mla_shape_in_bounds(s));
  s = good;
  s.n_kv = kMaxFactor;  // 2^20 cells: not below the bound
  EXPECT_FALSE(mla_shape_in_bounds(s));
  s = good;
  s.n_kv = kMaxFactor - 1;
  EXPECT_TRUE(mla_shape_in_bounds(s));
  s = good;
  // 8192 heads x (128 + 64) = 1,572,864 >= 2^20 = 1,048,576 though each
  // width is below it.
  s.heads = 8192;
  EXPECT_FALSE(mla_shape_in_bounds(s));
  s = good;
  s.vocab = 0;
  EXPECT_FALSE(mla_shape_in_bounds(s));
}

TEST(MlaShape, TheExpertsAreCheckedOnlyWhereABlockIsMoe) {
  MlaShape s = mla_shape(v3_spec(), v3_spec().mla, cells(16384));
  s.moe.used = 300;  // more than the 256 experts
  EXPECT_FALSE(mla_shape_in_bounds(s));
  s.dense_layers = s.layers;  // every block dense: the experts are not read
  EXPECT_TRUE(mla_shape_in_bounds(s));
  s.ffn = 0;  // but the dense FFN is
  EXPECT_FALSE(mla_shape_in_bounds(s));
}

TEST(MlaShape, TooManyTensorsIsOutOfBounds) {
  MlaShape s = mla_shape(v3_spec(), v3_spec().mla, cells(16384));
  // 64 + L x 112 > 2^17 = 131072 from L = 1170 (64 + 131040 = 131104).
  s.layers = 1170;
  EXPECT_GT(mla_tensor_bound(s), kMaxTensors);
  EXPECT_FALSE(mla_shape_in_bounds(s));
  s.layers = 1169;  // 64 + 130928 = 130992
  EXPECT_TRUE(mla_shape_in_bounds(s));
}

}  // namespace
}  // namespace memfit
