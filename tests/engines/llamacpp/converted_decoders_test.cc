// The converter's tensors for Gemma, Gemma 2, Gemma 3, GLM-4, Command-R, DeepSeek V2/V3,
// Granite, CodeShell, InternLM2, EXAONE, Qwen3-VL's language model, Command R7B/A
// (cohere2), Ministral 3 (mistral3), OLMo 2/3, EXAONE 4 and ERNIE 4.5
// (engines/llamacpp/converted_tensors.cc, quantize_plan.h), checked
// against the corpus logs' dumps (tests/data/logs/llamacpp): their tensor
// counts by type and printed sizes, worked by hand below.
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

using converted_test::f32_count;
using converted_test::find;
using converted_test::from_config;
using converted_test::quantized;
using converted_test::type_counts;

// Gemma 2B's geometry as llamacpp-12277-gemma-metal's dump prints it
// (its tokenizer holds 256,128 tokens).
constexpr std::string_view kGemma2b = R"({"architectures": ["GemmaForCausalLM"],
  "model_type": "gemma", "hidden_size": 2048, "intermediate_size": 16384,
  "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
  "num_hidden_layers": 18, "vocab_size": 256128})";

// Gemma 2B, all F32. A block: Q and O 2 x 2,048 x 2,048 = 8,388,608, K and
// V 2 x 2,048 x 256 = 1,048,576, gate/up/down 3 x 2,048 x 16,384 =
// 100,663,296, two norms 4,096: 110,104,576 floats; x 18 = 1,981,882,368.
// Outside: token_embd 2,048 x 256,128 = 524,550,144, output_norm 2,048
// (tied: no output). 2,506,434,560 floats x 4 = 10,025,738,240 B = 9.34
// GiB, the log's "file size"; 2 + 18 x 9 = 164 tensors, its "f32: 164".
TEST(ConvertedDecoders, GemmaF32IsTheLogsFile) {
  const Model m = quantized(from_config(kGemma2b), "F32");
  EXPECT_EQ(m.weights.bytes, 10'025'738'240u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 164}}));
  EXPECT_EQ(find(m, "output.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.attn_k.weight")->shape, (std::vector<uint64_t>{256, 2048}));
  EXPECT_EQ(find(m, "blk.0.post_ffw_norm.weight"), nullptr);  // Gemma 3's, not v1's
}

// google/gemma-3-1b-it's text geometry.
constexpr std::string_view kGemma3_1b = R"({"architectures": ["Gemma3ForCausalLM"],
  "model_type": "gemma3_text", "hidden_size": 1152, "intermediate_size": 6912,
  "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
  "num_hidden_layers": 26, "vocab_size": 262144, "sliding_window": 512,
  "sliding_window_pattern": 6})";

// Gemma 3 1B at F16. A block: 13 tensors, 6 of them F32 (attn_norm,
// attn_q_norm and attn_k_norm 256 wide, post_attention_norm, ffn_norm,
// post_ffw_norm): 4 x 1,152 + 2 x 256 = 5,120 floats = 20,480 B; matrices
// Q and O 2 x 1,152 x 1,024 = 2,359,296, K and V 2 x 1,152 x 256 =
// 589,824, gate/up/down 3 x 1,152 x 6,912 = 23,887,872: 26,836,992 x 2 =
// 53,673,984 B. A block 53,694,464 B, x 26 = 1,396,056,064. Outside:
// token_embd 1,152 x 262,144 x 2 = 603,979,776, output_norm 4,608.
// 2,000,040,448 B; 2 + 26 x 13 = 340 tensors: f32 1 + 156, f16 1 + 182.
TEST(ConvertedDecoders, Gemma3F16) {
  const Model m = quantized(from_config(kGemma3_1b), "F16");
  EXPECT_EQ(m.weights.bytes, 2'000'040'448u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 183}, {"f32", 157}}));
  EXPECT_EQ(find(m, "blk.25.attn_q_norm.weight")->shape, (std::vector<uint64_t>{256}));
  EXPECT_EQ(find(m, "blk.25.attn_q.weight")->shape, (std::vector<uint64_t>{1024, 1152}));
}

// google/gemma-2-2b-it's geometry (ollama-kosmos-gemma2-2b-q4_0's dump:
// 2,304 wide, 8 heads and 4 KV heads of 256, 9,216 ffn, 26 blocks,
// 256,000 tokens).
constexpr std::string_view kGemma2_2b = R"({"architectures": ["Gemma2ForCausalLM"],
  "model_type": "gemma2", "hidden_size": 2304, "intermediate_size": 9216,
  "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
  "num_hidden_layers": 26, "vocab_size": 256000, "sliding_window": 4096})";

// Gemma 2 2B at Q4_0, the log's file. A block: 11 tensors, Gemma 3's less
// the Q/K norms. 4 F32 norms (attn_norm, post_attention_norm, ffn_norm,
// post_ffw_norm) 4 x 2,304 x 4 = 36,864 B; Q4_0 matrices (18 B per 32):
// Q and O 2 x 2,304 x 2,048 = 9,437,184, K and V 2 x 2,304 x 1,024 =
// 4,718,592, gate/up/down 3 x 2,304 x 9,216 = 63,700,992: 77,856,768 /
// 32 x 18 = 43,794,432 B. A block 43,831,296 B, x 26 = 1,139,613,696.
// Outside: token_embd, tied, so llama-quantize types it as the output
// (Q6_K, 210 B per 256): 2,304 x 256,000 / 256 x 210 = 483,840,000 B,
// the log's CPU_Mapped 461.43 MiB; output_norm 9,216 B. 1,623,462,912 B;
// f32 1 + 26 x 4 = 105, q4_0 26 x 7 = 182, q6_K 1: the dump's counts.
TEST(ConvertedDecoders, Gemma2Q4_0IsTheLogsFile) {
  const Model m = quantized(from_config(kGemma2_2b), "Q4_0");
  EXPECT_EQ(m.weights.bytes, 1'623'462'912u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 105}, {"q4_0", 182}, {"q6_K", 1}}));
  EXPECT_EQ(find(m, "token_embd.weight")->data_bytes, 483'840'000u);
  EXPECT_EQ(find(m, "output.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.25.post_ffw_norm.weight")->shape, (std::vector<uint64_t>{2304}));
  EXPECT_EQ(find(m, "blk.0.attn_q_norm.weight"), nullptr);  // Gemma 3's, not 2's
  EXPECT_EQ(find(m, "blk.0.attn_q.weight")->shape, (std::vector<uint64_t>{2048, 2304}));
}

// THUDM/GLM-Z1-9B-0414's geometry (llamacpp-12946's dump: 4,096 wide, 32
// heads, 2 KV heads of 128, 13,696 ffn, 40 blocks, 151,552 tokens).
constexpr std::string_view kGlmZ1_9b = R"({"architectures": ["Glm4ForCausalLM"],
  "model_type": "glm4", "hidden_size": 4096, "intermediate_size": 13696,
  "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
  "num_hidden_layers": 40, "vocab_size": 151552,
  "tie_word_embeddings": false})";

