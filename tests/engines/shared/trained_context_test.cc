// The model's own context under each engine's rule (trained_context.h,
// docs/engines.md "The model's own context"): vLLM's derived max_model_len
// (rope scaling considered, mlxcel and mlx-lm take it too) and llama.cpp's
// n_ctx_train (the declared context_length alone), on real configs from
// tests/data/corpus, some with the rope_scaling their model cards tell
// users to add for long context.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/shared/trained_context.h"
#include "memfit/engine.h"
#include "memfit/gguf.h"
#include "memfit/model.h"
#include "support/corpus.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

using testing::corpus_spec;
using testing::read_test_data;

// The corpus config `relative` with `rope_scaling` set as given.
ModelSpec with_rope_scaling(const std::string& relative, const nlohmann::json& rope_scaling) {
  nlohmann::json config =
      nlohmann::json::parse(read_test_data("corpus/" + relative + "/config.json"));
  config["rope_scaling"] = rope_scaling;
  Result<ModelSpec> spec = parse_model_config(config.dump());
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(TrainedContext, Qwen25YarnFactor4IsOriginalTimesFour) {
  // Qwen2.5's model card: add {"factor": 4.0, "original_max_position_embeddings":
  // 32768, "type": "yarn"} for 128K. max_position_embeddings 32768.
  const ModelSpec spec = with_rope_scaling(
      "qwen2_5/Qwen2.5-3B-Instruct",
      {{"factor", 4.0}, {"original_max_position_embeddings", 32768}, {"type", "yarn"}});
  EXPECT_EQ(spec.rope_scaling.type, "yarn");
  EXPECT_EQ(spec.rope_scaling.factor, 4.0);
  EXPECT_EQ(spec.rope_scaling.original_max_positions, 32768u);
  // vLLM: yarn scales the original: 32,768 x 4 = 131,072.
  const TrainedContext vllm = rope_scaled_context(spec);
  EXPECT_EQ(vllm.tokens, 131072u);
  EXPECT_EQ(vllm.basis, "its config's rope scaling: original 32768 x yarn factor 4");
  // llama.cpp: the GGUF's context_length, convert_hf_to_gguf's
  // max_position_embeddings, 32,768: the factor is not applied.
  EXPECT_EQ(declared_context(spec).tokens, 32768u);
}

TEST(TrainedContext, Qwen3YarnScalesTheOriginalNotTheDeclared) {
  // Qwen3-8B declares 40,960; its card's yarn (rope_type) factor 4 over an
  // original 32,768: 32,768 x 4 = 131,072, not 40,960 x 4 = 163,840.
  const ModelSpec spec = with_rope_scaling(
      "qwen3/Qwen3-8B",
      {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}});
  EXPECT_EQ(rope_scaled_context(spec).tokens, 131072u);
  EXPECT_EQ(declared_context(spec).tokens, 40960u);
}

TEST(TrainedContext, RealConfigsWithRopeScaling) {
  // Llama 3.1: rope_type llama3 (factor 8, original 8192) declares its
  // extended context already; vLLM leaves 131,072 as it is (not 8 x
  // 131,072, nor 8 x 8,192 = 65,536).
  EXPECT_EQ(rope_scaled_context(corpus_spec("llama3/Meta-Llama-3.1-8B")).tokens, 131072u);
  // Phi-3.5-mini: longrope, 131,072 as declared.
  EXPECT_EQ(rope_scaled_context(corpus_spec("phi3/Phi-3.5-mini-instruct")).tokens, 131072u);
  // DeepSeek-V3: yarn factor 40 over an original 4,096 = 163,840.
  const ModelSpec v3 = corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_EQ(v3.rope_scaling.type, "yarn");
  EXPECT_EQ(rope_scaled_context(v3).tokens, 163840u);
  // gpt-oss-20b: yarn factor 32 over 4,096 = 131,072.
  EXPECT_EQ(rope_scaled_context(corpus_spec("gpt_oss/gpt-oss-20b")).tokens, 131072u);
  // Qwen2.5-VL: mrope with no factor (1): its text config's 128,000.
  EXPECT_EQ(rope_scaled_context(corpus_spec("qwen2_5_vl/Qwen2.5-VL-7B-Instruct")).tokens, 128000u);
  // No rope_scaling: the declared context (Qwen3-8B, 40,960).
  EXPECT_EQ(rope_scaled_context(corpus_spec("qwen3/Qwen3-8B")).tokens, 40960u);
}

