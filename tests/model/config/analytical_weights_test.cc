// Config-only weights at the quantization the config declares
// (model/config/analytical_weights.h), checked against real checkpoints where the
// corpus or a public record gives their size, and by hand elsewhere.
#include "model/config/analytical_weights.h"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/model.h"
#include "support/corpus.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

ModelSpec parse_ok_analytical_weights(std::string_view json) {
  Result<ModelSpec> spec = parse_model_config(json);
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

// --- Real checkpoints -----------------------------------------------------------

TEST(AnalyticalWeights, Qwen3MlxFourBitConfigAloneComesWithin20KiBOfItsCheckpoint) {
  // 14,768,296,960 parameters, of which norms 40 x 2 x 5120 + 5120 = 414,720
  // stay 16-bit; every matrix (embeddings and lm_head included) has an input
  // dimension divisible by 64. 14,767,882,240 x 4 / 8 = 7,383,941,120
  // + 14,767,882,240 / 64 x 4 = 922,992,640, + 414,720 x 2 = 829,440
  // -> 8,307,763,200. The checkpoint's index says 8,307,783,680: 20,480
  // bytes more, its q_norm and k_norm (40 x 2 x 128 x 2 bytes), which the
  // parameter count does not model.
  const AnalyticalWeights w = testing::corpus_spec("mlx/Qwen3-14B-MLX-4bit").analytical_weights;
  EXPECT_TRUE(w.quantization_applied);
  EXPECT_EQ(w.bytes, 8307763200u);
  EXPECT_EQ(w.quantized_params, 14767882240u);
  EXPECT_EQ(w.unquantized_params, 414720u);
  EXPECT_EQ(8307783680u - w.bytes, 20480u);
  EXPECT_EQ(w.detail,
            "4-bit MLX affine (group 64) on 14767882240 quantizable parameters, 16-bit on the "
            "remaining 414720");
}

TEST(AnalyticalWeights, ConfigOnlyFolderSaysWhichQuantizationWasApplied) {
  TempDir dir;
  dir.write_file("config.json",
                 testing::read_test_data("corpus/mlx/Qwen3-14B-MLX-4bit/config.json"));
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> m = open_model(*fs, dir.path());
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.source, WeightsSource::kAnalyticalConfig);
  EXPECT_FALSE(m->weights.verified);
  EXPECT_EQ(m->weights.bytes, 8307763200u);  // was 14,768,296,960 x 2 = 29,536,593,920
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_EQ(m->warnings[0],
            "'" + dir.path() + "': no weight files: weights estimated from config.json as 4-bit MLX "
                         "affine (group 64) on 14767882240 quantizable parameters, 16-bit on the "
                         "remaining 414720");
}

TEST(AnalyticalWeights, GptOssMxfp4ConfigAloneIsItsCheckpointLessTheHeaders) {
  // Routed experts, 24 layers x 32 x 3 matrices of 2880 x 2880 =
  // 19,110,297,600 parameters, in MXFP4: each matrix 2880 rows x 90 blocks
  // x (16 + 1) bytes = 4,406,400, x 2,304 = 10,152,345,600. The remaining
  // 16-bit parameters: attention, routers, embeddings, lm_head and norms,
  // 1,797,629,760, and gpt-oss's vectors per layer: the q/k/v/o biases
  // 4096 + 512 + 512 + 2880, 64 sinks, the router's 32 biases and the
  // experts' 32 x (5760 + 2880) = 276,480, so 284,576 x 24 = 6,829,824;
  // 1,804,459,584 x 2 = 3,608,919,168 -> 13,761,264,768. The checkpoint's
  // three files hold 4,792,272,488 + 4,798,702,184 + 4,170,342,232 =
  // 13,761,316,904 bytes: 52,136 more, their safetensors headers.
  const AnalyticalWeights w = testing::corpus_spec("gpt_oss/gpt-oss-20b").analytical_weights;
  EXPECT_EQ(w.bytes, 13761264768u);
  EXPECT_EQ(w.quantized_params, 19110297600u);
  EXPECT_EQ(w.unquantized_params, 1804459584u);
  const nlohmann::json files =
      nlohmann::json::parse(testing::read_test_data("corpus/gpt_oss/gpt-oss-20b/model_files.json"));
  uint64_t files_bytes = 0;
  for (const nlohmann::json& file : files["model_files"]) {
    files_bytes += file["size"].get<uint64_t>();
  }
  ASSERT_EQ(files_bytes, 13761316904u);
  EXPECT_EQ(files_bytes - w.bytes, 52136u);
  EXPECT_EQ(w.detail,
            "MXFP4 (4-bit, an 8-bit scale per 32) on 19110297600 quantizable parameters, 16-bit "
            "on the remaining 1804459584");
}