// GLM-Z1-9B at F16. A block: Q and O 2 x 4,096 x 4,096 = 33,554,432, K and
// V 2 x 4,096 x 256 = 2,097,152, ffn_up (gate and up) 4,096 x 27,392 =
// 112,197,632, ffn_down 56,098,816: 203,948,032 x 2 = 407,896,064 B; F32
// Q/K/V biases 4,096 + 2 x 256 and 4 norms x 4,096: 20,992 floats =
// 83,968 B. A block 407,980,032 B, x 40 = 16,319,201,280. Outside:
// token_embd and output 2 x 4,096 x 151,552 x 2 = 2,483,027,968,
// output_norm 16,384: 18,802,245,632 B; 3 + 40 x 13 = 523 tensors, f32
// 1 + 40 x 7 = 281 (the log's), f16 242.
TEST(ConvertedDecoders, Glm4F16AndTheLogsQ5KM) {
  const Model m = quantized(from_config(kGlmZ1_9b), "F16");
  EXPECT_EQ(m.weights.bytes, 18'802'245'632u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 242}, {"f32", 281}}));
  EXPECT_EQ(find(m, "blk.0.ffn_up.weight")->shape, (std::vector<uint64_t>{27392, 4096}));
  // Q5_K_M: ffn_down's 13,696-wide rows are no whole 256-blocks, so
  // use_more_bits' 20 blocks take Q6_K's fallback Q8_0 and the other 20
  // Q5_K's, Q5_1; attn_v Q6_K in those 20 blocks, with output 21; the rest
  // Q5_K (40 x 4 + 20 + token_embd = 181): the log's counts.
  EXPECT_EQ(type_counts(quantized(from_config(kGlmZ1_9b), "Q5_K_M")),
            (std::map<std::string, int>{
                {"f32", 281}, {"q5_1", 20}, {"q5_K", 181}, {"q6_K", 21}, {"q8_0", 20}}));
}

// CohereForAI/c4ai-command-r-v01's geometry (llamacpp-neverllama8-6801's
// dump: 8,192 wide, 64 heads and 64 KV heads of 128, 22,528 ffn, 40
// blocks, 256,000 tokens; CohereConfig ties the embeddings).
constexpr std::string_view kCommandR = R"({"architectures": ["CohereForCausalLM"],
  "model_type": "cohere", "hidden_size": 8192, "intermediate_size": 22528,
  "num_attention_heads": 64, "num_key_value_heads": 64, "num_hidden_layers": 40,
  "vocab_size": 256000, "tie_word_embeddings": true})";

// Command-R v01 at Q5_K_M, the log's file. A block: attn_norm (F32, 8,192
// x 4 = 32,768 B), Q/K/V/O 4 x 8,192 x 8,192 = 268,435,456 and gate/up/
// down 3 x 8,192 x 22,528 = 553,648,128 weights. use_more_bits takes
// attn_v and ffn_down to Q6_K in blocks 0-4, 35-39 and 7, 10, ..., 34 (20
// blocks). Q5_K 176 B per 256, Q6_K 210: a plain block 822,083,584 / 256 x
// 176 = 565,182,464 B; the other 20: Q/K/O and gate/up 570,425,344 / 256 x
// 176 = 392,167,424, V and down 251,658,240 / 256 x 210 = 206,438,400:
// 598,605,824 B. 20 x (565,182,464 + 598,605,824) = 23,275,765,760, norms
// 40 x 32,768 = 1,310,720; outside: token_embd typed as the output (tied:
// no output.weight) Q6_K 8,192 x 256,000 / 256 x 210 = 1,720,320,000 (the
// log's host 1640.62 MiB on Metal, -6112), output_norm 32,768.
// 24,997,429,248 B = 23839.41 MiB, the -ngl 0 log's CPU buffer. f32 41,
// q5_K 40 x 7 - 40 = 240, q6_K 40 + 1 = 41: the dump's counts.
TEST(ConvertedDecoders, CommandRQ5KMIsTheLogsFile) {
  const Model m = quantized(from_config(kCommandR), "Q5_K_M");
  EXPECT_EQ(m.weights.bytes, 24'997'429'248u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 41}, {"q5_K", 240}, {"q6_K", 41}}));
  EXPECT_EQ(find(m, "output.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ffn_norm.weight"), nullptr);      // one norm a block
  EXPECT_EQ(find(m, "blk.0.attn_q_norm.weight"), nullptr);   // Command R+'s only
  EXPECT_EQ(find(m, "token_embd.weight")->data_bytes, 1'720'320'000u);
  EXPECT_EQ(find(m, "blk.39.ffn_down.weight")->shape, (std::vector<uint64_t>{8192, 22528}));
}

// Command R+ (CohereForAI/c4ai-command-r-plus: 12,288 wide, 96 heads and 8
// KV heads of 128, 33,792 ffn, 64 blocks): with 64 blocks llama.cpp loads
// the per-head Q/K norms, ne {128, 96} and {128, 8} (shapes, rows first,
// 96 x 128 and 8 x 128), F32. F16: f32 64 x 3 + 1 =
// 193, f16 64 x 7 + 1 = 449; 642 tensors, the Command R+ GGUFs' count.
TEST(ConvertedDecoders, CommandRPlusHasPerHeadQkNorms) {
  const Model m = quantized(from_config(R"({"model_type": "cohere", "hidden_size": 12288,
    "intermediate_size": 33792, "num_attention_heads": 96, "num_key_value_heads": 8,
    "num_hidden_layers": 64, "vocab_size": 256000, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 449}, {"f32", 193}}));
  EXPECT_EQ(find(m, "blk.63.attn_q_norm.weight")->shape, (std::vector<uint64_t>{96, 128}));
  EXPECT_EQ(find(m, "blk.63.attn_k_norm.weight")->shape, (std::vector<uint64_t>{8, 128}));
}

