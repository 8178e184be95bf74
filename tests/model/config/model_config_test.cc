// parse_model_config: alias chains, nested text configs, family defaults
// and every way a config can be wrong. Error texts are asserted exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memfit/model_spec.h"
#include "support/corpus.h"

namespace memfit {
namespace {

ModelSpec parse_ok(std::string_view json) {
  Result<ModelSpec> spec = parse_model_config(json);
  EXPECT_TRUE(spec.ok()) << json << ": " << (spec.ok() ? "" : spec.error().message());
  return spec.ok() ? *spec : ModelSpec{};
}

std::string parse_error(std::string_view json) {
  Result<ModelSpec> spec = parse_model_config(json);
  EXPECT_FALSE(spec.ok()) << json;
  return spec.ok() ? "" : spec.error().message();
}

TEST(ModelConfig, AliasChainsFirstPresentWins) {
  // GPT-2 style names: n_layer, n_embd, n_head; no kv heads -> heads;
  // head_dim = 768 / 12 = 64; intermediate 4 x 768 = 3072.
  ModelSpec s = parse_ok(R"({"model_type":"gpt2","n_layer":12,"n_embd":768,"n_head":12,"vocab_size":50257})");
  EXPECT_EQ(s.geometry.layers, 12u);
  EXPECT_EQ(s.geometry.hidden, 768u);
  EXPECT_EQ(s.geometry.heads, 12u);
  EXPECT_EQ(s.geometry.kv_heads, 12u);
  EXPECT_EQ(s.geometry.head_dim, 64u);
  EXPECT_EQ(s.geometry.intermediate, 3072u);
  EXPECT_EQ(s.geometry.vocab, 50257u);
  // num_hidden_layers beats n_layers when both are present.
  EXPECT_EQ(parse_ok(R"({"num_hidden_layers":4,"n_layers":9,"d_model":64,"n_heads":4})").geometry.layers, 4u);
}

TEST(ModelConfig, KvHeadAliasesAndMultiQuery) {
  // ChatGLM: multi_query_group_num.
  EXPECT_EQ(parse_ok(R"({"num_layers":2,"hidden_size":4096,"num_attention_heads":32,"multi_query_group_num":2})")
                .geometry.kv_heads, 2u);
  // Falcon: multi_query true -> 1.
  EXPECT_EQ(parse_ok(R"({"n_layer":2,"hidden_size":4544,"n_head":71,"multi_query":true})").geometry.kv_heads, 1u);
  EXPECT_EQ(parse_ok(R"({"n_layer":2,"hidden_size":4544,"n_head":71,"multi_query":false})").geometry.kv_heads, 71u);
  EXPECT_EQ(parse_ok(R"({"n_layer":2,"dim":4096,"n_heads":32,"n_kv_heads":8})").geometry.kv_heads, 8u);
}

TEST(ModelConfig, NestedTextConfigWinsWhenItHasALayerCount) {
  // The top-level count (a vision tower's) is ignored in favour of text_config.
  ModelSpec s = parse_ok(R"({"model_type":"llava","num_hidden_layers":24,"hidden_size":1024,
      "num_attention_heads":16,"text_config":{"model_type":"llama","num_hidden_layers":32,
      "hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":32064}})");
  EXPECT_EQ(s.model_type, "llava");
  EXPECT_EQ(s.family, "llama");
  EXPECT_EQ(s.geometry.layers, 32u);
  EXPECT_EQ(s.geometry.kv_heads, 8u);
  // language_config and llm_config work the same way.
  EXPECT_EQ(parse_ok(R"({"language_config":{"num_hidden_layers":3,"hidden_size":64,"num_attention_heads":4}})").geometry.layers, 3u);
  EXPECT_EQ(parse_ok(R"({"llm_config":{"num_hidden_layers":5,"hidden_size":64,"num_attention_heads":4}})").geometry.layers, 5u);
  // A nested config without a layer count is not the text model.
  EXPECT_EQ(parse_ok(R"({"num_hidden_layers":7,"hidden_size":64,"num_attention_heads":4,"text_config":{"hidden_size":8}})").geometry.layers, 7u);
}

TEST(ModelConfig, Qwen3VlGeometryComesFromTextConfig) {
  ModelSpec s = testing::corpus_spec("qwen3_vl/Qwen3-VL-8B-Instruct");
  EXPECT_EQ(s.model_type, "qwen3_vl");
  EXPECT_EQ(s.geometry.layers, 36u);
  EXPECT_EQ(s.geometry.hidden, 4096u);
  EXPECT_EQ(s.geometry.kv_heads, 8u);
}

TEST(ModelConfig, Gemma3TextDefaultsFillOmittedFields) {
  // A Gemma 3 text config that omits heads and head_dim, as many do:
  // Gemma3TextConfig gives 8 heads, 4 kv heads, head_dim 256, pattern 6.
  ModelSpec s = parse_ok(R"({"model_type":"gemma3_text","num_hidden_layers":12,"hidden_size":2560,"sliding_window":1024})");
  EXPECT_EQ(s.geometry.heads, 8u);
  EXPECT_EQ(s.geometry.kv_heads, 4u);
  EXPECT_EQ(s.geometry.head_dim, 256u);
  EXPECT_EQ(s.family, "gemma3");
  // layers 5 and 11 are global: (i + 1) % 6 == 0.
  EXPECT_EQ(s.layers[5].kind, LayerKind::kFullAttention);
  EXPECT_EQ(s.layers[11].kind, LayerKind::kFullAttention);
  EXPECT_EQ(s.layers[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(s.layers[0].window_tokens, 1024u);
  const std::vector<std::string> expected = {
      "num_attention_heads = 8 (gemma3_text default)", "num_key_value_heads = 4 (gemma3_text default)",
      "head_dim = 256 (gemma3_text default)", "intermediate_size = 9216 (gemma3_text default)",
      "vocab_size = 262208 (gemma3_text default)", "sliding_window_pattern = 6 (gemma3_text default)"};
  EXPECT_EQ(s.assumptions, expected);
}

TEST(ModelConfig, PythonLiteralsInfinityAndNanAreRead) {
  ModelSpec s = testing::corpus_spec("mamba2/Mamba-Codestral-7B-hfconv");
  EXPECT_EQ(s.model_type, "mamba2");
  EXPECT_EQ(parse_ok(R"({"num_hidden_layers":1,"hidden_size":8,"num_attention_heads":2,"x":NaN,"y":-Infinity,"s":"Infinity"})").geometry.layers, 1u);
}

TEST(ModelConfig, NotJsonIsAnError) {
  // nlohmann's own words, with the line and column (json_parse_error.h).
  EXPECT_EQ(parse_error("{"),
            "not valid JSON: parse error at line 1, column 2: syntax error while parsing object "
            "key - unexpected end of input; expected string literal");
  EXPECT_EQ(parse_error(""),
            "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
            "unexpected end of input; expected '[', '{', or a literal");
  EXPECT_THAT(parse_error("\x89PNG\r\n"),
              ::testing::StartsWith("not valid JSON: parse error at line 1, column 1: syntax error "
                                    "while parsing value - invalid literal; last read: '"));
  // The third line, third column: where "oops" stands for a key.
  EXPECT_EQ(parse_error("{\n  \"a\": 1,\n  oops\n}"),
            "not valid JSON: parse error at line 3, column 3: syntax error while parsing object "
            "key - invalid literal; last read: '1,<U+000A>  o'; expected string literal");
  EXPECT_EQ(parse_error("[1, 2]"), "expected a JSON object at the top level");
  EXPECT_EQ(parse_error("42"), "expected a JSON object at the top level");
}

TEST(ModelConfig, MissingGeometryIsAnError) {
  EXPECT_EQ(parse_error(R"({"model_type":"llama","hidden_size":4096})"),
            "missing geometry: no layer count (num_hidden_layers, n_layers, num_layers or n_layer)");
  EXPECT_EQ(parse_error(R"({"model_type":"llama","num_hidden_layers":32})"),
            "missing geometry: no hidden size (hidden_size, d_model, dim, model_dim or n_embd)");
  EXPECT_EQ(parse_error(R"({"model_type":"llama","num_hidden_layers":32,"hidden_size":4096})"),
            "missing geometry: attention layers need num_key_value_heads and head_dim (or "
            "hidden_size and num_attention_heads)");
}

TEST(ModelConfig, NemotronHCountsItsLayersFromLayersBlockType) {
  // NemotronHConfig derives num_hidden_layers from layers_block_type
  // (Nemotron 3 configs give no num_hidden_layers): 4 layers, one of them
  // attention; another model type with the same list still needs a count.
  const ModelSpec s = parse_ok(
      R"({"model_type":"nemotron_h","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,
          "head_dim":16,"mamba_num_heads":4,"mamba_head_dim":32,"ssm_state_size":16,"n_groups":2,
          "conv_kernel":4,"layers_block_type":["mamba","moe","attention","moe"]})");
  EXPECT_EQ(s.geometry.layers, 4u);
  EXPECT_THAT(s.assumptions, ::testing::Contains(
      "num_hidden_layers = 4, the length of layers_block_type (NemotronHConfig)"));
  EXPECT_EQ(parse_error(R"({"model_type":"llama","hidden_size":64,"layers_block_type":["attention"]})"),
            "missing geometry: no layer count (num_hidden_layers, n_layers, num_layers or n_layer)");
}

TEST(ModelConfig, WrongTypesAndNonsenseValuesAreErrors) {
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":"32","hidden_size":4096,"num_attention_heads":32})"),
            "num_hidden_layers: expected a non-negative integer, got \"32\"");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":-1,"hidden_size":4096,"num_attention_heads":32})"),
            "num_hidden_layers: expected a non-negative integer, got -1");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":2.5,"hidden_size":4096,"num_attention_heads":32})"),
            "num_hidden_layers: expected a non-negative integer, got 2.5");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":0,"hidden_size":4096,"num_attention_heads":32})"),
            "layer count 0 is outside 1..4096");
  // A hostile layer count never sizes an allocation.
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":1000000000000,"hidden_size":4096,"num_attention_heads":32})"),
            "layer count 1000000000000 is outside 1..4096");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":2,"hidden_size":99999999999999,"num_attention_heads":32})"),
            "hidden_size 99999999999999 is implausibly large");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"use_sliding_window":"yes"})"),
            "use_sliding_window: expected true or false, got \"yes\"");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":3,"hidden_size":64,"num_attention_heads":4,"layer_types":["full_attention"]})"),
            "layer_types has 1 entries but the model has 3 layers");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"hybrid_override_pattern":"M"})"),
            "hybrid_override_pattern has 1 characters but the model has 2 layers");
  EXPECT_EQ(parse_error(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"hybrid_override_pattern":"MX"})"),
            "hybrid_override_pattern[1] = 'X' is not one of M * - E");
}