TEST(AnalyticalWeights, DeepSeekV3Fp8ConfigAloneIsItsCheckpointLessTheMtpLayer) {
  // 671,026,279,424 parameters (model/config/model_config_test.cc). FP8 on every
  // attention, MLP and expert projection: 669,065,609,216 bytes, plus a
  // float32 scale per 128 x 128 block: per layer 45,792 bytes for MLA
  // attention, 96,768 per dense MLP, 10,752 per expert (256 routed + 1
  // shared) -> 61 x 45,792 + 3 x 96,768 + 58 x 257 x 10,752 = 163,352,928.
  // Routers (58 x 256 x 7168), norms (the latents' q_a_layernorm and
  // kv_a_layernorm among them) and embeddings, 1,960,795,136, x 2 =
  // 3,921,590,272. Total 673,150,552,416. The released checkpoint is
  // 688,586,727,753 bytes: 2.2% more, its multi-token-prediction layer (a
  // 62nd MoE layer with its own embedding and head copies), which engines
  // load only for speculative decoding.
  const AnalyticalWeights w = testing::corpus_spec("deepseek_v3/DeepSeek-V3").analytical_weights;
  EXPECT_EQ(w.bytes, 673150552416u);
  EXPECT_EQ(w.quantized_params, 669065609216u);
  EXPECT_EQ(w.unquantized_params, 1960795136u);
  EXPECT_LT(688586727753u - w.bytes, 688586727753u / 40);
  EXPECT_EQ(w.detail,
            "FP8 (block 128x128) on 669065609216 quantizable parameters, 16-bit on the remaining "
            "1960795136");
}

TEST(AnalyticalWeights, Fp8LeavesTheModulesTheConfigNamesUnconverted) {
  // Qwen3-30B-A3B-FP8 names lm_head and each layer's norms and mlp.gate in
  // modules_to_not_convert. Per layer: attention q 4096 x 2048, k and v
  // 512 x 2048, o 2048 x 4096 = 18,874,368 and 128 experts x 3 x 768 x 2048
  // = 603,979,776 in FP8, x 48 = 29,896,998,912; scales per layer: 512 + 64
  // + 64 + 512 blocks + 128 x 3 x 96 = 38,016 x 4 bytes x 48 = 7,299,072.
  // Kept 16-bit: routers 48 x 128 x 2048, norms 48 x 4096 + 2048,
  // embeddings and lm_head 2 x 151936 x 2048 = 635,111,424 x 2.
  // 29,896,998,912 + 7,299,072 + 1,270,222,848 = 31,174,520,832.
  const AnalyticalWeights w =
      testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B-FP8").analytical_weights;
  EXPECT_EQ(w.bytes, 31174520832u);
  EXPECT_EQ(w.quantized_params, 29896998912u);
  EXPECT_EQ(w.unquantized_params, 635111424u);
}