TEST(TrainedContext, LinearAndDynamicScaleTheDeclaredContext) {
  // Qwen2-7B declares 32,768: dynamic x 2 = 65,536, linear x 2.5 = 81,920.
  EXPECT_EQ(rope_scaled_context(with_rope_scaling("qwen2_5/Qwen2-7B-Instruct-preset",
                                                  {{"type", "dynamic"}, {"factor", 2.0}}))
                .tokens,
            65536u);
  const TrainedContext linear = rope_scaled_context(with_rope_scaling(
      "qwen2_5/Qwen2-7B-Instruct-preset", {{"rope_type", "linear"}, {"factor", 2.5}}));
  EXPECT_EQ(linear.tokens, 81920u);
  EXPECT_EQ(linear.basis, "its config's rope scaling: 32768 x linear factor 2.5");
}

TEST(TrainedContext, Gemma3DeclaresItsScaledContext) {
  // vLLM skips the factor for model types containing "gemma3" (Gemma 3's
  // 4B-27B text configs carry linear x 8 over an already scaled context):
  // gemma-3-1b-it (gemma3_text) stays at 32,768.
  EXPECT_EQ(rope_scaled_context(with_rope_scaling("gemma3/gemma-3-1b-it",
                                                  {{"rope_type", "linear"}, {"factor", 8.0}}))
                .tokens,
            32768u);
}

TEST(TrainedContext, MalformedScalingReadsAsNone) {
  // A factor that is not a positive number is ignored (factor 1).
  EXPECT_EQ(rope_scaled_context(with_rope_scaling("qwen3/Qwen3-8B",
                                                  {{"type", "dynamic"}, {"factor", "four"}}))
                .tokens,
            40960u);
  EXPECT_EQ(rope_scaled_context(with_rope_scaling("qwen3/Qwen3-8B", "yarn")).tokens, 40960u);
}

TEST(TrainedContext, VllmStartsALongropeConfigAtItsOriginalLength) {
  // Phi-3.5-mini: longrope, 131,072 declared, original_max_position_embeddings
  // 4,096 at the top of its config. vLLM's derived length (its ceiling) is
  // 131,072; with no --max-model-len it starts at 4,096.
  const ModelSpec phi = corpus_spec("phi3/Phi-3.5-mini-instruct");
  EXPECT_EQ(phi.rope_scaling.type, "longrope");
  EXPECT_EQ(phi.rope_scaling.config_original_max_positions, 4096u);
  EXPECT_EQ(rope_scaled_context(phi).tokens, 131072u);
  EXPECT_EQ(vllm_default_max_model_len(phi), 4096u);
  // Any other type starts at the derived length: 32,768 x 4 = 131,072.
  EXPECT_EQ(vllm_default_max_model_len(with_rope_scaling(
                "qwen2_5/Qwen2.5-3B-Instruct",
                {{"factor", 4.0}, {"original_max_position_embeddings", 32768}, {"type", "yarn"}})),
            131072u);
}

TEST(TrainedContext, RopeParametersByLayerTypeFoldAsVllmsLoop) {
  // transformers 5: one entry per layer type. Yarn x 4 over 32,768 on the
  // full-attention layers and plain RoPE on the sliding ones: the default
  // entry leaves yarn's factor, 32,768 x 4 = 131,072.
  nlohmann::json config =
      nlohmann::json::parse(read_test_data("corpus/qwen3/Qwen3-8B/config.json"));
  config["rope_parameters"] = {
      {"full_attention",
       {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}}},
      {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 10000.0}}}};
  Result<ModelSpec> spec = parse_model_config(config.dump());
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->rope_scaling.type, "yarn");
  EXPECT_EQ(rope_scaled_context(*spec).tokens, 131072u);
}