TEST(ModelConfig, NullFieldsCountAsAbsent) {
  // rwkv5's "intermediate_size": null -> 4 x hidden.
  EXPECT_EQ(testing::corpus_spec("rwkv/rwkv-5-world-3b").geometry.intermediate, 4u * 2560u);
  EXPECT_EQ(parse_ok(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"head_dim":null})").geometry.head_dim, 16u);
}

TEST(ModelConfig, UnknownLayerTypeIsCountedAsFullAttentionAndSaid) {
  ModelSpec s = parse_ok(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"layer_types":["full_attention","mystery"]})");
  EXPECT_EQ(s.layers[1].kind, LayerKind::kFullAttention);
  ASSERT_EQ(s.assumptions.size(), 2u);
  EXPECT_EQ(s.assumptions[0], "layer_types[1] = \"mystery\" is unknown; counted as full attention");
  EXPECT_EQ(s.assumptions[1], "config has no model_type: layout chosen from the geometry alone");
}

TEST(ModelConfig, AnalyticalParameterCountLlama31) {
  // Llama-3.1-8B: embeddings 128256 x 4096 x 2 (untied) = 1,050,673,152;
  // per layer: attention 2 x 4096 x 32 x 128 + 2 x 4096 x 8 x 128 = 41,943,040;
  // MLP 3 x 4096 x 14336 = 176,160,768; norms 2 x 4096 = 8192 -> 218,112,000;
  // x 32 = 6,979,584,000; + final norm 4096 -> 8,030,261,248 parameters.
  EXPECT_EQ(testing::corpus_spec("llama3/Meta-Llama-3.1-8B").analytical_params, 8030261248u);
}