TEST(AnalyticalWeights, DeepSeekV4PricesItsRoutedExpertsAsMxfp4) {
  // DeepSeek-V4-Flash's config (vllm#44376's sidecar): FP8 block 128 x 128
  // linears, expert_dtype "fp4"; 43 layers x 256 routed experts x gate, up
  // [2,048, 4,096] and down [4,096, 2,048]. FP8, a matrix is 8,388,608 B +
  // 16 x 32 float32 scales = 8,390,656 B; MXFP4 (vLLM's Mxfp4MoEMethod),
  // 2,048 x 128 blocks of 32 x (16 B of values + a 1 B scale) = 4,456,448 B.
  // expert_dtype "fp8" (the Flash-Base checkpoints) prices them as FP8:
  // (8,390,656 - 4,456,448) x 3 x 256 x 43 = 129,923,284,992 B more.
  const std::string text = testing::read_test_data("logs/vllm/vllm-44376-deepseek-v4-flash-tp2-ep-gh200.config.json");
  nlohmann::json fp8 = nlohmann::json::parse(text);
  ASSERT_EQ(fp8.value("expert_dtype", ""), "fp4");
  fp8["expert_dtype"] = "fp8";
  const ModelSpec flash = parse_ok_analytical_weights(text);
  const ModelSpec base = parse_ok_analytical_weights(fp8.dump());
  EXPECT_EQ(base.analytical_weights.bytes - flash.analytical_weights.bytes, 129923284992u);
  EXPECT_EQ(flash.analytical_weights.quantized_params, base.analytical_weights.quantized_params);
  EXPECT_NE(flash.analytical_weights.detail.find("(its routed experts MXFP4: 4-bit, an 8-bit scale per 32)"),
            std::string::npos)
      << flash.analytical_weights.detail;
  // Without expert_dtype vLLM takes "fp4" too (DeepseekV4FP8Config's default).
  nlohmann::json unset = nlohmann::json::parse(text);
  unset.erase("expert_dtype");
  EXPECT_EQ(parse_ok_analytical_weights(unset.dump()).analytical_weights.bytes, flash.analytical_weights.bytes);
  EXPECT_EQ(base.analytical_weights.detail.find("MXFP4"), std::string::npos) << base.analytical_weights.detail;
}

TEST(AnalyticalWeights, BitsandbytesInt8ConfigAloneMatchesItsCheckpointExactly) {
  // Llama-3.1-8B saved with load_in_8bit and torch_dtype float32. Linear
  // layers: 6,979,321,856 int8 weights + per layer SCB float32 over 43,008
  // rows x 4 x 32 = 5,505,024 + a weight_format byte per matrix (7 x 32 =
  // 224). Embeddings, lm_head and norms, 1,050,939,392, at float32: x 4 =
  // 4,203,757,568. Sum 11,188,584,672: the checkpoint index's total_size.
  const AnalyticalWeights w =
      testing::corpus_spec("llama3/Llama-3.1-8B-ft-bnb-int8").analytical_weights;
  EXPECT_EQ(w.bytes, 11188584672u);
  EXPECT_EQ(w.detail,
            "8-bit bitsandbytes (LLM.int8) on 6979321856 quantizable parameters, 32-bit on the "
            "remaining 1050939392");
}

// --- Hand-worked configs ----------------------------------------------------------

TEST(AnalyticalWeights, GptqPacksTheDecoderLinearsAndKeepsEmbeddingsAndHead) {
  // Qwen2.5-7B geometry with the GPTQ block Qwen publishes for its Int4
  // checkpoint. One q_proj (3584 x 3584) matches that checkpoint's tensors:
  // qweight I32 [448, 3584] 6,422,528 + qzeros I32 [28, 448] 50,176
  // + scales F16 [28, 3584] 200,704 + g_idx I32 [3584] 14,336 = 6,687,744.
  // Per layer q, k (512 x 3584), v, o, gate, up (18944 x 3584) and down
  // (3584 x 18944) come to 121,236,480 bytes, x 28 = 3,394,621,440.
  // Embeddings and lm_head 2 x 152064 x 3584, norms 28 x 2 x 3584 + 3584
  // and the q/k/v biases 28 x (3584 + 512 + 512) = 129,024 (the GPTQ
  // checkpoint keeps them fp16): 1,090,328,064 at fp16, 2,180,656,128.
  // Total 5,575,277,568.
  const AnalyticalWeights w = parse_ok_analytical_weights(R"({"model_type":"qwen2","num_hidden_layers":28,
      "hidden_size":3584,"num_attention_heads":28,"num_key_value_heads":4,
      "intermediate_size":18944,"vocab_size":152064,"tie_word_embeddings":false,
      "torch_dtype":"float16","quantization_config":{"bits":4,"damp_percent":0.01,
      "desc_act":false,"group_size":128,"modules_in_block_to_quantize":null,
      "quant_method":"gptq","static_groups":false,"sym":true,"true_sequential":true}})")
                                  .analytical_weights;
  EXPECT_EQ(w.bytes, 5575277568u);
  EXPECT_EQ(w.quantized_params, 6525288448u);  // 28 x 233,046,016
  EXPECT_EQ(w.detail,
            "4-bit GPTQ (group 128) on 6525288448 quantizable parameters, 16-bit on the "
            "remaining 1090328064");
}

