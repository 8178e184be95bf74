// mlx-lm's recommend-quant (src/engines/mlxlm/recommend*.cc,
// src/engines/shared/mlx_recipes.cc): MLX weight modes priced by hand, the
// mixed recipes' layer rule, the ranking and the hook's commands
// (docs/engine-mlxlm.md, "recommend-quant").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engines/shared/weight_mode.h"
#include "memfit/engine.h"
#include "memfit/quant_schemes.h"
#include "support/command_hooks.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

const std::string kQwen = "qwen3/Qwen3-0.6B";  // a config only

const MlxRecipe& recipe(std::string_view name) {
  for (const MlxRecipe& r : mlx_recipes()) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no recipe " << name;
  return mlx_recipes().front();
}

SafetensorsTensor tensor(std::string name, std::vector<uint64_t> shape, std::string dtype = "BF16") {
  uint64_t elements = 1;
  for (uint64_t d : shape) elements *= d;
  return SafetensorsTensor{std::move(name), std::move(dtype), std::move(shape), elements * 2};
}

// Eight layers of v_proj [64, 128], down_proj [128, 256], up_proj [256,
// 128] and a norm [128], an embedding and an LM head [1000, 128], a final
// norm; BF16 throughout.
Model eight_layer_headers() {
  Model m = testing::corpus_model(kQwen, 1, WeightsSource::kSafetensorsHeader);
  m.spec.geometry.layers = 8;
  m.tensors.clear();
  for (int i = 0; i < 8; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    m.tensors.push_back(tensor(layer + "self_attn.v_proj.weight", {64, 128}));
    m.tensors.push_back(tensor(layer + "mlp.down_proj.weight", {128, 256}));
    m.tensors.push_back(tensor(layer + "mlp.up_proj.weight", {256, 128}));
    m.tensors.push_back(tensor(layer + "input_layernorm.weight", {128}));
  }
  m.tensors.push_back(tensor("model.embed_tokens.weight", {1000, 128}));
  m.tensors.push_back(tensor("lm_head.weight", {1000, 128}));
  m.tensors.push_back(tensor("model.norm.weight", {128}));
  return m;
}

// L = 28: L // 8 = 3 and 7L // 8 = 24, so layers 0-2, 24-27 and those
// with (i - 3) % 3 == 2 (5, 8, ..., 23): 14 layers. L = 8: 0, 3, 6, 7.
TEST(MlxRecipes, MoreBitsLayersFollowMlxLmsRule) {
  std::vector<uint64_t> more;
  for (uint64_t i = 0; i < 28; ++i) {
    if (mlx_recipe_more_bits(i, 28)) more.push_back(i);
  }
  EXPECT_EQ(more, (std::vector<uint64_t>{0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 24, 25, 26, 27}));
  more.clear();
  for (uint64_t i = 0; i < 8; ++i) {
    if (mlx_recipe_more_bits(i, 8)) more.push_back(i);
  }
  EXPECT_EQ(more, (std::vector<uint64_t>{0, 3, 6, 7}));
}

