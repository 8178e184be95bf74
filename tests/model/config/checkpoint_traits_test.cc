// Quantization and MoE shape as the corpus configs declare them.
#include <gtest/gtest.h>

#include "support/corpus.h"

namespace memfit {
namespace {

using testing::corpus_spec;

TEST(Quantization, MlxAffineBlock) {
  QuantizationInfo q = corpus_spec("mlx/Qwen3-14B-MLX-4bit").quantization;
  EXPECT_EQ(q.method, "mlx_affine");
  EXPECT_EQ(q.bits, 4u);
  EXPECT_EQ(q.group_size, 64u);
  EXPECT_EQ(corpus_spec("mlx/Falcon3-Mamba-7B-Instruct-4bits").quantization.method, "mlx_affine");
}

TEST(Quantization, Fp8BlockScales) {
  QuantizationInfo q = corpus_spec("qwen3_moe/Qwen3-30B-A3B-FP8").quantization;
  EXPECT_EQ(q.method, "fp8");
  EXPECT_EQ(q.bits, 8u);
  EXPECT_EQ(q.block_size, (std::vector<uint64_t>{128, 128}));
  EXPECT_EQ(corpus_spec("deepseek_v3/DeepSeek-V3").quantization.method, "fp8");
}

TEST(Quantization, Mxfp4AndBitsandbytes) {
  QuantizationInfo mx = corpus_spec("gpt_oss/gpt-oss-20b").quantization;
  EXPECT_EQ(mx.method, "mxfp4");
  EXPECT_EQ(mx.bits, 4u);
  QuantizationInfo bnb = corpus_spec("llama3/Llama-3.1-8B-ft-bnb-int8").quantization;
  EXPECT_EQ(bnb.method, "bitsandbytes");
  EXPECT_EQ(bnb.bits, 8u);
}

TEST(Quantization, GptqAwqAndCompressedTensors) {
  auto quant = [](std::string_view block) {
    std::string json = R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"quantization_config":)" +
                       std::string(block) + "}";
    Result<ModelSpec> spec = parse_model_config(json);
    EXPECT_TRUE(spec.ok());
    return spec.ok() ? spec->quantization : QuantizationInfo{};
  };
  QuantizationInfo gptq = quant(R"({"quant_method":"gptq","bits":4,"group_size":128})");
  EXPECT_EQ(gptq.method, "gptq");
  EXPECT_EQ(gptq.bits, 4u);
  EXPECT_EQ(gptq.group_size, 128u);
  EXPECT_EQ(quant(R"({"quant_method":"awq","bits":4,"group_size":128})").method, "awq");
  QuantizationInfo ct = quant(R"({"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":8,"group_size":null}}}})");
  EXPECT_EQ(ct.method, "compressed-tensors");
  EXPECT_EQ(ct.bits, 8u);
  EXPECT_EQ(quant(R"({"bits":"four"})").bits, 0u);
}

TEST(Quantization, ModulesLeftUnquantizedAreKeptAsWritten) {
  QuantizationInfo mx = corpus_spec("gpt_oss/gpt-oss-20b").quantization;
  EXPECT_EQ(mx.unquantized_modules,
            (std::vector<std::string>{"model.layers.*.self_attn", "model.layers.*.mlp.router",
                                      "model.embed_tokens", "lm_head"}));
  QuantizationInfo fp8 = corpus_spec("qwen3_moe/Qwen3-30B-A3B-FP8").quantization;
  ASSERT_EQ(fp8.unquantized_modules.size(), 145u);  // lm_head + 48 x 3
  EXPECT_EQ(fp8.unquantized_modules[2], "model.layers.0.mlp.gate");
  // bitsandbytes' own list may be null.
  EXPECT_TRUE(
      corpus_spec("llama3/Llama-3.1-8B-ft-bnb-int8").quantization.unquantized_modules.empty());
}

TEST(Quantization, FlagsAndMlxPerModuleSettings) {
  auto quant = [](std::string_view blocks) {
    std::string json = R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,)" +
                       std::string(blocks) + "}";
    Result<ModelSpec> spec = parse_model_config(json);
    EXPECT_TRUE(spec.ok());
    return spec.ok() ? spec->quantization : QuantizationInfo{};
  };
  EXPECT_TRUE(quant(R"("quantization_config":{"quant_method":"gptq","bits":4,"lm_head":true})")
                  .lm_head_quantized);
  EXPECT_TRUE(quant(R"("quantization_config":{"load_in_4bit":true,
      "bnb_4bit_use_double_quant":true})").double_quant);
  QuantizationInfo mlx = quant(R"("quantization":{"group_size":64,"bits":4,
      "model.layers.0.mlp.gate":{"group_size":32,"bits":8},"model.layers.1.mlp.gate":false,
      "model.layers.0.self_attn.q_proj":{"group_size":32}},
      "quantization_config":{"group_size":64,"bits":4})");
  EXPECT_EQ(mlx.method, "mlx_affine");
  ASSERT_EQ(mlx.module_overrides.size(), 3u);  // in key order
  EXPECT_EQ(mlx.module_overrides[0].module, "model.layers.0.mlp.gate");
  EXPECT_EQ(mlx.module_overrides[0].bits, 8u);
  EXPECT_EQ(mlx.module_overrides[0].group_size, 32u);
  EXPECT_EQ(mlx.module_overrides[1].module, "model.layers.0.self_attn.q_proj");
  EXPECT_EQ(mlx.module_overrides[1].bits, 4u);  // the block's own bits
  EXPECT_EQ(mlx.module_overrides[2].module, "model.layers.1.mlp.gate");
  EXPECT_EQ(mlx.module_overrides[2].bits, 0u);  // false: left unquantized
}

TEST(Quantization, NoneForPlainCheckpoints) {
  EXPECT_EQ(corpus_spec("llama3/Meta-Llama-3.1-8B").quantization.method, "");
}

TEST(Moe, ExpertsPerTokenAndShared) {
  MoeInfo v3 = corpus_spec("deepseek_v3/DeepSeek-V3").moe;
  EXPECT_EQ(v3.experts, 256u);
  EXPECT_EQ(v3.experts_per_token, 8u);
  EXPECT_EQ(v3.shared_experts, 1u);
  MoeInfo mixtral = corpus_spec("mixtral/Mixtral-8x7B-v0.1").moe;
  EXPECT_EQ(mixtral.experts, 8u);
  EXPECT_EQ(mixtral.experts_per_token, 2u);
  EXPECT_EQ(mixtral.shared_experts, 0u);
  // Qwen3.5 MoE: shared_expert_intermediate_size 512 means one shared expert.
  MoeInfo q35 = corpus_spec("qwen3_5/Qwen3.5-35B-A3B").moe;
  EXPECT_EQ(q35.experts, 256u);
  EXPECT_EQ(q35.experts_per_token, 8u);
  EXPECT_EQ(q35.shared_experts, 1u);
  EXPECT_EQ(corpus_spec("qwen3/Qwen3-8B").moe.experts, 0u);
}

}  // namespace
}  // namespace memfit