TEST(AnalyticalWeights, AwqHonoursModulesToNotConvert) {
  // 2 layers, hidden 128, 2 heads of 64, 1 KV head, intermediate 256,
  // vocab 10, tied. Layer 1's MLP is named unconverted.
  // AWQ 4-bit group 128, per matrix: qweight cols x ceil(rows / 8) x 4,
  // qzeros ceil(cols / 128) x ceil(rows / 8) x 4, scales groups x rows x 2:
  //   q, o 128 x 128: 8,192 + 64 + 256 = 8,512 each
  //   k, v 64 x 128: 4,096 + 32 + 128 = 4,256 each
  //   gate, up 256 x 128: 16,384 + 128 + 512 = 17,024 each
  //   down 128 x 256: 16,384 + 128 + 512 = 17,024
  // Layer 0: 25,536 + 51,072 = 76,608; layer 1: 25,536 + its MLP
  // 3 x 32,768 x 2 = 196,608; norms 2 x 2 x 128 + 128 and embeddings 1,280
  // = 1,920 x 2 = 3,840. Total 302,592.
  const AnalyticalWeights w = parse_ok_analytical_weights(R"({"model_type":"llama","num_hidden_layers":2,
      "hidden_size":128,"num_attention_heads":2,"num_key_value_heads":1,
      "intermediate_size":256,"vocab_size":10,"tie_word_embeddings":true,
      "quantization_config":{"quant_method":"awq","bits":4,"group_size":128,
      "version":"gemm","zero_point":true,"modules_to_not_convert":["model.layers.1.mlp"]}})")
                                  .analytical_weights;
  EXPECT_EQ(w.bytes, 302592u);
  EXPECT_EQ(w.quantized_params, 196608u);    // 2 x 49,152 attention + layer 0's 98,304 MLP
  EXPECT_EQ(w.unquantized_params, 100224u);  // 98,304 MLP + 1,920
}

