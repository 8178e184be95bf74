// Every file at the top of tests/data/hostile/config (its corpus/ holds the
// fuzzer's finds) is a config.json that once could (or plausibly might)
// break a parser. Each must come back as a
// clean error value: no crash, no hang, no allocation sized by its numbers.
#include <gtest/gtest.h>

#include <filesystem>

#include "memfit/kv_cache.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

TEST(HostileConfig, EveryRegressionInputIsACleanError) {
  const std::filesystem::path dir = std::filesystem::path(MEMFIT_TEST_DATA_DIR) / "hostile/config";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    // corpus/ holds fuzzer-found inputs, replayed by FuzzReplay.config.
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    Result<ModelSpec> spec = parse_model_config(testing::read_test_data("hostile/config/" + name));
    if (!spec.ok()) {
      // One line, no control character, and not the boundary's catch-all.
      const std::string& message = spec.error().message();
      for (char c : message) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(byte >= 0x20 && byte != 0x7f) << name << ": " << message;
      }
      EXPECT_NE(message.rfind("internal error", 0), 0u) << name << ": " << message;
    }
    if (spec.ok()) {
      // Parsed: then sizing it at a huge request must fail cleanly or succeed.
      Result<KvCacheEstimate> kv = estimate_kv_cache(*spec, 1ull << 40, 1ull << 20, KvElement::kFp16);
      EXPECT_FALSE(kv.ok()) << name << " parsed and sized without overflow";
    }
    ++seen;
  }
  EXPECT_GE(seen, 18);
}

TEST(HostileConfig, SpecificMessages) {
  auto error = [](const std::string& name) {
    Result<ModelSpec> spec = parse_model_config(testing::read_test_data("hostile/config/" + name));
    return spec.ok() ? std::string("(parsed)") : spec.error().message();
  };
  // hidden_size 2^32 is at the limit; no intermediate_size, so 4 x 2^32 = 2^34 is derived
  // and refused.
  EXPECT_EQ(error("huge_dims.json"), "intermediate_size 17179869184 is implausibly large");
  EXPECT_EQ(error("float_layers.json"), "num_hidden_layers: expected a non-negative integer, got 1e+300");
  EXPECT_EQ(error("layer_types_string.json"), "layer_types: expected a list of strings");
  EXPECT_EQ(error("index_past_layers.json"), "full_attn_idxs: layer 99 is past the model's 2 layers");
  EXPECT_EQ(error("zero_period.json"), "attn_layer_period must be positive");
  EXPECT_EQ(error("delta_missing_dims.json"),
            "missing geometry: linear_num_key_heads (needed for the qwen3_next recurrent state)");
  // A UTF-8 byte-order mark is skipped; the config itself lacks a hidden size.
  EXPECT_EQ(error("bom.json"),
            "missing geometry: no hidden size (hidden_size, d_model, dim, model_dim or n_embd)");
  EXPECT_EQ(error("truncated.json"),
            "not valid JSON: parse error at line 1, column 6: syntax error while parsing value - "
            "unexpected end of input; expected '[', '{', or a literal");
  // 100,000 '[': refused before nlohmann builds a container per level.
  EXPECT_EQ(error("deep_nesting.json"), "config nests deeper than 64 levels");
  // expand x hidden = 2^58 x 64 = 2^64 once wrapped to 0: a Mamba with no
  // recurrent state. heads x head_dim = 2^32 x 2^32 (Mamba-2's SSM width)
  // is refused as well.
  EXPECT_EQ(error("mamba_expand_wraps.json"), "recurrent state size overflows");
  EXPECT_EQ(error("mamba2_width_wraps.json"), "recurrent state size overflows");
  // Found by a campaign: the model_type, "qwen3<DEL>next", was echoed raw.
  EXPECT_EQ(error("crash_model_type_del_in_recurrent_state.json"),
            "missing geometry: linear_num_key_heads (needed for the qwen3\\x7fnext recurrent "
            "state)");
  // Issue 10: both once threw nlohmann's type_error.302 out of the library.
  EXPECT_EQ(error("crash_model_type_number.json"), "model_type: expected a string, got 5");
  EXPECT_EQ(error("crash_block_configs_no_op_number.json"),
            "block_configs[0].attention.no_op: expected true or false, got 1");
}

}  // namespace
}  // namespace memfit
