// The rotary caches vLLM keeps (rope_cache.h, docs/engine-vllm.md "Rope
// cache"): rows by the RoPE scaling's class, bytes by head dim and dtype,
// and Gemma 3's second cache.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engines/shared/rope_cache.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using testing::corpus_spec;

ModelSpec::RopeScaling scaling(const char* type, double factor, uint64_t original) {
  ModelSpec::RopeScaling s;
  s.type = type;
  s.factor = factor;
  s.original_max_positions = original;
  return s;
}

TEST(RopeCache, RowsFollowTheRotaryEmbeddingClass) {
  // RotaryEmbedding, Llama3RotaryEmbedding: the positions as declared.
  EXPECT_EQ(rope_cache_rows(scaling("", 1.0, 0), 32768), 32768u);
  EXPECT_EQ(rope_cache_rows(scaling("llama3", 8.0, 8192), 131072), 131072u);
  // LinearScalingRotaryEmbedding: 131,072 x 8 = 1,048,576 (Gemma 3 4B+'s global layers).
  EXPECT_EQ(rope_cache_rows(scaling("linear", 8.0, 0), 131072), 1048576u);
  // DynamicNTKScalingRotaryEmbedding: 4,096 x 2 = 8,192.
  EXPECT_EQ(rope_cache_rows(scaling("dynamic", 2.0, 0), 4096), 8192u);
  // YaRN from the original length: gpt-oss 4,096 x 32 = 131,072 (its declared length);
  // Qwen2.5's card's yarn 32,768 x 4 = 131,072 over a declared 32,768.
  EXPECT_EQ(rope_cache_rows(scaling("yarn", 32.0, 4096), 131072), 131072u);
  EXPECT_EQ(rope_cache_rows(scaling("yarn", 4.0, 32768), 32768), 131072u);
  // A fractional product rounds up: 1,000 x 1.5005 = 1,500.5 -> 1,501.
  EXPECT_EQ(rope_cache_rows(scaling("linear", 1.5005, 0), 1000), 1501u);
  // A factor of 1 or less keeps the declared rows.
  EXPECT_EQ(rope_cache_rows(scaling("linear", 0.5, 0), 4096), 4096u);
}

TEST(RopeCache, Gemma3KeepsALocalAndAGlobalCache) {
  // gemma-3-1b-it: head_dim 256, 32,768 positions, no rope_scaling: two
  // caches of 32,768 x 256 x 2 B = 16,777,216 B each = 33,554,432 B.
  const ModelSpec spec = corpus_spec("gemma3/gemma-3-1b-it");
  EXPECT_EQ(rope_cache_bytes(spec), 33554432u);
}

TEST(RopeCache, Gemma3GlobalCacheTakesTheLinearFactor) {
  // Gemma 3 4B-27B's text config: head_dim 256, 131,072 positions, linear
  // factor 8: global (131,072 x 8) x 256 x 2 = 536,870,912 B, local
  // 131,072 x 256 x 2 = 67,108,864 B; 603,979,776 B in all.
  ModelSpec spec;
  spec.model_type = "gemma3";
  spec.geometry.head_dim = 256;
  spec.max_position_tokens = 131072;
  spec.rope_scaling = scaling("linear", 8.0, 0);
  EXPECT_EQ(rope_cache_bytes(spec), 603979776u);
}

TEST(RopeCache, OneCacheElsewhereAndGptOssInFloat32) {
  // A Llama-style model: 131,072 x 128 x 2 = 33,554,432 B.
  ModelSpec llama;
  llama.model_type = "llama";
  llama.geometry.head_dim = 128;
  llama.max_position_tokens = 131072;
  EXPECT_EQ(rope_cache_bytes(llama), 33554432u);
  // gpt-oss: yarn 4,096 x 32 = 131,072 rows x 64 x 4 B = 33,554,432 B.
  ModelSpec oss;
  oss.model_type = "gpt_oss";
  oss.geometry.head_dim = 64;
  oss.max_position_tokens = 131072;
  oss.rope_scaling = scaling("yarn", 32.0, 4096);
  EXPECT_EQ(rope_cache_bytes(oss), 33554432u);
  // No head dim (no attention): no cache.
  ModelSpec none;
  none.max_position_tokens = 4096;
  EXPECT_EQ(rope_cache_bytes(none), 0u);
}

