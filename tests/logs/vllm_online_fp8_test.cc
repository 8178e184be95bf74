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

}  // namespace
}  // namespace memfit::logs
