// vLLM's online FP8 (--quantization fp8 on a 16-bit checkpoint) as the
// checkpoint it makes at load: logs/vllm_online_fp8.h.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "logs/vllm_online_fp8.h"

namespace memfit::logs {
namespace {

TEST(VllmOnlineFp8, A16BitConfigGetsTheQuantizationConfigOfOneScaleATensor) {
  std::vector<std::string> notes;
  Result<std::string> fp8 = online_fp8_config(R"({"model_type": "qwen3_moe", "hidden_size": 2048})", notes);
  ASSERT_TRUE(fp8.ok());
  const nlohmann::json doc = nlohmann::json::parse(*fp8);
  EXPECT_EQ(doc["quantization_config"]["quant_method"], "fp8");
  EXPECT_EQ(doc["quantization_config"]["activation_scheme"], "dynamic");
  // No weight_block_size: one scale a tensor, as scaled_fp8_quant makes.
  EXPECT_FALSE(doc["quantization_config"].contains("weight_block_size"));
  EXPECT_EQ(doc["hidden_size"], 2048);
  ASSERT_EQ(notes.size(), 1u);
}

TEST(VllmOnlineFp8, AConfigThatDeclaresAQuantizationIsLeftAsGiven) {
  std::vector<std::string> notes;
  const std::string declared =
      R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})";
  Result<std::string> same = online_fp8_config(declared, notes);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, declared);
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(online_fp8_config("[1, 2]", notes).ok());
}

TEST(VllmOnlineFp8, ANestedTextConfigsQuantizationCountsAsDeclared) {
  // A multimodal config whose language model (text_config, with its layer
  // count) carries the quantization: checkpoint_traits reads it there, so
  // no second one is added at the top.
  std::vector<std::string> notes;
  const std::string nested =
      R"({"model_type": "mistral3", "text_config": {"num_hidden_layers": 40,)"
      R"( "quantization_config": {"quant_method": "fp8"}}})";
  Result<std::string> same = online_fp8_config(nested, notes);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, nested);
  EXPECT_TRUE(notes.empty());
}

TEST(VllmOnlineFp8, PythonsNaNIsReadAsTheOtherConfigReadersReadIt) {
  // json.dump writes NaN for a float field; ConfigDocument reads it as
  // null, where a strict JSON parser would refuse the whole config.
  std::vector<std::string> notes;
  Result<std::string> fp8 = online_fp8_config(R"({"model_type": "llama", "rope_theta": NaN})", notes);
  ASSERT_TRUE(fp8.ok());
  const nlohmann::json doc = nlohmann::json::parse(*fp8);
  EXPECT_TRUE(doc["rope_theta"].is_null());
  EXPECT_EQ(doc["quantization_config"]["quant_method"], "fp8");
}

}  // namespace
}  // namespace memfit::logs
