// mlx_lm.convert's config for a base config (engines/mlxlm/convert_config.h;
// docs/engine-mlxlm.md, "Converted checkpoints"): the quantization block,
// the routers quant_predicate keeps at 8 bits, and the weights it prices,
// worked by hand from the corpus configs.
#include "engines/mlxlm/convert_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memfit/model_spec.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using Json = nlohmann::json;

Json corpus_config(const std::string& relative) {
  return Json::parse(testing::read_test_data("corpus/" + relative + "/config.json"));
}

Json converted(const Json& base, MlxConversion c = {}) {
  Result<Json> out = mlx_converted_config(base, c);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message());
  return out.ok() ? *out : Json();
}

uint64_t weights_bytes(const Json& config) {
  Result<ModelSpec> spec = parse_model_config(config.dump());
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  return spec.ok() ? spec->analytical_weights.bytes : 0;
}

TEST(MlxConvertConfig, ADenseLlamaGetsOneBlockAtTheDefaults) {
  const Json base = corpus_config("llama3/Meta-Llama-3.1-8B");
  const Json c = converted(base);
  const Json block = {{"group_size", 64}, {"bits", 4}};
  EXPECT_EQ(c["quantization"], block);         // llama.py has no quant_predicate
  EXPECT_EQ(c["quantization_config"], block);  // save_config's copy
  EXPECT_EQ(c["hidden_size"], base["hidden_size"]);
  // The weights at 4 bits, group 64: ceil(e x 4 / 8) + e / 64 x 2 x 2 =
  // 0.5625 B per element on every Linear and the embedding; norms at 2 B.
  //   embed_tokens, lm_head   128,256 x 4,096 = 525,336,576 each
  //   per layer   q, o 16,777,216 each; k, v 4,194,304 each;
  //               gate, up, down 58,720,256 each: 218,103,808; x 32 layers
  //               = 6,979,321,856
  //   quantized   (2 x 525,336,576 + 6,979,321,856) x 0.5625 = 4,516,872,192
  //   norms       (2 x 4,096 x 32 + 4,096) x 2 = 532,480
  EXPECT_EQ(weights_bytes(c), 4'517'404'672u);
  // The base config itself: 8,030,261,248 parameters at 2 B.
  EXPECT_EQ(weights_bytes(base), 16'060'522'496u);
}

TEST(MlxConvertConfig, BeforeMlx011TheEmbeddingStaysAtSixteenBits) {
  // MLX before v0.11.0 quantized Linear layers only (mlx #994): the
  // conversion says so with a false entry for the embedding.
  const Json base = corpus_config("llama3/Meta-Llama-3.1-8B");
  const Json c = converted(base, {.bits = 4, .group_size = 64, .quantize_embeddings = false});
  const Json block = {{"group_size", 64}, {"bits", 4}, {"model.embed_tokens", false}};
  EXPECT_EQ(c["quantization"], block);
  EXPECT_EQ(c["quantization_config"], block);
  // The embedding's 525,336,576 elements at 2 B (bfloat16) instead of
  // 0.5625 B: 1,050,673,152 - 295,501,824 = 755,171,328 B more than the
  // default conversion's 4,517,404,672 = 5,272,576,000.
  EXPECT_EQ(weights_bytes(c), 5'272'576'000u);
  // A router rule (qwen3_moe's, 2025) postdates such a conversion: refused.
  Result<Json> moe = mlx_converted_config(
      Json{{"model_type", "qwen3_moe"}, {"num_hidden_layers", 4}, {"num_experts", 8}},
      {.bits = 4, .group_size = 64, .quantize_embeddings = false});
  ASSERT_FALSE(moe.ok());
  EXPECT_NE(moe.error().message().find("before v0.11.0"), std::string::npos);
}

TEST(MlxConvertConfig, QwenNextsRoutersStayAtEightBits) {
  const Json base = Json::parse(testing::read_test_data(
      "logs/mlx-lm/mlxlm-478-qwen3-next-80b-a3b-4bit-b1.config.json"));
  const Json c = converted(base);
  const Json router = {{"group_size", 64}, {"bits", 8}};
  // 48 layers, every one MoE (mlp_only_layers [], decoder_sparse_step 1):
  // mlp.gate and mlp.shared_expert_gate each, beside bits and group_size.
  EXPECT_EQ(c["quantization"].size(), 2u + 2u * 48u);
  EXPECT_EQ(c["quantization"]["model.layers.0.mlp.gate"], router);
  EXPECT_EQ(c["quantization"]["model.layers.47.mlp.shared_expert_gate"], router);
  EXPECT_EQ(c["quantization"]["bits"], 4);
  // The router [512 experts, 2,048] = 1,048,576 elements: 4 bits take
  // 524,288 + 16,384 x 4 = 589,824 B, 8 bits 1,048,576 + 65,536 =
  // 1,114,112 B; 524,288 B more per layer, 25,165,824 over 48 (the
  // shared-expert gate, [1, 2,048], is no block of memfit's geometry).
  Json plain = base;
  plain["quantization"] = {{"group_size", 64}, {"bits", 4}};
  EXPECT_EQ(weights_bytes(c) - weights_bytes(plain), 25'165'824u);
}

TEST(MlxConvertConfig, OnlyMoeLayersHaveARouter) {
  // qwen3_moe.py: layer i routes when i is not in mlp_only_layers and
  // (i + 1) % decoder_sparse_step == 0: of 4 layers at step 2, 1 and 3;
  // mlp_only_layers [1] leaves 3.
  const Json base = {{"model_type", "qwen3_moe"}, {"num_hidden_layers", 4},
                     {"hidden_size", 2048},       {"num_experts", 8},
                     {"decoder_sparse_step", 2},  {"mlp_only_layers", Json::array({1})}};
  const Json c = converted(base);
  EXPECT_EQ(c["quantization"].size(), 3u);
  EXPECT_TRUE(c["quantization"].contains("model.layers.3.mlp.gate"));
  // A group that does not divide the router's input width: quantize_model
  // never asks the predicate, so no entry (2,048 % 128 = 0; 2,112 % 128 = 64).
  Json odd = base;
  odd["hidden_size"] = 2112;
  EXPECT_EQ(converted(odd, {4, 128})["quantization"].size(), 2u);
  EXPECT_EQ(converted(base, {8, 128})["quantization"]["bits"], 8);
}

TEST(MlxConvertConfig, Gemma4sRoutersStayAtEightBitsUnderItsLanguageModel) {
  // gemma4_text.py's quant_predicate (since "Add gemma 4", #1093, v0.31.2):
  // router.proj at 8 bits, group 64. google/gemma-4-26B-A4B's config
  // (beside the hari log): a gemma4 wrapper, its text_config 30 layers,
  // enable_moe_block true, so a Router on every layer, under gemma4.py's
  // language_model.
  const Json base = Json::parse(testing::read_test_data(
      "logs/mlx-lm/mlxlm-nevervllm7-hari-gemma4-26b-a4b-qat-4bit-p28-g500.config.json"));
  const Json c = converted(base);
  const Json router = {{"group_size", 64}, {"bits", 8}};
  EXPECT_EQ(c["quantization"].size(), 2u + 30u);
  EXPECT_EQ(c["quantization"]["language_model.model.layers.0.router.proj"], router);
  EXPECT_EQ(c["quantization"]["language_model.model.layers.29.router.proj"], router);
  EXPECT_FALSE(c["quantization"].contains("model.layers.0.router.proj"));
  // h = 2,816, 25 sliding and 5 full layers (analytical_params_test's
  // Gemma4LayersHoldTheMlpBesideTheExpertsAndWideGlobalHeads):
  //   at 4 bits (0.5625 B an element): embed_tokens 738,197,504; a sliding
  //     layer's attention 34,603,008, a full one's 49,020,928; every
  //     layer's MLP 17,842,176 and experts 761,266,176:
  //     738,197,504 + 25 x 34,603,008 + 5 x 49,020,928 + 30 x 779,108,352
  //     = 25,221,627,904 elements -> 14,187,165,696 B
  //   router.proj [128, 2,816] = 360,448 at 8 bits: 360,448 + 360,448 / 64
  //     x 2 x 2 = 382,976 B; x 30 = 11,489,280
  //   at 2 B: the norms, router.scale and per_expert_scale, layer_scalar
  //     (25 x 23,169 + 5 x 23,681 + 2,816 = 700,446) and the vision tower
  //     with its embedder (569,624,112 - 64 x 1,152 + 2,816 x 1,152 =
  //     572,794,416): 573,494,862 x 2 = 1,146,989,724
  //   14,187,165,696 + 11,489,280 + 1,146,989,724 = 15,345,644,700
  EXPECT_EQ(weights_bytes(c), 15'345'644'700u);
  // The routers at 4 bits instead: 360,448 x 0.5625 = 202,752 B a layer,
  // 180,224 less; 5,406,720 over 30.
  Json plain = base;
  plain["quantization"] = {{"group_size", 64}, {"bits", 4}};
  EXPECT_EQ(weights_bytes(c) - weights_bytes(plain), 5'406'720u);
  // gemma4_text alone: its own paths; without the MoE block, no Router.
  Json text = base["text_config"];
  EXPECT_TRUE(converted(text)["quantization"].contains("model.layers.29.router.proj"));
  text["enable_moe_block"] = false;
  EXPECT_EQ(converted(text)["quantization"].size(), 2u);
  // Refused: a wrapper without text_config, a pre-v0.11.0 MLX conversion.
  Result<Json> r = mlx_converted_config(Json{{"model_type", "gemma4"}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("text_config"), std::string::npos);
  EXPECT_FALSE(
      mlx_converted_config(base, {.bits = 4, .group_size = 64, .quantize_embeddings = false}).ok());
}

TEST(MlxConvertConfig, RefusesWhatItWouldConvertOtherwise) {
  const Json quantized = corpus_config("mlx/Qwen3-14B-MLX-4bit");
  Result<Json> r = mlx_converted_config(quantized, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("already declares a quantization"), std::string::npos);
  r = mlx_converted_config(Json{{"model_type", "granitemoehybrid"}, {"num_hidden_layers", 40}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("quant_predicate"), std::string::npos);
  r = mlx_converted_config(Json{{"num_hidden_layers", 4}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("no model_type"), std::string::npos);
  r = mlx_converted_config(Json{{"model_type", "llama"}, {"num_hidden_layers", 4097}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("4097 layers"), std::string::npos);
  EXPECT_FALSE(mlx_converted_config(Json::array(), {}).ok());
}

}  // namespace
}  // namespace memfit
