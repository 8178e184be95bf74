// The converter's tensors for GLM-4.5 (glm4moe), OLMoE, MiniMax-M2,
// Phi-3.5-MoE (phimoe), StarCoder 2, Seed-OSS and Hunyuan's dense models
// (engines/llamacpp/converted_tensors.cc, quantize_plan.h): tensor counts
// by type and F16 bytes worked by hand below, two of them against the
// tensor counts public GGUFs print.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engines/llamacpp/converted_models.h"
#include "engines/llamacpp/quantize_plan.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {
namespace {

using converted_test::find;
using converted_test::from_config;
using converted_test::quantized;
using converted_test::type_counts;

// zai-org/GLM-4.5-Air's config: 4,096 wide, 96 heads and 8 KV heads of
// 128, the first block dense (10,944 ffn), 45 of 128 routed experts of
// 1,408 and one shared expert, 151,552 tokens, untied.
constexpr std::string_view kGlm45Air = R"({"architectures": ["Glm4MoeForCausalLM"],
  "model_type": "glm4_moe", "hidden_size": 4096, "intermediate_size": 10944,
  "moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 1,
  "num_experts_per_tok": 8, "first_k_dense_replace": 1, "num_attention_heads": 96,
  "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 46,
  "vocab_size": 151552, "attention_bias": true, "use_qk_norm": false,
  "tie_word_embeddings": false})";