// GLM-Z1-32B-0414 says attention_bias false, which a GGUF keeps no key of
// (ConverterHints: a dump's counts decide): no Q/K/V biases, 61 blocks x 4
// norms + output_norm = 245 F32 tensors, llamacpp-ik344's "f32: 245";
// 2 + 61 x 6 = 368 matrices (its iq4_xs 306, q5_K 61, q6_K 1).
TEST(ConvertedDecoders, Glm4WithoutBiases) {
  Model m = from_config(R"({"model_type": "glm4", "hidden_size": 6144,
    "intermediate_size": 23040, "num_attention_heads": 48, "num_key_value_heads": 8,
    "head_dim": 128, "num_hidden_layers": 61, "vocab_size": 151552,
    "tie_word_embeddings": false})");
  ConverterHints hints;
  hints.glm4_no_qkv_bias = true;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("F16"), nullptr, {}, &hints);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"f16", 368}, {"f32", 245}}));
  EXPECT_EQ(find(*q, "blk.0.attn_q.bias"), nullptr);
}

// IBM's Granite 3B Code (llamacpp-11500's dump: llama, 2,560 wide, 32
// heads and 32 KV heads, 10,240 ffn, 32 blocks, 49,152 tokens, tied),
// whose checkpoint has LlamaConfig's attention_bias and mlp_bias.
// Q4_0 with the seven biases: a block's matrices 4 x 2,560^2 + 3 x 2,560 x
// 10,240 = 104,857,600 elements / 32 x 18 = 58,982,400 B, x 32 =
// 1,887,436,800; F32 a block: 2 norms 5,120 + Q/K/V/O biases 10,240 +
// gate/up 20,480 + down 2,560 = 38,400 floats = 153,600 B, x 32 =
// 4,915,200; token_embd (tied: the output's rule, Q6_K) 125,829,120 / 256
// x 210 = 103,219,200; output_norm 10,240. 1,995,581,440 B, the printed
// "1.86 GiB"; q4_0 7 x 32 = 224, q6_K 1, f32 9 x 32 + 1 = 289, the dump's.
TEST(ConvertedDecoders, LlamaWithAttentionAndMlpBiases) {
  const Model m = from_config(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 2560, "intermediate_size": 10240, "num_attention_heads": 32,
    "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 49152,
    "tie_word_embeddings": true})");
  ConverterHints hints;
  hints.llama_biases = true;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_0"), nullptr, {}, &hints);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->weights.bytes, 1'995'581'440u);
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"f32", 289}, {"q4_0", 224}, {"q6_K", 1}}));
  ASSERT_NE(find(*q, "blk.31.ffn_gate.bias"), nullptr);
  EXPECT_EQ(find(*q, "blk.31.ffn_gate.bias")->shape, (std::vector<uint64_t>{10240}));
  // Without the hint, the 224 biases are not written.
  EXPECT_EQ(find(quantized(m, "Q4_0"), "blk.0.attn_q.bias"), nullptr);
}

// Mixtral 8x7B as converted before #6387 (ollama-neosophia's dump: 4,096
// wide, 32 heads, 8 KV heads, 14,336 ffn, 8 experts, 32 blocks, 32,000
// tokens, untied), each expert's matrices 2-D tensors of their own and
// the router F16. Q4_0 (18 B per 32), with 8 experts attn_k and attn_v
// Q8_0 (34 B per 32): a block's attn_q and attn_output 2 x 16,777,216 x
// 18 / 32 = 18,874,368; attn_k and attn_v 2 x 4,194,304 x 34 / 32 =
// 8,912,896; 24 experts' matrices 24 x 58,720,256 x 18 / 32 = 792,723,456;
// router 4,096 x 8 x 2 = 65,536; 2 norms 32,768: 820,609,024 B, x 32 =
// 26,259,488,768. token_embd Q4_0 131,072,000 x 18 / 32 = 73,728,000,
// output Q6_K 512,000 x 210 = 107,520,000, output_norm 16,384:
// 26,440,753,152 B ("24.62 GiB"); q4_0 26 x 32 + 1 = 833, q8_0 64, f16
// 32, f32 65, q6_K 1, the dump's.
TEST(ConvertedDecoders, MixtralWithSplitExperts) {
  const Model m = from_config(R"({"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2, "tie_word_embeddings": false})");
  ConverterHints hints;
  hints.split_experts = true;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_0"), nullptr, {}, &hints);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->weights.bytes, 26'440'753'152u);
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{
                                 {"f16", 32}, {"f32", 65}, {"q4_0", 833}, {"q6_K", 1}, {"q8_0", 64}}));
  ASSERT_NE(find(*q, "blk.0.ffn_gate.7.weight"), nullptr);
  EXPECT_EQ(find(*q, "blk.0.ffn_gate_inp.weight")->dtype, "f16");
}