// 4-bit, group 64, BF16 scale and bias (4 B a group):
//   v_proj 8,192 elements: 4,096 + 128 x 4 = 4,608
//   down_proj and up_proj 32,768: 16,384 + 512 x 4 = 18,432 each
//   a layer: 4,608 + 2 x 18,432 + 256 (norm kept) = 41,728; x 8 = 333,824
//   embed and lm_head 128,000: 64,000 + 2,000 x 4 = 72,000 each
//   total 333,824 + 144,000 + 256 = 478,080.
TEST(MlxRecipes, FourBitGroup64FromHeaders) {
  const Model m = eight_layer_headers();
  const QuantScheme four{.name = "4-bit g64", .bits = 4, .group_size = 64};
  EXPECT_EQ(*candidate_weights_bytes(four, m, m.tensors), 478'080u);
}

// mixed_3_6 at group 64: layers 0, 3, 6, 7 keep v_proj and down_proj at 6
// bits, lm_head is 6 bits, everything else (the embedding too) 3 bits:
//   more-bits layer: v 6,144 + 512 = 6,656; down 24,576 + 2,048 = 26,624;
//                    up 12,288 + 2,048 = 14,336; norm 256 -> 47,872
//   other layer:     v 3,072 + 512 = 3,584; down 14,336; up 14,336;
//                    norm 256 -> 32,512
//   4 x 47,872 + 4 x 32,512 = 321,536; embed 48,000 + 8,000 = 56,000;
//   lm_head 96,000 + 8,000 = 104,000; final norm 256 -> 481,792.
TEST(MlxRecipes, Mixed36FromHeaders) {
  Result<MlxModeBytes> w = mlx_recipe_weights(recipe("mixed_3_6"), 64, eight_layer_headers());
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(w->bytes, 481'792u);
  // 3-bit everywhere: 8 x (3,584 + 2 x 14,336 + 256) + 2 x 56,000 + 256 =
  // 260,096 + 112,256 = 372,352; 6-bit everywhere: 8 x (6,656 + 2 x 26,624
  // + 256) + 2 x 104,000 + 256 = 481,280 + 208,256 = 689,536. Mean bits
  // 3 + 3 x (481,792 - 372,352) / (689,536 - 372,352) = 3 + 3 x 109,440 /
  // 317,184 = 4.0351.
  EXPECT_NEAR(w->mean_bits, 4.0351, 1e-4);
}

// A float32 matrix stores its scale and bias in float32: [64, 128] at
// 4-bit group 64 is 4,096 + 128 x 8 = 5,120.
TEST(MlxRecipes, Float32ScalesAreFourBytes) {
  Model m = eight_layer_headers();
  m.tensors = {tensor("model.layers.0.mlp.up_proj.weight", {64, 128}, "F32")};
  const QuantScheme four{.name = "4-bit g64", .bits = 4, .group_size = 64};
  EXPECT_EQ(*candidate_weights_bytes(four, m, m.tensors), 5'120u);
}

TEST(MlxRecipes, NoDownProjIsRefusedAsMlxLmDoes) {
  Model m = eight_layer_headers();
  m.tensors = {tensor("model.layers.0.mlp.up_proj.weight", {64, 128})};
  Result<MlxModeBytes> w = mlx_recipe_weights(recipe("mixed_4_6"), 64, m);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message(),
            "mixed_4_6: mlx-lm refuses a mixed recipe for a model with no down_proj");
}

// Qwen3-0.6B's config: 596,042,752 parameters (28 layers of 15,730,688:
// q 2,097,152, k and v 1,048,576, o 2,097,152, gate/up/down 3,145,728
// each, norms 2,048; a tied embedding 155,582,464; a final norm 1,024).
//   4-bit g64: 298,021,376 + 9,313,168 groups x 4 = 335,274,048
//   mixed_3_6: 3 bits, 223,516,032 + 37,252,672 = 260,768,704, plus the 14
//   more-bits layers' v_proj (8 x 128 x 1,024 = 1,048,576) and down_proj
//   (1,024 x 3,072 = 3,145,728): 58,720,256 parameters x 3 bits more =
//   22,020,096 -> 282,788,800. Mean bits 3 + 3 x 58,720,256 / 596,042,752
//   = 3.2955.
TEST(MlxRecipes, ConfigOnlyDenseModel) {
  const Model m = testing::corpus_model(kQwen, 1, WeightsSource::kAnalyticalConfig);
  ASSERT_EQ(m.spec.analytical_params, 596'042'752u);
  const QuantScheme four{.name = "4-bit g64", .bits = 4, .group_size = 64};
  EXPECT_EQ(*candidate_weights_bytes(four, m, {}), 335'274'048u);
  Result<MlxModeBytes> w = mlx_recipe_weights(recipe("mixed_3_6"), 64, m);
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(w->bytes, 282'788'800u);
  EXPECT_NEAR(w->mean_bits, 3.2955, 1e-4);
}

Result<CommandAnswer> recommend(uint64_t budget, nlohmann::json options = nlohmann::json::object()) {
  EstimateRequest r;
  r.model = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/" + kQwen;
  r.engine = "mlx-lm";
  r.memory_limit_bytes = budget;
  r.max_tokens = 128;
  r.mlxlm.prompt_tokens = 2048;
  return testing::ask_hook(r, EngineCommand::kRecommendQuant, options);
}

std::vector<std::string> modes(const CommandAnswer& a) {
  std::vector<std::string> out;
  for (const auto& row : a.json["candidates"]) out.push_back(row["mode"]);
  return out;
}

// Best quality first: more bits, then the smaller group; a recipe by its
// mean bits (Qwen3-0.6B: 14 of 28 layers' v/down = 9.85 % of the weights
// at high bits: mixed_4_6 4.20, mixed_3_6 3.30, mixed_3_4 3.10, mixed_2_6
// 2.39).
TEST(MlxLmRecommendHook, RanksEveryModeBestQualityFirst) {
  Result<CommandAnswer> a = recommend(1ull << 40);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(modes(*a), (std::vector<std::string>{
                           "as-is", "8-bit g32", "8-bit g64", "8-bit g128", "6-bit g32",
                           "6-bit g64", "6-bit g128", "5-bit g32", "5-bit g64", "5-bit g128",
                           "mixed_4_6", "4-bit g32", "4-bit g64", "4-bit g128", "mixed_3_6",
                           "mixed_3_4", "3-bit g32", "3-bit g64", "3-bit g128", "mixed_2_6",
                           "2-bit g32", "2-bit g64", "2-bit g128"}));
  EXPECT_EQ(a->json["recommended"], "as-is");
}

// A budget of 5-bit g32's peak: every row above it (16, 8 and 6 bits) is
// larger, so 5-bit g32 is the best that fits; one byte less, 5-bit g64.
TEST(MlxLmRecommendHook, RecommendsTheFirstRowThatFits) {
  Result<CommandAnswer> all = recommend(1ull << 40);
  ASSERT_TRUE(all.ok()) << all.error().message();
  const uint64_t peak = all->json["candidates"][7]["total_bytes"];
  ASSERT_EQ(all->json["candidates"][7]["mode"], "5-bit g32");
  Result<CommandAnswer> a = recommend(peak);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["recommended"], "5-bit g32");
  EXPECT_FALSE(a->json["candidates"][6]["fits"]);
  Result<CommandAnswer> b = recommend(peak - 1);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->json["recommended"], "5-bit g64");
}

