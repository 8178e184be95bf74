// parse_model_config on values of the wrong type: each is refused with an
// error naming the field (or, for report-only fields, ignored), never
// thrown. Issue 10's crash ({"model_type": 5} threw nlohmann's
// type_error.302 out of the library) is the first case.
#include <gtest/gtest.h>

#include <string>

#include "memfit/model_spec.h"

namespace memfit {
namespace {

// Two layers of a small model; `extra` adds fields.
std::string config_with(const std::string& extra) {
  return R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4)" + extra + "}";
}

std::string error_of(const std::string& json) {
  Result<ModelSpec> spec = parse_model_config(json);
  EXPECT_FALSE(spec.ok()) << json;
  return spec.ok() ? "(parsed)" : spec.error().message();
}

TEST(ConfigWrongTypes, ModelTypeThatIsNotAStringIsAnError) {
  EXPECT_EQ(error_of(R"({"model_type": 5})"), "model_type: expected a string, got 5");
  EXPECT_EQ(error_of(config_with(R"(,"model_type":["llama"])")),
            "model_type: expected a string, got [\"llama\"]");
  EXPECT_EQ(error_of(config_with(R"(,"model_type":{"name":"llama"})")),
            "model_type: expected a string, got {\"name\":\"llama\"}");
  EXPECT_EQ(error_of(config_with(R"(,"model_type":true)")),
            "model_type: expected a string, got true");
}

TEST(ConfigWrongTypes, NestedModelTypeThatIsNotAStringIsAnError) {
  EXPECT_EQ(error_of(R"({"model_type":"llava","text_config":{"model_type":7,"num_hidden_layers":2,
                        "hidden_size":64,"num_attention_heads":4}})"),
            "model_type: expected a string, got 7");
}

TEST(ConfigWrongTypes, NullModelTypeIsAbsent) {
  Result<ModelSpec> spec = parse_model_config(config_with(R"(,"model_type":null)"));
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->model_type, "");
}

TEST(ConfigWrongTypes, LayerTypesWithANumberInsideIsAnError) {
  EXPECT_EQ(error_of(config_with(R"(,"layer_types":["full_attention",3])")),
            "layer_types[1]: expected a string, got 3");
  EXPECT_EQ(error_of(config_with(R"(,"layers_block_type":[null,"mamba"])")),
            "layers_block_type[0]: expected a string, got null");
}

TEST(ConfigWrongTypes, BlockConfigFlagsMustBeBooleans) {
  // Nemotron-NAS block_configs: no_op / replace_with_linear are booleans.
  const std::string blocks =
      R"(,"block_configs":[{"attention":{"n_heads_in_group":2}},)"
      R"({"attention":{"no_op":1,"n_heads_in_group":2}}])";
  EXPECT_EQ(error_of(config_with(blocks)),
            "block_configs[1].attention.no_op: expected true or false, got 1");
  EXPECT_EQ(error_of(config_with(R"(,"block_configs":[{"attention":{"replace_with_linear":"yes"}},)"
                                 R"({"attention":{"n_heads_in_group":2}}])")),
            "block_configs[0].attention.replace_with_linear: expected true or false, got \"yes\"");
  EXPECT_EQ(error_of(config_with(R"(,"block_configs":[5,{"attention":{}}])")),
            "block_configs[0]: expected an \"attention\" object");
}

TEST(ConfigWrongTypes, BlockConfigFlagsNullIsFalse) {
  // 4 heads / 2 per group = 2 KV heads on both layers.
  Result<ModelSpec> spec = parse_model_config(config_with(
      R"(,"block_configs":[{"attention":{"no_op":null,"n_heads_in_group":2}},)"
      R"({"attention":{"n_heads_in_group":2}}])"));
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  // 2 KV heads x 16 head_dim x 2 (K and V) = 64 elements per token.
  EXPECT_EQ(spec->layers[0].elems_per_token, 64u);
}

TEST(ConfigWrongTypes, QuantizationFieldsOfTheWrongTypeAreIgnored) {
  // The quantization block is reported only (header bytes are the truth),
  // so a malformed field is dropped rather than failing the config.
  Result<ModelSpec> spec = parse_model_config(config_with(
      R"(,"quantization_config":{"quant_method":5,"bits":"4","group_size":[128],)"
      R"("weight_block_size":["a",128],"load_in_4bit":"yes"})"));
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->quantization.method, "");
  EXPECT_EQ(spec->quantization.bits, 0u);
  EXPECT_EQ(spec->quantization.group_size, 0u);
  EXPECT_EQ(spec->quantization.block_size, std::vector<uint64_t>{128});
}

TEST(ConfigWrongTypes, CompressedTensorsGroupsOfTheWrongTypeAreIgnored) {
  Result<ModelSpec> spec = parse_model_config(config_with(
      R"(,"quantization_config":{"quant_method":"compressed-tensors","config_groups":)"
      R"({"a":5,"b":{"weights":[4]},"c":{"weights":{"num_bits":4,"group_size":"x"}}}})"));
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->quantization.method, "compressed-tensors");
  // Group "a" is not an object and is skipped; "b" has weights that are not
  // an object: its fields read as absent (0) and it is the group used.
  EXPECT_EQ(spec->quantization.bits, 0u);
  EXPECT_EQ(spec->quantization.group_size, 0u);
}

TEST(ConfigWrongTypes, MlxQuantizationOfTheWrongTypeIsIgnored) {
  Result<ModelSpec> spec =
      parse_model_config(config_with(R"(,"quantization":{"bits":"four","group_size":-64})"));
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->quantization.method, "mlx_affine");
  EXPECT_EQ(spec->quantization.bits, 0u);
  EXPECT_EQ(spec->quantization.group_size, 0u);
}

TEST(ConfigWrongTypes, StructuredValuesInMessagesAreBounded) {
  // A 100,000-element list as a layer count: the message shows 200 bytes.
  std::string list = "[";
  for (int i = 0; i < 100000; ++i) list += i == 0 ? "1" : ",1";
  list += "]";
  const std::string message =
      error_of(R"({"num_hidden_layers":)" + list + R"(,"hidden_size":64})");
  const std::string prefix = "num_hidden_layers: expected a non-negative integer, got [1,1,";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
  // "...got " is 56 bytes; the value is cut at 200 bytes, then "...".
  EXPECT_EQ(message.size(), 56u + 200u + 3u);
}

TEST(ConfigWrongTypes, NestingIsCappedAt64Levels) {
  // "x" holds 63 nested arrays: with the top-level object, 64 levels.
  const auto nested = [](size_t levels) {
    return config_with(R"(,"x":)" + std::string(levels, '[') + std::string(levels, ']'));
  };
  const std::string at_limit = nested(63);
  EXPECT_TRUE(parse_model_config(at_limit).ok());
  const std::string past = nested(64);
  EXPECT_EQ(error_of(past), "config nests deeper than 64 levels");
}

}  // namespace
}  // namespace memfit