// microsoft/phi-1_5's geometry (ollama-cortexcli-phi2's dump: 2,048 wide,
// 32 heads, 8,192 ffn, 24 blocks, 51,200 tokens).
constexpr std::string_view kPhi15 = R"({"architectures": ["PhiForCausalLM"], "model_type": "phi",
  "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 32,
  "num_hidden_layers": 24, "vocab_size": 51200, "tie_word_embeddings": false})";

// Phi-1.5 at F16, Q/K/V apart (transformers' checkpoint). A block: Q, K,
// V, O 4 x 2,048^2 = 16,777,216, up and down 2 x 2,048 x 8,192 =
// 33,554,432: 50,331,648 x 2 = 100,663,296 B; F32 attn_norm (2 x 2,048),
// Q/K/V/O biases (4 x 2,048), ffn_up's (8,192), ffn_down's (2,048):
// 22,528 floats = 90,112 B. A block 100,753,408 B, x 24 = 2,418,081,792.
// Outside: token_embd and output 2 x 2,048 x 51,200 x 2 = 419,430,400,
// output.bias 204,800, output_norm (weight and bias) 16,384:
// 2,837,733,376 B. 5 + 24 x 14 = 341 tensors, f32 3 + 24 x 8 = 195.
// Fused (the MixFormer checkpoint the dump's file came from): 5 + 24 x 10
// = 245, f32 3 + 24 x 6 = 147, the dump's; its Q4_K_M counts q4_K 61,
// q5_K 24, q6_K 13.
TEST(ConvertedDecoders, Phi2SeparateAndFused) {
  const Model m = from_config(kPhi15);
  const Model separate = quantized(m, "F16");
  EXPECT_EQ(separate.weights.bytes, 2'837'733'376u);
  EXPECT_EQ(type_counts(separate), (std::map<std::string, int>{{"f16", 146}, {"f32", 195}}));
  ConverterHints hints;
  hints.phi2_fused_qkv = true;
  QuantizeRules old_release;
  old_release.qkv_own_rule = true;
  Result<Model> fused = quantized_gguf_model(m, *find_gguf_file_type("Q4_K_M"), nullptr, old_release, &hints);
  ASSERT_TRUE(fused.ok()) << fused.error().message();
  EXPECT_EQ(type_counts(*fused),
            (std::map<std::string, int>{{"f32", 147}, {"q4_K", 61}, {"q5_K", 24}, {"q6_K", 13}}));
  EXPECT_EQ(find(*fused, "blk.0.attn_qkv.weight")->shape, (std::vector<uint64_t>{6144, 2048}));
}

// DeepSeek-V3's geometry (llamacpp-11141's dump: 61 blocks, 3 dense, 256
// experts of 2,048 and one shared, q_lora_rank 1,536, kv_lora_rank 512,
// 128 heads of 128 + 64 rope, V 128).
constexpr std::string_view kDeepSeekV3 = R"({"architectures": ["DeepseekV3ForCausalLM"],
  "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
  "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
  "num_experts_per_tok": 8, "first_k_dense_replace": 3, "num_attention_heads": 128,
  "num_key_value_heads": 128, "num_hidden_layers": 61, "vocab_size": 129280,
  "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64, "v_head_dim": 128, "tie_word_embeddings": false})";

// Converted before #12801 (attn_kv_b): a block 9 attention tensors
// (attn_norm, q_a, q_a_norm, q_b, kv_a_mqa, kv_a_norm, kv_b, output,
// ffn_norm) and 3 dense or 8 MoE (router, exp_probs_b, 3 experts, 3
// shared): 3 x 12 + 58 x 17 = 1,022, + token_embd, output_norm, output =
// 1,025 tensors, the log's; F32: 4 norms a block (244), router and
// exp_probs_b in 58 (116), output_norm: 361, the log's "f32: 361".
// Since #12801 kv_b is attn_k_b and attn_v_b: 61 more, 1,086.
TEST(ConvertedDecoders, DeepSeekV3TensorsBeforeAndAfterMlaSplit) {
  const Model m = from_config(kDeepSeekV3);
  MlaWidths w{1536, 512, 128, 64, 128, 3, false, true};
  ConverterHints hints;
  hints.mla = &w;
  Result<std::vector<ConvertedTensor>> old = converted_tensors(m.spec, nullptr, &hints);
  ASSERT_TRUE(old.ok()) << old.error().message();
  EXPECT_EQ(old->size(), 1025u);
  EXPECT_EQ(f32_count(*old), 361);
  auto shape = [](const std::vector<ConvertedTensor>& ts, std::string_view name) {
    for (const ConvertedTensor& t : ts) {
      if (t.name == name) return t.ne;
    }
    return std::vector<uint64_t>{};
  };
  // kv_b: 512 -> 128 x (128 + 128); kv_a_mqa: 7,168 -> 512 + 64.
  EXPECT_EQ(shape(*old, "blk.0.attn_kv_b.weight"), (std::vector<uint64_t>{512, 32768}));
  EXPECT_EQ(shape(*old, "blk.0.attn_kv_a_mqa.weight"), (std::vector<uint64_t>{7168, 576}));
  EXPECT_EQ(shape(*old, "blk.3.ffn_up_shexp.weight"), (std::vector<uint64_t>{7168, 2048}));
  EXPECT_TRUE(shape(*old, "blk.2.exp_probs_b.bias").empty());  // a dense block
  w.split_kv_b = true;
  Result<std::vector<ConvertedTensor>> split = converted_tensors(m.spec, nullptr, &hints);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->size(), 1086u);
  EXPECT_EQ(shape(*split, "blk.0.attn_k_b.weight"), (std::vector<uint64_t>{128, 512, 128}));
  EXPECT_EQ(shape(*split, "blk.0.attn_v_b.weight"), (std::vector<uint64_t>{512, 128, 128}));
  EXPECT_TRUE(shape(*split, "blk.0.attn_kv_b.weight").empty());
  // From the config alone (ModelSpec::mla: the widths above, V3's router
  // bias) the pinned release's converter splits kv_b: 1,086 again.
  EXPECT_EQ(m.spec.mla, (MlaGeometry{1536, 512, 128, 64, 128, 3, true}));
  Result<std::vector<ConvertedTensor>> from_config_alone = converted_tensors(m.spec);
  ASSERT_TRUE(from_config_alone.ok()) << from_config_alone.error().message();
  EXPECT_EQ(from_config_alone->size(), 1086u);
  // Without its widths the converter's list is not built.
  ModelSpec no_widths = m.spec;
  no_widths.mla = MlaGeometry{};
  EXPECT_FALSE(converted_tensors(no_widths).ok());
}