TEST(AnalyticalWeights, PatternsNamingNoSingleLayerAreCappedAt256) {
  // The AWQ model above: both layers quantized = 2 x 76,608 + 3,840 =
  // 157,056; both MLPs left out = 2 x (25,536 + 196,608) + 3,840 = 448,128.
  auto awq_with = [](const std::string& modules) {
    return parse_ok_analytical_weights(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":128,
        "num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":256,
        "vocab_size":10,"tie_word_embeddings":true,"quantization_config":{
        "quant_method":"awq","bits":4,"group_size":128,"modules_to_not_convert":[)" +
                    modules + "]}}")
        .analytical_weights.bytes;
  };
  EXPECT_EQ(awq_with(R"("model.layers.*.mlp")"), 448128u);
  std::string many;
  for (int i = 0; i < 256; ++i) many += "\"vision_" + std::to_string(i) + "\",";
  EXPECT_EQ(awq_with(many + R"("model.layers.*.mlp")"), 157056u);  // the 257th is not read
  // Patterns naming one layer are indexed by it and not capped.
  EXPECT_EQ(awq_with(many + R"("model.layers.0.mlp","model.layers.1.mlp")"), 448128u);
}

TEST(AnalyticalWeights, MlxPerModuleSettingsAndIndivisibleInputsAreHonoured) {
  // One qwen3_moe layer, hidden 128, 2 experts of 96. 4-bit group 64 costs
  // 0.5625 bytes a weight: q, o 16,384 and k, v 8,192 weights -> 27,648;
  // expert gate and up 2 x 2 x 12,288 -> 27,648. down's input, 96, is not
  // a multiple of 64: 24,576 weights stay 16-bit (49,152). The router
  // (2 x 128) is set to 8 bits: 256 + 4 x 4 = 272. Embeddings 10 x 128
  // -> 720; norms 384 x 2 = 768. Total 106,208.
  const AnalyticalWeights w = parse_ok_analytical_weights(R"({"model_type":"qwen3_moe","num_hidden_layers":1,
      "hidden_size":128,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":64,
      "intermediate_size":256,"moe_intermediate_size":96,"num_experts":2,
      "num_experts_per_tok":1,"vocab_size":10,"tie_word_embeddings":true,
      "quantization":{"group_size":64,"bits":4,
                      "model.layers.0.mlp.gate":{"group_size":64,"bits":8}}})")
                                  .analytical_weights;
  EXPECT_EQ(w.bytes, 106208u);
  EXPECT_EQ(w.quantized_params, 99840u);
  EXPECT_EQ(w.unquantized_params, 24960u);
  EXPECT_EQ(w.detail,
            "4-bit MLX affine (group 64; per-module settings on 1 module) on 99840 quantizable "
            "parameters, 16-bit on the remaining 24960");
}

TEST(AnalyticalWeights, ConfigsWithoutQuantizationStayAtTwoBytesAParameter) {
  const AnalyticalWeights w = testing::corpus_spec("llama3/Meta-Llama-3.1-8B").analytical_weights;
  EXPECT_FALSE(w.quantization_applied);
  EXPECT_EQ(w.bytes, 16060522496u);  // 8,030,261,248 x 2
  EXPECT_EQ(w.detail, "8030261248 parameters x 2 bytes");
}

TEST(AnalyticalWeights, MethodsMemfitCannotPriceAreSaidNotApplied) {
  // 4 x 64 x 64 attention + 3 x 64 x 64 MLP + 3 x 64 norms + 640 = 29,504.
  auto with_quantization = [](std::string_view block) {
    return parse_ok_analytical_weights(std::string(R"({"model_type":"llama","num_hidden_layers":1,
        "hidden_size":64,"num_attention_heads":1,"intermediate_size":64,"vocab_size":10,
        "tie_word_embeddings":true,"quantization_config":)") +
                    std::string(block) + "}")
        .analytical_weights;
  };
  const AnalyticalWeights ct = with_quantization(
      R"({"quant_method":"compressed-tensors","config_groups":{"g":{"weights":{"num_bits":4}}}})");
  EXPECT_FALSE(ct.quantization_applied);
  EXPECT_EQ(ct.bytes, 59008u);
  EXPECT_EQ(ct.detail,
            "29504 parameters x 2 bytes; its quantization 'compressed-tensors' is not one memfit "
            "prices from a config alone, so it was not applied");
  // MXFP4 packs routed experts; a dense model has none.
  const AnalyticalWeights mx = with_quantization(R"({"quant_method":"mxfp4"})");
  EXPECT_EQ(mx.bytes, 59008u);
  EXPECT_EQ(mx.detail,
            "29504 parameters x 2 bytes; MXFP4 (4-bit, an 8-bit scale per 32) applies to none of "
            "its parameters, so it was not applied");
  // GPTQ with no bit width.
  EXPECT_EQ(with_quantization(R"({"quant_method":"gptq"})").detail,
            "29504 parameters x 2 bytes; its gptq quantization states no usable bit width, so it "
            "was not applied");
}

// --- Module patterns ---------------------------------------------------------------