TEST(MlxLmRecommendHook, EachRowCarriesItsCommands) {
  Result<CommandAnswer> a = recommend(1ull << 40, {{"bits", {4}}, {"group_size", 64}});
  ASSERT_TRUE(a.ok()) << a.error().message();
  ASSERT_EQ(modes(*a), (std::vector<std::string>{"as-is", "4-bit g64"}));
  const std::string path = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/" + kQwen;
  const auto& row = a->json["candidates"][1];
  EXPECT_EQ(row["weights_bytes"], 335'274'048u);
  EXPECT_EQ(row["convert_command"], "mlx_lm.convert --hf-path " + path +
                                        " --mlx-path Qwen3-0.6B-4bit-g64 -q --q-bits 4 "
                                        "--q-group-size 64");
  EXPECT_EQ(row["generate_command"],
            "mlx_lm.generate --model Qwen3-0.6B-4bit-g64 --max-tokens 128 --prompt -");
  Result<CommandAnswer> r = recommend(1ull << 40, {{"group_size", 128}});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->json["candidates"][4]["mode"], "mixed_4_6");
  EXPECT_EQ(r->json["candidates"][4]["convert_command"],
            "mlx_lm.convert --hf-path " + path +
                " --mlx-path Qwen3-0.6B-mixed_4_6-g128 -q --quant-predicate mixed_4_6 "
                "--q-group-size 128");
}

TEST(MlxLmRecommendHook, RefusesWidthsAndGroupsMlxLacks) {
  EXPECT_EQ(recommend(1ull << 40, {{"bits", {7}}}).error().message(),
            "bits: 7 is not one of mlx-lm's: 8, 6, 5, 4, 3, 2");
  EXPECT_EQ(recommend(1ull << 40, {{"group_size", 16}}).error().message(),
            "group_size: 16 is not one of mlx-lm's: 32, 64, 128");
}

}  // namespace
}  // namespace memfit