// llamacpp-11141's DeepSeek-V3 Q2_K file (made before #19770): f32 361,
// q2_K 482, q3_K 180, q4_K 1, q6_K 1. Q2_K's rules: attn_output Q3_K (not 8
// experts) in 61 blocks, ffn_down Q3_K in 3 dense blocks and as the
// routed and shared experts' in 58: 61 + 3 + 2 x 58 = 180; output Q6_K.
// Before #19770 attn_kv_b takes the default, Q2_K: 664 matrices - 181 =
// 483 Q2_K, of which the log's file has token_embd at Q4_K (its maker's
// --token-embedding-type, which memfit does not rebuild). From the rewrite
// attn_kv_b is attn_v-like, Q3_K with GQA 1: q3_K 241, q2_K 422.
TEST(ConvertedDecoders, DeepSeekKvBTypeByRelease) {
  const Model m = from_config(kDeepSeekV3);
  MlaWidths w{1536, 512, 128, 64, 128, 3, false, true};
  ConverterHints hints;
  hints.mla = &w;
  Result<std::vector<ConvertedTensor>> tensors = converted_tensors(m.spec, nullptr, &hints);
  ASSERT_TRUE(tensors.ok());
  auto counts = [&](const QuantizeRules& rules) {
    std::map<GgmlType, int> out;
    Result<std::vector<GgmlType>> types = quantized_types(m.spec, *tensors, *find_gguf_file_type("Q2_K"), rules);
    EXPECT_TRUE(types.ok());
    if (types.ok()) {
      for (GgmlType t : *types) ++out[t];
    }
    return out;
  };
  QuantizeRules old_release;
  old_release.qkv_own_rule = true;
  EXPECT_EQ(counts(old_release), (std::map<GgmlType, int>{{GgmlType::kF32, 361},
                                                          {GgmlType::kQ2_K, 483},
                                                          {GgmlType::kQ3_K, 180},
                                                          {GgmlType::kQ6_K, 1}}));
  EXPECT_EQ(counts({}), (std::map<GgmlType, int>{{GgmlType::kF32, 361},
                                                 {GgmlType::kQ2_K, 422},
                                                 {GgmlType::kQ3_K, 241},
                                                 {GgmlType::kQ6_K, 1}}));
}

// DeepSeek-V2-Lite from its config alone (ModelSpec::mla): a full-rank
// query (q_lora_rank null), kv_lora_rank 512, nope 128, rope 64, v 128, 16
// heads of 2,048, 1 dense lead block (10,944), 26 MoE blocks of 64 experts
// (1,408) and 2 shared, topk_method "greedy" (no router bias), 102,400
// tokens, untied; kv_b split as the pinned converter writes it.
// Tensors: a block attn_norm, attn_q, kv_a_mqa, kv_a_norm, k_b, v_b,
// output, ffn_norm (8), + 3 dense or + router, 3 routed, 3 shared (7):
// 11 + 26 x 15 = 401, + token_embd, output_norm, output: 404. F32: 3 norms
// a block (81), 26 routers, output_norm: 108.
// F16 elements: a block attn_q 2,048 x 16 x 192 = 6,291,456, kv_a_mqa
// 2,048 x 576 = 1,179,648, k_b 128 x 512 x 16 and v_b 512 x 128 x 16 =
// 2 x 1,048,576, output 2,048 x 2,048 = 4,194,304: 13,762,560, x 27 =
// 371,589,120; the dense FFN 3 x 2,048 x 10,944 = 67,239,936; a MoE
// block 3 x 2,048 x 1,408 x 64 = 553,648,128 + shared 3 x 2,048 x 2,816 =
// 17,301,504: 570,949,632, x 26 = 14,844,690,432; token_embd and output 2
// x 2,048 x 102,400 = 419,430,400. 15,702,949,888 x 2 B = 31,405,899,776.
// F32: norms 2,048 + 512 + 2,048 = 4,608 x 27 = 124,416, routers 2,048 x
// 64 x 26 = 3,407,872, output_norm 2,048: 3,534,336 x 4 B = 14,137,344.
// 31,420,037,120 B (15.7 billion parameters, the model's).
TEST(ConvertedDecoders, DeepSeekV2LiteFromConfig) {
  const Model m = from_config(R"({"architectures": ["DeepseekV2ForCausalLM"],
    "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
    "moe_intermediate_size": 1408, "n_routed_experts": 64, "n_shared_experts": 2,
    "num_experts_per_tok": 6, "first_k_dense_replace": 1, "num_attention_heads": 16,
    "num_key_value_heads": 16, "num_hidden_layers": 27, "vocab_size": 102400,
    "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_method": "greedy",
    "tie_word_embeddings": false})");
  EXPECT_EQ(m.spec.mla, (MlaGeometry{0, 512, 128, 64, 128, 1, false}));
  const Model q = quantized(m, "F16");
  EXPECT_EQ(q.tensors.size(), 404u);
  EXPECT_EQ(type_counts(q), (std::map<std::string, int>{{"f16", 296}, {"f32", 108}}));
  EXPECT_EQ(q.weights.bytes, 31420037120u);
  const SafetensorsTensor* q_proj = find(q, "blk.0.attn_q.weight");
  ASSERT_NE(q_proj, nullptr);
  EXPECT_EQ(q_proj->shape, (std::vector<uint64_t>{3072, 2048}));
}