// GLM-4.5-Air at F16. Every block: Q/K/V biases 12,288 + 2 x 1,024,
// attn_norm and post_attention_norm 2 x 4,096 (22,528 floats, F32), Q and
// O 2 x 4,096 x 12,288, K and V 2 x 4,096 x 1,024 (109,051,904 elements).
// Block 0 (dense): gate/up/down 3 x 4,096 x 10,944 = 134,479,872;
// (109,051,904 + 134,479,872) x 2 + 22,528 x 4 = 487,153,664 B, 12
// tensors (f32 5). A MoE block: the experts 3 x 4,096 x 1,408 x 128 =
// 2,214,592,512 and the shared expert 3 x 4,096 x 1,408 = 17,301,504
// elements, F16: 2,340,945,920 x 2 = 4,681,891,840 B; F32 22,528 + the
// router 4,096 x 128 + exp_probs_b 128 = 546,944 floats = 2,187,776 B:
// 4,684,079,616 B, 17 tensors (f32 7). 45 of them 210,783,582,720; outside
// token_embd and output 2 x 4,096 x 151,552 x 2 = 2,483,027,968,
// output_norm 16,384: 213,753,780,736 B. 3 + 12 + 45 x 17 = 780 tensors:
// f32 1 + 5 + 45 x 7 = 321, f16 2 + 7 + 45 x 10 = 459.
// A file's NextN block (nextn_predict_layers 1; a config builds none): a
// MoE block and the head's eh_proj, enorm, hnorm, shared_head_norm,
// embed_tokens and shared_head_head: 780 + 17 + 6 = 803, the tensors
// GLM-4.5-Air's GGUFs hold (ggml-org/llama.cpp #14939's q3_K_M: "803
// tensors"; block_count 47).
TEST(ConvertedMoeDecoders, Glm45AirDenseFirstBlockAndNextN) {
  const Model m = quantized(from_config(kGlm45Air), "F16");
  EXPECT_EQ(m.weights.bytes, 213'753'780'736u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 459}, {"f32", 321}}));
  EXPECT_NE(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ffn_gate_exps.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.1.ffn_up_shexp.weight")->shape, (std::vector<uint64_t>{1408, 4096}));
  EXPECT_EQ(find(m, "blk.1.exp_probs_b.bias")->shape, (std::vector<uint64_t>{128}));
  EXPECT_NE(find(m, "blk.45.post_attention_norm.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.45.ffn_norm.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.attn_q_norm.weight"), nullptr);  // Air: use_qk_norm false
  Model file = from_config(kGlm45Air);
  file.spec.nextn_layers = 1;
  const Model with_nextn = quantized(file, "F16");
  EXPECT_EQ(with_nextn.tensors.size(), 803u);
  EXPECT_EQ(find(with_nextn, "blk.46.nextn.embed_tokens.weight")->shape,
            (std::vector<uint64_t>{151552, 4096}));
  EXPECT_NE(find(with_nextn, "blk.46.ffn_down_exps.weight"), nullptr);
}

// GLM-4.5's per-head Q/K norms come only with the dump's variant
// (ConverterHints::glm4moe_qk_norm): 2 more F32 tensors a block, 128 wide.
TEST(ConvertedMoeDecoders, Glm45QkNormsAreAVariant) {
  const Model air = from_config(kGlm45Air);
  ConverterHints hints;
  hints.glm4moe_qk_norm = true;
  Result<std::vector<ConvertedTensor>> with = converted_tensors(air.spec, nullptr, &hints);
  Result<std::vector<ConvertedTensor>> without = converted_tensors(air.spec);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with->size(), without->size() + 2 * 46);
}

// allenai/OLMoE-1B-7B-0924 (olmoe: 2,048 wide, 16 heads and 16 KV heads,
// 64 experts of 1,024, 16 blocks, 50,304 tokens, untied). F16: a block's
// Q/K/V/O 4 x 2,048^2 = 16,777,216 and experts 3 x 2,048 x 1,024 x 64 =
// 402,653,184 elements x 2 = 838,860,800 B; F32 attn_norm, ffn_norm and
// the whole-row Q and K norms 4 x 2,048, the router 2,048 x 64: 139,264
// floats = 557,056 B; 839,417,856 x 16 = 13,430,685,696; token_embd and
// output 2 x 2,048 x 50,304 x 2 = 412,090,368, output_norm 8,192:
// 13,842,784,256 B. 3 + 16 x 12 = 195 tensors: f32 1 + 16 x 5 = 81.
TEST(ConvertedMoeDecoders, OlmoeNormsWholeQkRows) {
  const Model m = quantized(from_config(R"({"model_type": "olmoe", "hidden_size": 2048,
    "intermediate_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 16,
    "num_experts": 64, "num_experts_per_tok": 8, "num_hidden_layers": 16,
    "vocab_size": 50304, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.weights.bytes, 13'842'784'256u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 114}, {"f32", 81}}));
  EXPECT_EQ(find(m, "blk.0.attn_k_norm.weight")->shape, (std::vector<uint64_t>{2048}));
}

// MiniMaxAI/MiniMax-M2 (minimax_m2: 3,072 wide, 48 heads and 8 KV heads of
// 128, 256 experts of 1,536, 62 blocks, 200,064 tokens, untied). A block:
// attn_norm, Q/K/V/O, the whole-row Q norm (6,144) and K norm (1,024),
// ffn_norm, the router, exp_probs_b and the three experts: 13 tensors, 6
// F32. 3 + 62 x 13 = 809 tensors, f32 1 + 62 x 6 = 373: the counts
// MiniMax-M2.1's GGUF prints (split.tensors.count 809, "type f32: 373
// tensors", kyuz0/amd-strix-halo-toolboxes #41). F16: Q and O 2 x 3,072 x
// 6,144, K and V 2 x 3,072 x 1,024, experts 3 x 3,072 x 1,536 x 256:
// 3,667,918,848 elements x 2 = 7,335,837,696 B; F32 2 x 3,072 + 6,144 +
// 1,024 + 3,072 x 256 + 256 = 800,000 floats = 3,200,000 B; 7,339,037,696
// x 62 = 455,020,337,152; token_embd and output 2 x 3,072 x 200,064 x 2 =
// 2,458,386,432, output_norm 12,288: 457,478,735,872 B.
TEST(ConvertedMoeDecoders, MiniMaxM2IsThePublicFilesCount) {
  const Model m = quantized(from_config(R"({"model_type": "minimax_m2", "hidden_size": 3072,
    "intermediate_size": 1536, "num_attention_heads": 48, "num_key_value_heads": 8,
    "head_dim": 128, "num_local_experts": 256, "num_experts_per_tok": 8,
    "num_hidden_layers": 62, "vocab_size": 200064, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.tensors.size(), 809u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 436}, {"f32", 373}}));
  EXPECT_EQ(m.weights.bytes, 457'478'735'872u);
  EXPECT_EQ(find(m, "blk.61.attn_q_norm.weight")->shape, (std::vector<uint64_t>{6144}));
}

// microsoft/Phi-3.5-MoE-instruct (phimoe: 4,096 wide, 32 heads and 8 KV
// heads, 16 experts of 6,400, 32 blocks, 32,064 tokens, untied, longrope).
// A block: attn_norm and ffn_norm, LayerNorms with weight and bias (4),
// Q/K/V/O with their biases (8), the router and three experts: 16
// tensors, f32 9 (4 biases, 4 norm tensors, the router). Outside: token_embd, output and its
// bias, output_norm and its bias, rope_factors_long/short: 7, f32 5.
// 7 + 32 x 16 = 519: f32 5 + 288 = 293, f16 2 + 32 x 7 = 226.
TEST(ConvertedMoeDecoders, PhimoeHasLayerNormsAndBiases) {
  const Model m = quantized(from_config(R"({"model_type": "phimoe", "hidden_size": 4096,
    "intermediate_size": 6400, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_local_experts": 16, "num_experts_per_tok": 2, "num_hidden_layers": 32,
    "vocab_size": 32064, "tie_word_embeddings": false, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096,
    "rope_scaling": {"type": "longrope", "long_factor": [1.0], "short_factor": [1.0]}})"),
                            "F16");
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 226}, {"f32", 293}}));
  EXPECT_EQ(find(m, "output.bias")->shape, (std::vector<uint64_t>{32064}));
  EXPECT_EQ(find(m, "blk.0.ffn_gate_exps.weight")->shape, (std::vector<uint64_t>{16, 6400, 4096}));
  EXPECT_EQ(find(m, "rope_factors_long.weight")->shape, (std::vector<uint64_t>{64}));
}