// A Qwen3-8B GGUF header (geometry as convert_hf_to_gguf.py writes it),
// context_length 40,960, with `extra` keys added.
ModelSpec qwen3_gguf(void (*extra)(GgufWriter&)) {
  GgufWriter w;
  w.add_string("general.architecture", "qwen3")
      .add_u32("qwen3.block_count", 36)
      .add_u32("qwen3.context_length", 40960)
      .add_u32("qwen3.embedding_length", 4096)
      .add_u32("qwen3.feed_forward_length", 12288)
      .add_u32("qwen3.attention.head_count", 32)
      .add_u32("qwen3.attention.head_count_kv", 8)
      .add_u32("qwen3.attention.key_length", 128)
      .add_u32("qwen3.attention.value_length", 128)
      .add_u32("qwen3.vocab_size", 151936);
  extra(w);
  const std::string bytes = w.bytes();
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  EXPECT_TRUE(header.ok()) << header.error().message();
  if (!header.ok()) return ModelSpec{};
  Result<ModelSpec> spec = model_spec_from_gguf(*header);
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(TrainedContext, GgufRopeScalingKeysAreTheConfigsRopeScaling) {
  // convert_hf_to_gguf.py's yarn: type "yarn", factor 4, original 32,768.
  // llama.cpp's n_ctx_train stays context_length, 40,960; vLLM's rule gives
  // 32,768 x 4 = 131,072.
  const ModelSpec yarn = qwen3_gguf([](GgufWriter& w) {
    w.add_string("qwen3.rope.scaling.type", "yarn")
        .add_f32("qwen3.rope.scaling.factor", 4.0f)
        .add_u32("qwen3.rope.scaling.original_context_length", 32768);
  });
  EXPECT_EQ(yarn.rope_scaling.type, "yarn");
  EXPECT_EQ(yarn.rope_scaling.original_max_positions, 32768u);
  EXPECT_EQ(declared_context(yarn).tokens, 40960u);
  EXPECT_EQ(rope_scaled_context(yarn).tokens, 131072u);
  // A factor with no type is llama.cpp's default type, linear: 40,960 x 2 =
  // 81,920; the old key rope.scale_linear reads the same.
  const ModelSpec linear =
      qwen3_gguf([](GgufWriter& w) { w.add_f32("qwen3.rope.scaling.factor", 2.0f); });
  EXPECT_EQ(linear.rope_scaling.type, "linear");
  EXPECT_EQ(rope_scaled_context(linear).tokens, 81920u);
  const ModelSpec old_key =
      qwen3_gguf([](GgufWriter& w) { w.add_f32("qwen3.rope.scale_linear", 2.0f); });
  EXPECT_EQ(rope_scaled_context(old_key).tokens, 81920u);
  // Type "none" (and no key at all): no scaling, 40,960.
  const ModelSpec none = qwen3_gguf([](GgufWriter& w) {
    w.add_string("qwen3.rope.scaling.type", "none").add_f32("qwen3.rope.scaling.factor", 4.0f);
  });
  EXPECT_EQ(none.rope_scaling.type, "");
  EXPECT_EQ(rope_scaled_context(none).tokens, 40960u);
  EXPECT_EQ(rope_scaled_context(qwen3_gguf([](GgufWriter&) {})).tokens, 40960u);
}

TEST(TrainedContext, GgufRopeScalingTypeOfTheWrongKindIsAnError) {
  GgufWriter w;
  w.add_string("general.architecture", "qwen3")
      .add_u32("qwen3.block_count", 36)
      .add_u32("qwen3.embedding_length", 4096)
      .add_u32("qwen3.attention.head_count", 32)
      .add_u32("qwen3.rope.scaling.type", 2);
  const std::string bytes = w.bytes();
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  ASSERT_TRUE(header.ok()) << header.error().message();
  Result<ModelSpec> spec = model_spec_from_gguf(*header);
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message().find("qwen3.rope.scaling.type"), std::string::npos)
      << spec.error().message();
}

TEST(TrainedContext, TheWarningNamesTheLimitAndItsBasis) {
  std::vector<Warning> warnings;
  const TrainedContext limit{131072, "its config's rope scaling: original 32768 x yarn factor 4"};
  warn_past_trained_context(limit, 131072, "--max-tokens", warnings);
  EXPECT_TRUE(warnings.empty());
  warn_past_trained_context(limit, 131073, "--max-tokens", warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].text.rfind("--max-tokens 131073 is past the 131072 tokens this model was "
                                   "trained for (its config's rope scaling: original 32768 x "
                                   "yarn factor 4)",
                                   0),
            0u)
      << warnings[0].text;
}

TEST(TrainedContext, EachEngineSaysItsOwnLimit) {
  Model model;
  model.spec = with_rope_scaling(
      "qwen2_5/Qwen2.5-3B-Instruct",
      {{"factor", 4.0}, {"original_max_position_embeddings", 32768}, {"type", "yarn"}});
  const EngineRegistry& engines = EngineRegistry::instance();
  // 32,768 x 4 under vLLM's rule; llama.cpp's n_ctx_train 32,768.
  EXPECT_EQ(engines.find("vllm")->context_limit_tokens(model), 131072u);
  EXPECT_EQ(engines.find("mlxcel")->context_limit_tokens(model), 131072u);
  EXPECT_EQ(engines.find("mlx-lm")->context_limit_tokens(model), 131072u);
  EXPECT_EQ(engines.find("llamacpp")->context_limit_tokens(model), 32768u);
}

}  // namespace
}  // namespace memfit