// IBM Granite 4.1 8B (llamacpp-neverllama6-granite41-8b-udq8kxl-
// rx9070xt-fit's dump: granite, 4,096 wide, 32 heads and 8 KV heads of
// 128, 12,800 ffn, 40 blocks, 100,352 tokens; 363 tensors: untied).
constexpr std::string_view kGranite41_8b = R"({"model_type": "granite", "hidden_size": 4096,
  "intermediate_size": 12800, "num_attention_heads": 32, "num_key_value_heads": 8,
  "num_hidden_layers": 40, "vocab_size": 100352, "tie_word_embeddings": false})";

// Granite is llama's block list. Q8_0 (no mix: every matrix Q8_0): a
// block's Q and O 2 x 4,096^2 = 33,554,432, K and V 2 x 4,096 x 1,024 =
// 8,388,608, gate/up/down 3 x 4,096 x 12,800 = 157,286,400: 199,229,440,
// x 40 = 7,969,177,600; token_embd and output 2 x 4,096 x 100,352 =
// 822,083,584; 8,791,261,184 / 32 x 34 = 9,340,715,008 B. F32: two norms a
// block and output_norm, 81 x 4,096 x 4 = 1,327,104 B. 9,342,042,112 B;
// q8_0 40 x 7 + 2 = 282. (The log's Unsloth file keeps 102 tensors F16:
// not llama-quantize's rules, so the check only shapes its weights.)
TEST(ConvertedDecoders, GraniteIsLlamasBlocks) {
  const Model m = quantized(from_config(kGranite41_8b), "Q8_0");
  EXPECT_EQ(m.tensors.size(), 363u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 81}, {"q8_0", 282}}));
  EXPECT_EQ(m.weights.bytes, 9'342'042'112u);
  EXPECT_EQ(find(m, "blk.0.attn_k.weight")->shape, (std::vector<uint64_t>{1024, 4096}));
  EXPECT_EQ(find(m, "blk.0.attn_q.bias"), nullptr);
}

// A Granite MoE Shared geometry (granitemoe GGUF with
// expert_shared_feed_forward_length): 24 blocks of 1,024, 16 heads and 8
// KV heads, 32 experts of 512, a shared expert of 1,024, tied. A block:
// attn_norm, Q/K/V/O, ffn_norm, the F32 router, gate/up/down_exps and the
// shared expert's gate/up/down, ungated: 13 tensors, no
// ffn_gate_inp_shexp. F16: f32 24 x 3 + 1 = 73, f16 24 x 10 + 1 = 241.
TEST(ConvertedDecoders, GraniteMoeSharedExpertHasNoGate) {
  const Model m = quantized(from_config(R"({"model_type": "granitemoe", "hidden_size": 1024,
    "intermediate_size": 512, "num_attention_heads": 16, "num_key_value_heads": 8,
    "num_hidden_layers": 24, "num_local_experts": 32, "num_experts_per_tok": 8,
    "shared_intermediate_size": 1024, "vocab_size": 49155, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 241}, {"f32", 73}}));
  EXPECT_EQ(find(m, "blk.0.ffn_gate_inp_shexp.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ffn_up_shexp.weight")->shape, (std::vector<uint64_t>{1024, 1024}));
  EXPECT_EQ(find(m, "blk.0.ffn_down_exps.weight")->shape, (std::vector<uint64_t>{32, 1024, 512}));
}

// CodeShell-7B (llamacpp-neverllama7-8179-metal-codeshell-q4_0's dump:
// codeshell, 4,096 wide, 32 heads and 8 KV heads of 128, 16,384 ffn, 42
// blocks, 70,144 tokens; 508 tensors: f32 338, q4_0 169, q6_K 1).
constexpr std::string_view kCodeShell7b = R"({"model_type": "codeshell", "hidden_size": 4096,
  "intermediate_size": 16384, "num_attention_heads": 32, "num_key_value_heads": 8,
  "num_hidden_layers": 42, "vocab_size": 70144, "tie_word_embeddings": false})";

// CodeShell writes GPT-NeoX's tensors. Q4_0: a block's attn_qkv 4,096 x
// (4,096 + 2 x 1,024) = 25,165,824, attn_output 4,096^2 = 16,777,216,
// ffn_up and ffn_down 2 x 4,096 x 16,384 = 134,217,728: 176,160,768 / 32
// x 18 = 99,090,432 B; F32 the two LayerNorms' weights and biases 16,384,
// the biases of qkv 6,144, output 4,096, up 16,384 and down 4,096: 47,104
// floats = 188,416 B. 99,278,848 x 42 = 4,169,711,616; token_embd Q4_0
// 4,096 x 70,144 = 287,309,824 / 32 x 18 = 161,611,776 (the log's CPU
// buffer, 154.12 MiB), output Q6_K 287,309,824 / 256 x 210 = 235,683,840,
// output_norm and its bias 32,768. 4,567,040,000 B, the printed 4.25 GiB;
// f32 42 x 8 + 2 = 338, q4_0 42 x 4 + 1 = 169, q6_K 1: the dump's counts.
TEST(ConvertedDecoders, CodeShellQ4_0IsTheLogsFile) {
  const Model m = quantized(from_config(kCodeShell7b), "Q4_0");
  EXPECT_EQ(m.tensors.size(), 508u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 338}, {"q4_0", 169}, {"q6_K", 1}}));
  EXPECT_EQ(m.weights.bytes, 4'567'040'000u);
  EXPECT_EQ(find(m, "token_embd.weight")->data_bytes, 161'611'776u);
  EXPECT_EQ(find(m, "blk.0.attn_qkv.weight")->shape, (std::vector<uint64_t>{6144, 4096}));
  EXPECT_NE(find(m, "output_norm.bias"), nullptr);
}