// bigcode/starcoder2-3b (starcoder2: 3,072 wide, 24 heads and 2 KV heads
// of 128, 12,288 ffn, 30 blocks, 49,152 tokens, tied). A block: Q/K/V
// with their biases (use_bias), attn_output and its bias, two LayerNorms
// with biases, ffn_up and ffn_down with biases: 16 tensors, f32 10. F16:
// Q and O 2 x 3,072^2, K and V 2 x 3,072 x 256, up/down 2 x 3,072 x
// 12,288: 95,944,704 elements x 2 = 191,889,408 B; F32 3,072 + 256 + 256
// + 3,072 + 3,072 + 12,288 + 4 x 3,072 = 34,304 floats = 137,216 B;
// 192,026,624 x 30 = 5,760,798,720; token_embd 3,072 x 49,152 x 2 =
// 301,989,888, output_norm and its bias 24,576: 6,062,813,184 B. 3 + 30 x
// 16 = 483 tensors: f32 2 + 300 = 302, f16 1 + 180 = 181.
TEST(ConvertedMoeDecoders, Starcoder2LoadsQkvBiases) {
  const Model m = quantized(from_config(R"({"model_type": "starcoder2", "hidden_size": 3072,
    "intermediate_size": 12288, "num_attention_heads": 24, "num_key_value_heads": 2,
    "num_hidden_layers": 30, "vocab_size": 49152, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(m.weights.bytes, 6'062'813'184u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 181}, {"f32", 302}}));
  EXPECT_EQ(find(m, "blk.0.attn_k.bias")->shape, (std::vector<uint64_t>{256}));
  EXPECT_EQ(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "output.weight"), nullptr);
}

// ByteDance-Seed/Seed-OSS-36B (seed_oss: 5,120 wide, 80 heads and 8 KV
// heads of 128, 27,648 ffn, 64 blocks, 155,136 tokens, untied). A block:
// Q/K/V biases, attn_norm and post_attention_norm (F32, 5), Q/K/V/O and
// gate/up/down (7). F16: Q and O 2 x 5,120 x 10,240, K and V 2 x 5,120 x
// 1,024, the MLP 3 x 5,120 x 27,648: 540,016,640 elements x 2 =
// 1,080,033,280 B; F32 10,240 + 2 x 1,024 + 2 x 5,120 = 22,528 floats =
// 90,112 B; 1,080,123,392 x 64 = 69,127,897,088; token_embd and output 2 x
// 5,120 x 155,136 x 2 = 3,177,185,280, output_norm 20,480: 72,305,102,848
// B; 3 + 64 x 12 = 771: f32 1 + 320 = 321, f16 2 + 448 = 450.
// Hunyuan-7B (hunyuan_v1_dense: 4,096 wide, 32 heads and 8 KV heads, 14,336
// ffn, 32 blocks, tied): qwen3's block, 11 tensors, f32 4 (the norms, Q/K
// per head): 2 + 32 x 11 = 354, f32 1 + 128 = 129.
TEST(ConvertedMoeDecoders, SeedOssAndHunyuanDense) {
  const Model seed = quantized(from_config(R"({"model_type": "seed_oss", "hidden_size": 5120,
    "intermediate_size": 27648, "num_attention_heads": 80, "num_key_value_heads": 8,
    "head_dim": 128, "num_hidden_layers": 64, "vocab_size": 155136,
    "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(seed.weights.bytes, 72'305'102'848u);
  EXPECT_EQ(type_counts(seed), (std::map<std::string, int>{{"f16", 450}, {"f32", 321}}));
  EXPECT_NE(find(seed, "blk.0.post_attention_norm.weight"), nullptr);
  EXPECT_EQ(find(seed, "blk.0.ffn_norm.weight"), nullptr);
  const Model hunyuan = quantized(from_config(R"({"model_type": "hunyuan_v1_dense",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128167,
    "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(type_counts(hunyuan), (std::map<std::string, int>{{"f16", 225}, {"f32", 129}}));
  EXPECT_EQ(find(hunyuan, "blk.0.attn_q_norm.weight")->shape, (std::vector<uint64_t>{128}));
}

}  // namespace
}  // namespace memfit::llamacpp