ParamBlock block(ParamRole role, std::string_view module, std::optional<uint64_t> layer) {
  return ParamBlock{role, module, layer, 8, 8, 1};
}

TEST(ModulePattern, ScopesAndSynonyms) {
  const ParamBlock q0 = block(ParamRole::kAttention, "self_attn.q_proj", 0);
  const ParamBlock router3 = block(ParamRole::kRouter, "mlp.gate", 3);
  const ParamBlock experts3 = block(ParamRole::kExperts, "mlp.experts.gate_proj", 3);
  const ParamBlock embed = block(ParamRole::kEmbedding, "embed_tokens", std::nullopt);
  const ParamBlock head = block(ParamRole::kLmHead, "lm_head", std::nullopt);
  const ParamBlock final_norm = block(ParamRole::kNorm, "norm", std::nullopt);
  const ParamBlock layer_norm = block(ParamRole::kNorm, "input_layernorm", 3);

  ModulePattern every_attention = parse_module_pattern("model.layers.*.self_attn");
  EXPECT_EQ(every_attention.scope, ModulePattern::Scope::kLayers);
  EXPECT_FALSE(every_attention.layer.has_value());
  EXPECT_TRUE(pattern_matches(every_attention, q0));
  EXPECT_FALSE(pattern_matches(every_attention, router3));

  // gpt-oss's "router" and Mixtral's "block_sparse_moe.gate" are the router.
  EXPECT_TRUE(pattern_matches(parse_module_pattern("model.layers.*.mlp.router"), router3));
  ModulePattern mixtral_gate = parse_module_pattern("model.layers.3.block_sparse_moe.gate");
  EXPECT_EQ(mixtral_gate.layer, std::optional<uint64_t>(3));
  EXPECT_TRUE(pattern_matches(mixtral_gate, router3));
  EXPECT_FALSE(pattern_matches(mixtral_gate, experts3));
  EXPECT_FALSE(pattern_matches(parse_module_pattern("model.layers.2.mlp.gate"), router3));
  // A whole MLP covers its experts and router.
  EXPECT_TRUE(pattern_matches(parse_module_pattern("model.layers.3.mlp"), experts3));

  // A block named by a synonym meets an entry under the same word: Gemma
  // 4's "router.proj" and mlx_lm.convert's entry for it under gemma4.py's
  // language_model (both read as "gate.proj"); not another layer's, nor
  // an "mlp.gate" entry (no "mlp" segment in the block).
  const ParamBlock gemma4_router3 = block(ParamRole::kRouter, "router.proj", 3);
  EXPECT_TRUE(pattern_matches(
      parse_module_pattern("language_model.model.layers.3.router.proj"), gemma4_router3));
  EXPECT_FALSE(pattern_matches(
      parse_module_pattern("language_model.model.layers.2.router.proj"), gemma4_router3));
  EXPECT_FALSE(pattern_matches(parse_module_pattern("model.layers.3.mlp.gate"), gemma4_router3));

  // "model.embed_tokens" and "model.norm" name modules outside the layers.
  EXPECT_TRUE(pattern_matches(parse_module_pattern("model.embed_tokens"), embed));
  EXPECT_TRUE(pattern_matches(parse_module_pattern("model.norm"), final_norm));
  EXPECT_FALSE(pattern_matches(parse_module_pattern("model.norm"), layer_norm));

  // Bare names match anywhere, as transformers' substring test does.
  EXPECT_TRUE(pattern_matches(parse_module_pattern("lm_head"), head));
  EXPECT_TRUE(pattern_matches(parse_module_pattern("gate"), router3));
  EXPECT_FALSE(pattern_matches(parse_module_pattern("gate"), experts3));  // gate_proj is not gate
  EXPECT_TRUE(pattern_matches(parse_module_pattern("q_proj"), q0));
  // Names of modules the count does not model match nothing.
  EXPECT_FALSE(pattern_matches(parse_module_pattern("visual"), q0));
  EXPECT_FALSE(pattern_matches(parse_module_pattern(""), q0));
}

}  // namespace
}  // namespace memfit