// InternLM2.5-7B (internlm2: 4,096 wide, 32 heads and 8 KV heads, 14,336
// ffn, 32 blocks, 92,544 tokens, untied), llama's names with Q/K/V split
// from wqkv. F16: a block's Q and O 2 x 4,096^2 = 33,554,432, K and V 2 x
// 4,096 x 1,024 = 8,388,608, gate/up/down 3 x 4,096 x 14,336 = 176,160,768
// elements x 2 = 436,207,616 B and two norms 32,768 B: 436,240,384, x 32 =
// 13,959,692,288; token_embd and output 2 x 4,096 x 92,544 x 2 =
// 1,516,240,896, output_norm 16,384. 15,475,949,568 B; f16 32 x 7 + 2 =
// 226, f32 32 x 2 + 1 = 65.
TEST(ConvertedDecoders, InternLm2IsLlamasBlocks) {
  const Model m = quantized(from_config(R"({"model_type": "internlm2", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_hidden_layers": 32, "vocab_size": 92544, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.weights.bytes, 15'475'949'568u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 226}, {"f32", 65}}));
  EXPECT_EQ(find(m, "blk.0.attn_qkv.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.attn_v.weight")->shape, (std::vector<uint64_t>{1024, 4096}));
}

// EXAONE 3.5 7.8B (exaone: InternLM2.5-7B's widths but 102,400 tokens,
// llama3 RoPE): llama's blocks and rope_freqs, head_dim / 2 = 64 F32
// values. F16: 13,959,692,288 B of blocks as above, token_embd and output
// 2 x 4,096 x 102,400 x 2 = 1,677,721,600, output_norm 16,384, rope_freqs
// 256: 15,637,430,528 B; f16 226, f32 65 + 1 = 66.
TEST(ConvertedDecoders, ExaoneWritesRopeFreqs) {
  const Model m = quantized(from_config(R"({"model_type": "exaone", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_hidden_layers": 32, "vocab_size": 102400, "tie_word_embeddings": false,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})"), "F16");
  EXPECT_EQ(m.weights.bytes, 15'637'430'528u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 226}, {"f32", 66}}));
  EXPECT_EQ(find(m, "rope_freqs.weight")->shape, (std::vector<uint64_t>{64}));
}

// Qwen3-VL-8B's language model (GGUF qwen3vl: 4,096 wide, 32 heads and 8
// KV heads of 128, 12,288 ffn, 36 blocks, 151,936 tokens, untied):
// qwen3's tensors. F16: a block's Q and O 2 x 4,096^2, K and V 2 x 4,096 x
// 1,024, gate/up/down 3 x 4,096 x 12,288: 192,937,984 elements x 2 =
// 385,875,968 B; F32 attn_norm and ffn_norm 2 x 4,096, the per-head Q/K
// norms 2 x 128: 8,448 floats = 33,792 B. 385,909,760 x 36 =
// 13,892,751,360; token_embd and output 2 x 4,096 x 151,936 x 2 =
// 2,489,319,424, output_norm 16,384: 16,382,087,168 B; f16 36 x 7 + 2 =
// 254, f32 36 x 4 + 1 = 145.
// Qwen3-VL-30B-A3B's (qwen3vlmoe: 2,048 wide, 32 heads and 4 KV heads of
// 128, 128 experts of 768, 48 blocks): qwen3moe's; F16 a block's Q/K/V/O
// and the three 3-D experts f16, its two norms, the Q/K norms and the
// router f32: f16 48 x 7 + 2 = 338, f32 48 x 5 + 1 = 241.
TEST(ConvertedDecoders, Qwen3VlTextIsQwen3s) {
  const Model dense = quantized(from_config(R"({"model_type": "qwen3vl", "hidden_size": 4096,
    "intermediate_size": 12288, "num_attention_heads": 32, "num_key_value_heads": 8,
    "head_dim": 128, "num_hidden_layers": 36, "vocab_size": 151936,
    "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(dense.weights.bytes, 16'382'087'168u);
  EXPECT_EQ(type_counts(dense), (std::map<std::string, int>{{"f16", 254}, {"f32", 145}}));
  EXPECT_EQ(find(dense, "blk.0.attn_q_norm.weight")->shape, (std::vector<uint64_t>{128}));
  const Model moe = quantized(from_config(R"({"model_type": "qwen3vlmoe", "hidden_size": 2048,
    "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128,
    "num_experts_per_tok": 8, "num_attention_heads": 32, "num_key_value_heads": 4,
    "head_dim": 128, "num_hidden_layers": 48, "vocab_size": 151936,
    "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(type_counts(moe), (std::map<std::string, int>{{"f16", 338}, {"f32", 241}}));
  EXPECT_EQ(find(moe, "blk.0.ffn_gate_exps.weight")->shape, (std::vector<uint64_t>{128, 768, 2048}));
}

// Command R7B (GGUF cohere2: 4,096 wide, 32 heads and 8 KV heads of 128,
// 14,336 ffn, 32 blocks, 256,000 tokens, a 4,096-token window on three
// layers in four): Command-R's block, always tied. F16: a block's Q and O
// 2 x 4,096^2, K and V 2 x 4,096 x 1,024, gate/up/down 3 x 4,096 x 14,336:
// 218,103,808 elements x 2 = 436,207,616 B, attn_norm 16,384 B;
// 436,224,000 x 32 = 13,959,168,000; token_embd 4,096 x 256,000 x 2 =
// 2,097,152,000, output_norm 16,384: 16,056,336,384 B; f16 32 x 7 + 1 =
// 225, f32 33. Command A (cohere2, 64 blocks) has no per-head Q/K norms:
// those are Command R+'s (cohere) only.
TEST(ConvertedDecoders, Cohere2IsCommandRsBlockTied) {
  auto config = [](int blocks) {
    return R"({"model_type": "cohere2", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 256000,
      "sliding_window": 4096, "sliding_window_pattern": 4, "tie_word_embeddings": true,
      "num_hidden_layers": )" + std::to_string(blocks) + "}";
  };
  const Model m = quantized(from_config(config(32)), "F16");
  EXPECT_EQ(m.weights.bytes, 16'056'336'384u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 225}, {"f32", 33}}));
  EXPECT_EQ(find(m, "output.weight"), nullptr);
  const Model a = quantized(from_config(config(64)), "F16");
  EXPECT_EQ(a.tensors.size(), 64u * 8 + 2);
  EXPECT_EQ(find(a, "blk.63.attn_q_norm.weight"), nullptr);
}

// Ministral 3 8B's language model (GGUF mistral3: 4,096 wide, 32 heads
// and 8 KV heads of 128, 14,336 ffn, 34 blocks, 131,072 tokens, untied):
// llama's names. F16: a block 436,207,616 B of matrices (as InternLM2's)
// and 32,768 B of norms, 436,240,384 x 34 = 14,832,173,056; token_embd and
// output 2 x 4,096 x 131,072 x 2 = 2,147,483,648, output_norm 16,384:
// 16,979,673,088 B; f16 34 x 7 + 2 = 240, f32 34 x 2 + 1 = 69.
TEST(ConvertedDecoders, Mistral3IsLlamasBlocks) {
  const Model m = quantized(from_config(R"({"model_type": "mistral3", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
    "head_dim": 128, "num_hidden_layers": 34, "vocab_size": 131072,
    "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.weights.bytes, 16'979'673'088u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 240}, {"f32", 69}}));
}

// OLMo-2-1124-7B (olmo2: 4,096 wide, 32 heads and 32 KV heads, 11,008
// ffn, 32 blocks, 100,352 tokens, untied). F16: a block's Q/K/V/O 4 x
// 4,096^2 = 67,108,864 and gate/up/down 3 x 4,096 x 11,008 = 135,266,304
// elements x 2 = 404,750,336 B; F32 attn_q_norm and attn_k_norm (4,096
// each: whole rows), post_attention_norm and post_ffw_norm: 16,384 floats
// = 65,536 B; 404,815,872 x 32 = 12,954,107,904; token_embd and output 2 x
// 4,096 x 100,352 x 2 = 1,644,167,168, output_norm 16,384:
// 14,598,291,456 B; f16 32 x 7 + 2 = 226, f32 32 x 4 + 1 = 129.
TEST(ConvertedDecoders, Olmo2HasPostNormsAndWholeRowQkNorms) {
  const Model m = quantized(from_config(R"({"model_type": "olmo2", "hidden_size": 4096,
    "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 32,
    "num_hidden_layers": 32, "vocab_size": 100352, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.weights.bytes, 14'598'291'456u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 226}, {"f32", 129}}));
  EXPECT_EQ(find(m, "blk.0.attn_q_norm.weight")->shape, (std::vector<uint64_t>{4096}));
  EXPECT_EQ(find(m, "blk.0.attn_norm.weight"), nullptr);
  EXPECT_NE(find(m, "blk.31.post_ffw_norm.weight"), nullptr);
}

// EXAONE-4.0-1.2B-like (exaone4: 2,048 wide, 32 heads and 8 KV heads of
// 64, 4,096 ffn, 30 blocks, 102,400 tokens, tied, llama3 RoPE): OLMo 2's
// block with one-head Q/K norms, and rope_freqs (64 / 2 = 32 floats). F16:
// a block's Q and O 2 x 2,048^2 = 8,388,608, K and V 2 x 2,048 x 512 =
// 2,097,152, gate/up/down 3 x 2,048 x 4,096 = 25,165,824 elements x 2 =
// 71,303,168 B; F32 Q/K norms 2 x 64 and the two post-norms 2 x 2,048:
// 4,224 floats = 16,896 B; 71,320,064 x 30 = 2,139,601,920; token_embd
// 2,048 x 102,400 x 2 = 419,430,400, output_norm 8,192, rope_freqs 128:
// 2,559,040,640 B; f16 30 x 7 + 1 = 211, f32 30 x 4 + 2 = 122.
TEST(ConvertedDecoders, Exaone4HasOneHeadQkNorms) {
  const Model m = quantized(from_config(R"({"model_type": "exaone4", "hidden_size": 2048,
    "intermediate_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
    "head_dim": 64, "num_hidden_layers": 30, "vocab_size": 102400, "tie_word_embeddings": true,
    "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
    "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})"), "F16");
  EXPECT_EQ(m.weights.bytes, 2'559'040'640u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 211}, {"f32", 122}}));
  EXPECT_EQ(find(m, "blk.0.attn_k_norm.weight")->shape, (std::vector<uint64_t>{64}));
}

// ERNIE-4.5-0.3B (ernie4_5: 1,024 wide, 16 heads and 2 KV heads of 128,
// 3,072 ffn, 18 blocks, 103,424 tokens, tied): llama's names. F16: a
// block's Q and O 2 x 1,024 x 2,048, K and V 2 x 1,024 x 256, gate/up/down
// 3 x 1,024 x 3,072: 14,155,776 elements x 2 = 28,311,552 B, two norms
// 8,192 B; 28,319,744 x 18 = 509,755,392; token_embd 1,024 x 103,424 x 2
// = 211,812,352, output_norm 4,096: 721,571,840 B; f16 18 x 7 + 1 = 127,
// f32 37.
TEST(ConvertedDecoders, Ernie45IsLlamasBlocks) {
  const Model m = quantized(from_config(R"({"model_type": "ernie4_5", "hidden_size": 1024,
    "intermediate_size": 3072, "num_attention_heads": 16, "num_key_value_heads": 2,
    "head_dim": 128, "num_hidden_layers": 18, "vocab_size": 103424,
    "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(m.weights.bytes, 721'571'840u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 127}, {"f32", 37}}));
}

}  // namespace
}  // namespace memfit::llamacpp