TEST(RopeCache, DeepSeekV4KeepsTwoFloat32TablesOfItsRotatedTail) {
  // DeepSeek-V4-Flash: yarn 65,536 x 16 = 1,048,576 rows x qk_rope_head_dim
  // 64 x 4 B = 268,435,456 B a table, one at rope_theta 10,000 and one at
  // compress_rope_theta 160,000: 536,870,912 B (not head_dim 512 x 2 B).
  Result<ModelSpec> parsed =
      parse_model_config(testing::read_test_data("logs/vllm/vllm-44376-deepseek-v4-flash-tp2-ep-gh200.config.json"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  const ModelSpec& flash = *parsed;
  ASSERT_TRUE(flash.compressed_attention.second_rope_base);
  EXPECT_EQ(flash.compressed_attention.rope_dim, 64u);
  EXPECT_EQ(rope_cache_bytes(flash), 536870912u);
  // The same bases: one table.
  ModelSpec one = flash;
  one.compressed_attention.second_rope_base = false;
  EXPECT_EQ(rope_cache_bytes(one), 268435456u);
}

TEST(RopeCache, VllmsMultimodalRopeKeepsFourTimesTheRows) {
  // Qwen2.5-VL-7B-Instruct: rope_scaling {"mrope_section": [16, 24, 24],
  // "rope_type": "mrope"}, 128,000 positions, head dim 3,584 / 28 = 128:
  // 4 x 128,000 = 512,000 rows x 128 x 2 B = 131,072,000 B, where the plain
  // cache is 128,000 x 128 x 2 = 32,768,000.
  const ModelSpec vl = corpus_spec("qwen2_5_vl/Qwen2.5-VL-7B-Instruct");
  EXPECT_EQ(vl.rope_scaling.type, "mrope");
  EXPECT_EQ(rope_cache_bytes(vl), 32768000u);
  EXPECT_EQ(vllm_mrope_cache_bytes(vl), 131072000u);
  // Qwen3.5-27B marks M-RoPE by mrope_section beside rope_type "default"
  // and rotates a quarter of its 256-wide head (partial_rotary_factor
  // 0.25): 4 x 262,144 rows x 64 x 2 B = 134,217,728, the plain 262,144 x
  // 256 x 2 B.
  const ModelSpec qwen35 = corpus_spec("qwen3_5/Qwen3.5-27B");
  EXPECT_TRUE(qwen35.rope_scaling.mrope);
  EXPECT_EQ(qwen35.rope_scaling.partial_rotary_factor, 0.25);
  EXPECT_EQ(vllm_mrope_cache_bytes(qwen35), 134217728u);
  EXPECT_EQ(rope_cache_bytes(qwen35), 134217728u);
  // A rope of another type: none of its own.
  ModelSpec llama;
  llama.geometry.head_dim = 128;
  llama.max_position_tokens = 131072;
  EXPECT_EQ(vllm_mrope_cache_bytes(llama), 0u);
}

TEST(RopeCache, VllmsRopeWithAnMropeSectionKeepsFourTimesTheRotatedRows) {
  // Qwen3-VL-8B-Instruct as published: text_config.rope_scaling
  // {"mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type":
  // "default"} (the corpus copy leaves it out), 262,144 positions, head dim
  // 128 rotated whole: 4 x 262,144 = 1,048,576 rows x 128 x 2 B =
  // 268,435,456 B, where the plain cache is 67,108,864.
  nlohmann::json config =
      nlohmann::json::parse(testing::read_test_data("corpus/qwen3_vl/Qwen3-VL-8B-Instruct/config.json"));
  Result<ModelSpec> plain = parse_model_config(config.dump());
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(vllm_mrope_cache_bytes(*plain), 0u);
  EXPECT_EQ(rope_cache_bytes(*plain), 67108864u);
  config["text_config"]["rope_scaling"] = {
      {"mrope_interleaved", true}, {"mrope_section", {24, 20, 20}}, {"rope_type", "default"}};
  Result<ModelSpec> vl = parse_model_config(config.dump());
  ASSERT_TRUE(vl.ok()) << vl.error().message();
  EXPECT_TRUE(vl->rope_scaling.mrope);
  EXPECT_EQ(vl->rope_scaling.type, "default");
  EXPECT_EQ(vllm_mrope_cache_bytes(*vl), 268435456u);
  // A factor inside the rope object overrides the text config's: 0.5 of
  // 128 = 64 wide, 1,048,576 x 64 x 2 B = 134,217,728.
  config["text_config"]["partial_rotary_factor"] = 0.25;
  config["text_config"]["rope_scaling"]["partial_rotary_factor"] = 0.5;
  Result<ModelSpec> half = parse_model_config(config.dump());
  ASSERT_TRUE(half.ok()) << half.error().message();
  EXPECT_EQ(vllm_mrope_cache_bytes(*half), 134217728u);
}

}  // namespace
}  // namespace memfit
