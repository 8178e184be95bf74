// vLLM's in-flight bitsandbytes (--quantization bitsandbytes on a 16-bit
// checkpoint) as the NF4 checkpoint it makes at load: logs/vllm_online_bnb.h.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "logs/vllm_online_bnb.h"
#include "memfit/vllm.h"
#include "model/config/checkpoint_traits.h"
#include "model/config/config_document.h"

namespace memfit::logs {
namespace {

TEST(VllmOnlineBnb, A16BitConfigGetsNf4WithDoubleQuantization) {
  std::vector<std::string> notes;
  Result<std::string> bnb = online_bnb_config(R"({"model_type": "llama", "hidden_size": 2048})", true, notes);
  ASSERT_TRUE(bnb.ok());
  const nlohmann::json doc = nlohmann::json::parse(*bnb);
  EXPECT_EQ(doc["quantization_config"]["quant_method"], "bitsandbytes");
  EXPECT_EQ(doc["quantization_config"]["load_in_4bit"], true);
  EXPECT_EQ(doc["quantization_config"]["bnb_4bit_quant_type"], "nf4");
  EXPECT_EQ(doc["quantization_config"]["bnb_4bit_use_double_quant"], true);
  EXPECT_EQ(doc["hidden_size"], 2048);
  ASSERT_EQ(notes.size(), 1u);
  // The config reader takes it for the 4-bit double-quantized checkpoint
  // that quantize_4bit(..., compress_statistics=True) makes.
  Result<ConfigDocument> parsed = ConfigDocument::parse(*bnb);
  ASSERT_TRUE(parsed.ok());
  const QuantizationInfo q = read_quantization(*parsed);
  EXPECT_EQ(q.method, "bitsandbytes");
  EXPECT_EQ(q.bits, 4u);
  EXPECT_TRUE(q.double_quant);
}

TEST(VllmOnlineBnb, FromV092TheLoadedAbsmaxIsFloat32) {
  // vLLM PR #19742 (v0.9.2): load_weights dequantizes each nested absmax
  // to float32 (dequantize_dq), so the served checkpoint is NF4 without
  // double quantization.
  std::vector<std::string> notes;
  Result<std::string> bnb = online_bnb_config(R"({"model_type": "qwen2"})", false, notes);
  ASSERT_TRUE(bnb.ok());
  const nlohmann::json doc = nlohmann::json::parse(*bnb);
  EXPECT_EQ(doc["quantization_config"]["bnb_4bit_use_double_quant"], false);
  Result<ConfigDocument> parsed = ConfigDocument::parse(*bnb);
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(read_quantization(*parsed).double_quant);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("19742"), std::string::npos);
}

TEST(VllmOnlineBnb, TheAbsmaxStaysNestedBeforeV092) {
  const auto release = [](const char* text) { return std::optional<VllmRelease>(*parse_vllm_version(text)); };
  EXPECT_TRUE(online_bnb_nested_absmax(release("0.8.3")));
  EXPECT_TRUE(online_bnb_nested_absmax(release("0.9.1")));
  EXPECT_TRUE(online_bnb_nested_absmax(release("0.5.1")));
  EXPECT_FALSE(online_bnb_nested_absmax(release("0.9.2")));
  EXPECT_FALSE(online_bnb_nested_absmax(release("0.10.1")));
  EXPECT_FALSE(online_bnb_nested_absmax(release("0.18.0")));
  EXPECT_FALSE(online_bnb_nested_absmax(release("1.0.0")));
  // "0.9" with no patch is priced as the line's first release, v0.9.0,
  // which predates the change.
  EXPECT_TRUE(online_bnb_nested_absmax(release("0.9")));
  EXPECT_FALSE(online_bnb_nested_absmax(std::nullopt));
}

TEST(VllmOnlineBnb, AConfigThatDeclaresAQuantizationIsLeftAsGiven) {
  // A pre-quantized bitsandbytes checkpoint (here LLM.int8) is served as
  // it declares; so is a nested text config's quantization.
  std::vector<std::string> notes;
  const std::string declared =
      R"({"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": true}})";
  Result<std::string> same = online_bnb_config(declared, false, notes);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, declared);
  const std::string nested =
      R"({"text_config": {"num_hidden_layers": 4, "quantization_config": {"quant_method": "awq"}}})";
  Result<std::string> nested_same = online_bnb_config(nested, true, notes);
  ASSERT_TRUE(nested_same.ok());
  EXPECT_EQ(*nested_same, nested);
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(online_bnb_config("[1, 2]", true, notes).ok());
}

}  // namespace
}  // namespace memfit::logs