TEST(ModelConfig, AnalyticalParameterCountKeepsTheDenseLayersOfAnMoeModel) {
  // DeepSeek-V3 (first_k_dense_replace 3 of 61 layers). MLA attention per
  // layer: q_a 1536 x 7168 + q_b 128 x 192 x 1536 + kv_a 576 x 7168
  // + kv_b 128 x 256 x 512 + o 7168 x 128 x 128 = 187,105,280; norms 14,336
  // and the latents' q_a_layernorm 1536 and kv_a_layernorm 512: 16,384.
  // Dense MLP 3 x 7168 x 18432 = 396,361,728; MoE: 256 experts x 3 x 7168
  // x 2048 + 1 shared 3 x 7168 x 2048 + router 256 x 7168 = 11,320,164,352.
  // 3 x 583,483,392 + 58 x 11,507,286,016 + embeddings 2 x 129280 x 7168
  // + final norm 7168 = 671,026,404,352 (the model card's 671B).
  EXPECT_EQ(testing::corpus_spec("deepseek_v3/DeepSeek-V3").analytical_params, 671026404352u);
  // Qwen3-30B-A3B routes on every layer (decoder_sparse_step 1, no
  // mlp_only_layers): 48 x (18,874,368 attention + 128 x 3 x 2048 x 768
  // + router 128 x 2048 + 4096 norms) + 2 x 151936 x 2048 + 2048.
  EXPECT_EQ(testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B").analytical_params, 30532110336u);
}

TEST(ModelConfig, AnalyticalParameterCountHoldsQwen2sQkvBiases) {
  // Qwen2.5-7B-Instruct: per layer q and o 2 x 3584 x 3584 = 25,690,112,
  // k and v 2 x 512 x 3584 = 3,670,016, their biases 3584 + 512 + 512 =
  // 4,608 (o has none), MLP 3 x 3584 x 18944 = 203,685,888, norms 7,168:
  // 233,057,792 x 28 = 6,525,618,176; untied tables 2 x 152064 x 3584 =
  // 1,089,994,752; final norm 3,584: 7,615,616,512 (the model card's
  // 7.61B; 129,024 fewer without the biases).
  EXPECT_EQ(parse_ok(testing::read_test_data("calibration/configs/Qwen2.5-7B-Instruct/config.json")).analytical_params,
            7615616512u);
}

TEST(ModelConfig, AnalyticalParameterCountFollowsSparseStepAndMlpOnlyLayers) {
  // 4 layers; MoE where (i + 1) % 2 == 0 and i is not in mlp_only_layers:
  // layer 1 only. head_dim 64 / 4 = 16: attention 2 x 64 x 4 x 16
  // + 2 x 64 x 4 x 16 = 16,384; dense MLP 3 x 64 x 128 = 24,576; MoE
  // 4 x 3 x 64 x 32 + router 4 x 64 = 24,832; norms 128; Qwen2's q/k/v
  // biases 3 x 4 x 16 = 192. 3 x 41,280 + 41,536 + tied embeddings 10 x 64
  // + final norm 64 = 166,080.
  ModelSpec s = parse_ok(R"({"model_type":"qwen2_moe","num_hidden_layers":4,"hidden_size":64,
      "num_attention_heads":4,"num_key_value_heads":4,"intermediate_size":128,
      "moe_intermediate_size":32,"num_experts":4,"decoder_sparse_step":2,"mlp_only_layers":[3],
      "vocab_size":10,"tie_word_embeddings":true})");
  EXPECT_EQ(s.analytical_params, 166080u);
}

TEST(ModelConfig, DeclaredContextLengthIsReadWhenPresent) {
  EXPECT_EQ(parse_ok(R"({"model_type":"qwen3","num_hidden_layers":2,"hidden_size":64,
      "num_attention_heads":4,"max_position_embeddings":40960})").max_position_tokens, 40960u);
  EXPECT_EQ(parse_ok(R"({"model_type":"gpt2","n_layer":2,"n_embd":64,"n_head":4,
      "n_positions":1024})").max_position_tokens, 1024u);
  // Absent, or not a number: 0 (unknown), and the config still parses.
  EXPECT_EQ(parse_ok(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4})")
                .max_position_tokens, 0u);
  EXPECT_EQ(parse_ok(R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,
      "max_position_embeddings":"long"})").max_position_tokens, 0u);
}

}  // namespace
}  // namespace memfit
