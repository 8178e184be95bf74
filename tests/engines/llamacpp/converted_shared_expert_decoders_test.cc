// The converter's tensors for dots.llm1 (dots1), Hunyuan-MoE (hunyuan-moe),
// Nemotron (nemotron), MiniCPM (minicpm), Llama 4 (llama4), Ling 1.0
// (bailingmoe), Apertus (apertus), StableLM (stablelm), Arcee's AFM (arcee),
// ERNIE 4.5 MoE (ernie4_5-moe), Ling 2.0 (bailingmoe2) and GroveMoE (grovemoe)
// (engines/llamacpp/converted_tensors.cc): tensor counts by type and bytes
// worked by hand below, against what public llama.cpp logs of these files
// print where one does, else the models' published parameter counts.
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

// rednote-hilab/dots.llm1.inst's config (transformers' Dots1Config fields):
// 4,096 wide, 32 heads and 32 KV heads of 128, the first block dense
// (10,944 ffn), then 128 routed experts of 1,408 and 2 shared experts, 62
// blocks, 152,064 tokens, untied. 142.77 B parameters by the sums below
// (the model card's 142B).
constexpr std::string_view kDotsLlm1 = R"({"architectures": ["Dots1ForCausalLM"],
  "model_type": "dots1", "hidden_size": 4096, "intermediate_size": 10944,
  "moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 2,
  "num_experts_per_tok": 6, "first_k_dense_replace": 1, "num_attention_heads": 32,
  "num_key_value_heads": 32, "head_dim": 128, "num_hidden_layers": 62,
  "vocab_size": 152064, "tie_word_embeddings": false})";

// dots.llm1 at F16. Q/K/V/O 4 x 4,096^2 = 67,108,864 elements a block.
// Block 0 (dense): + gate/up/down 3 x 4,096 x 10,944: 201,588,736 x 2 B;
// F32 attn_norm, ffn_norm 2 x 4,096, attn_q_norm and attn_k_norm 2 x 128:
// 8,448 floats; 403,211,264 B, 11 tensors (f32 4). A MoE block: + experts
// 3 x 4,096 x 1,408 x 128 and the shared experts 3 x 4,096 x 2,816
// (n_ff_exp x n_expert_shared, LLM_ARCH_DOTS1): 2,316,304,384 x 2 B; F32
// 8,448 + the router 4,096 x 128 + exp_probs_b 128 = 532,864 floats;
// 4,634,740,224 B, 16 tensors (f32 6). Outside: token_embd and output 2 x
// 4,096 x 152,064 x 2 = 2,491,416,576, output_norm 16,384. Sum:
// 2,491,432,960 + 403,211,264 + 61 x 4,634,740,224 = 285,613,797,888 B.
// 3 + 11 + 61 x 16 = 990 tensors: f32 1 + 4 + 61 x 6 = 371.
TEST(ConvertedSharedExpertDecoders, DotsLlm1DenseLeadAndSharedExperts) {
  const Model m = quantized(from_config(kDotsLlm1), "F16");
  EXPECT_EQ(m.weights.bytes, 285'613'797'888u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 619}, {"f32", 371}}));
  EXPECT_NE(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.exp_probs_b.bias"), nullptr);
  EXPECT_EQ(find(m, "blk.1.exp_probs_b.bias")->shape, (std::vector<uint64_t>{128}));
  EXPECT_EQ(find(m, "blk.1.ffn_up_shexp.weight")->shape, (std::vector<uint64_t>{2816, 4096}));
  EXPECT_EQ(find(m, "blk.1.ffn_gate_inp_shexp.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.61.attn_q_norm.weight")->shape, (std::vector<uint64_t>{128}));
}

// ddh0's Q4_0 of dots.llm1.inst, loaded by llama.cpp in ggml-org/llama.cpp
// #14118 (DocShotgun, 2025-06-12): "CUDA0 model buffer size = 76515.78
// MiB", "CPU_Mapped model buffer size = 334.12 MiB". llama-quantize's
// Q4_0 (18 B a 32-element block) types every matrix q4_0 but the output
// (q6_K, 210 B a 256 block); the routers and 1-D tensors stay F32.
// token_embd (kept on the CPU) 4,096 x 152,064 x 18 / 32 = 350,355,456 B
// = 334.125 MiB. The rest: output 510,935,040; the dense block's matrices
// 201,588,736 x 18 / 32 = 113,393,664; a MoE block's 2,316,304,384 x 18 /
// 32 = 1,302,921,216, x 61 = 79,478,194,176; F32 16,384 + 33,792 + 61 x
// 2,131,456 = 130,068,992: 80,232,591,872 B = 76,515.762 MiB, and CUDA's
// buffer pads each quantized tensor whose rows are not a multiple of 512
// (ggml_backend_cuda_buffer_type_get_alloc_size, MATRIX_ROW_PADDING): the
// three ffn_down tensors, 23,680 B aligned, 76,515.785 MiB printed as
// 76515.78. The file: 80,582,947,328 B; 990 tensors, q4_0 1 + 7 + 61 x 10
// = 618, q6_K 1, f32 371.
TEST(ConvertedSharedExpertDecoders, DotsLlm1Q4_0IsThePublicFilesBuffers) {
  const Model m = quantized(from_config(kDotsLlm1), "Q4_0");
  EXPECT_EQ(m.weights.bytes, 80'582'947'328u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 371}, {"q4_0", 618}, {"q6_K", 1}}));
}

// tencent/Hunyuan-A13B-Instruct as its GGUF's keys give it (hunyuan-moe:
// 4,096 wide, 32 heads and 8 KV heads of 128, feed_forward_length 3,072,
// 64 experts of 3,072, one shared expert, expert_shared_feed_forward_length
// 3,072 (the converter's HunYuanMoEModel writes intermediate_size), 32
// blocks, 128,167 tokens, tied: the file has no output). F16, a block:
// Q and O 2 x 4,096^2, K and V 2 x 4,096 x 1,024, experts 3 x 4,096 x 3,072
// x 64, the shared expert 3 x 4,096 x 3,072: 2,495,610,880 elements x 2 B;
// F32 attn_norm and ffn_norm 2 x 4,096, the per-head Q/K norms 2 x 128,
// the router 4,096 x 64: 270,592 floats; 4,992,304,128 B, 15 tensors (f32
// 5). 32 blocks 159,753,732,096 + token_embd 4,096 x 128,167 x 2 =
// 1,049,944,064 + output_norm 16,384 = 160,803,692,544 B (80.39 B
// parameters: the "80B-A13B"). 2 + 32 x 15 = 482 tensors, the count
// ggml-org/llama.cpp #14425 prints for Hunyuan-A13B-Instruct ("loaded
// meta data with 41 key-value pairs and 482 tensors"); f32 1 + 32 x 5 = 161.
TEST(ConvertedSharedExpertDecoders, HunyuanMoeIsThePublicFilesCount) {
  const Model m = quantized(from_config(R"({"model_type": "hunyuan_v1_moe", "hidden_size": 4096,
    "intermediate_size": 3072, "moe_intermediate_size": 3072, "num_experts": 64,
    "num_experts_per_tok": 8, "n_shared_experts": 1, "shared_expert_intermediate_size": 3072,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
    "num_hidden_layers": 32, "vocab_size": 128167, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(m.tensors.size(), 482u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 321}, {"f32", 161}}));
  EXPECT_EQ(m.weights.bytes, 160'803'692'544u);
  // The shared expert is added ungated (llama_model_hunyuan_moe's graph).
  EXPECT_EQ(find(m, "blk.0.ffn_gate_inp_shexp.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.31.ffn_down_shexp.weight")->shape, (std::vector<uint64_t>{4096, 3072}));
  EXPECT_EQ(find(m, "blk.0.attn_k_norm.weight")->shape, (std::vector<uint64_t>{128}));
}

// nvidia/Minitron-4B-Base (nemotron: 3,072 wide, 24 heads and 8 KV heads of
// 128, 9,216 ffn, 32 blocks, 256,000 tokens, untied; 4.19 B parameters by
// the sums below). A block: attn_norm and ffn_norm, LayerNorms with their
// biases (F32, 4), Q/K/V/O, ffn_up and ffn_down (ReLU^2, no gate): 10
// tensors. F16: Q and O 2 x 3,072^2, K and V 2 x 3,072 x 1,024, up/down 2 x
// 3,072 x 9,216: 81,788,928 elements x 2 = 163,577,856 B, F32 4 x 3,072 x
// 4 = 49,152 B; 163,627,008 x 32 = 5,236,064,256; token_embd and output 2 x
// 3,072 x 256,000 x 2 = 3,145,728,000, output_norm and its bias 24,576:
// 8,381,816,832 B. 4 + 32 x 10 = 324 tensors: f32 2 + 128 = 130.
TEST(ConvertedSharedExpertDecoders, NemotronHasBiasedLayerNormsAndNoGate) {
  const Model m = quantized(from_config(R"({"model_type": "nemotron", "hidden_size": 3072,
    "intermediate_size": 9216, "num_attention_heads": 24, "num_key_value_heads": 8,
    "head_dim": 128, "num_hidden_layers": 32, "vocab_size": 256000,
    "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.weights.bytes, 8'381'816'832u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 194}, {"f32", 130}}));
  EXPECT_NE(find(m, "blk.0.attn_norm.bias"), nullptr);
  EXPECT_NE(find(m, "blk.0.ffn_norm.bias"), nullptr);
  EXPECT_NE(find(m, "output_norm.bias"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ffn_gate.weight"), nullptr);
}


// openbmb/MiniCPM-2B (minicpm: 2,304 wide, 36 heads and 36 KV heads, 5,760
// ffn, 40 blocks, 122,753 tokens, tied). llama's block: attn_norm and
// ffn_norm (F32), Q/K/V/O 4 x 2,304^2 and gate/up/down 3 x 2,304 x 5,760:
// 61,046,784 elements (2.44 B outside the embedding: the model card's
// "2.4B non-embedding parameters"). F16: (61,046,784 x 2 + 2 x 2,304 x 4)
// x 40 = 4,884,111,360; token_embd 2,304 x 122,753 x 2 = 565,645,824,
// output_norm 9,216: 5,450,135,040 B (2 + 40 x 9 = 362 tensors, the count
// ggml-org/llama.cpp #5346 prints for its converted MiniCPM: "loaded meta
// data with 21 key-value pairs and 362 tensors"); f32 1 + 80 = 81.
TEST(ConvertedSharedExpertDecoders, MiniCpmIsLlamasBlockTied) {
  const Model m = quantized(from_config(R"({"model_type": "minicpm", "hidden_size": 2304,
    "intermediate_size": 5760, "num_attention_heads": 36, "num_key_value_heads": 36,
    "num_hidden_layers": 40, "vocab_size": 122753, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(m.tensors.size(), 362u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 281}, {"f32", 81}}));
  EXPECT_EQ(m.weights.bytes, 5'450'135'040u);
  EXPECT_EQ(find(m, "output.weight"), nullptr);
}

// MiniCPM4's longrope factors (rope_scaling's long_factor and short_factor,
// head_dim / 2 each) are two more F32 tensors, as the converter's
// MiniCPMModel.generate_extra_tensors writes them.
TEST(ConvertedSharedExpertDecoders, MiniCpmWritesLongropeFactors) {
  const Model m = quantized(from_config(R"({"model_type": "minicpm", "hidden_size": 2304,
    "intermediate_size": 5760, "num_attention_heads": 36, "num_key_value_heads": 36,
    "num_hidden_layers": 40, "vocab_size": 122753, "tie_word_embeddings": true,
    "max_position_embeddings": 32768,
    "rope_scaling": {"rope_type": "longrope", "long_factor": [1.0], "short_factor": [1.0],
                     "original_max_position_embeddings": 32768}})"), "F16");
  EXPECT_EQ(m.tensors.size(), 364u);
  EXPECT_EQ(find(m, "rope_factors_short.weight")->shape, (std::vector<uint64_t>{32}));
}

// Llama 4 as its GGUF's keys give it (llama4: feed_forward_length the
// dense width, the converter's swap of intermediate_size_mlp;
// expert_feed_forward_length the routed one; interleave_moe_layer_step).
// meta-llama/Llama-4-Scout-17B-16E: 5,120 wide, 40 heads and 8 KV heads of
// 128, 16 experts of 8,192 in every block (step 1), 48 blocks, 202,048
// tokens, untied, llama3 rope (rope_freqs, 64 floats). A block: Q and O 2 x
// 5,120^2, K and V 2 x 5,120 x 1,024, experts 3 x 5,120 x 8,192 x 16, the
// shared expert 3 x 5,120 x 8,192: 2,202,009,600 elements x 2 B; F32
// attn_norm, ffn_norm and the router 5,120 x 16: 92,160 floats;
// 4,404,387,840 B, 13 tensors (f32 3). 48 blocks 211,410,616,320 +
// token_embd and output 2 x 5,120 x 202,048 x 2 = 4,137,943,040 +
// output_norm 20,480 + rope_freqs 256 = 215,548,580,096 B; 4 + 48 x 13 =
// 628 tensors, f32 2 + 144 = 146 (107.77 B parameters: the 109B Scout less
// its vision tower, which the converter writes to the mmproj file).
TEST(ConvertedSharedExpertDecoders, Llama4ScoutEveryBlockRouted) {
  const Model m = quantized(from_config(R"({"model_type": "llama4_text", "hidden_size": 5120,
    "intermediate_size": 16384, "moe_intermediate_size": 8192, "num_experts": 16,
    "num_experts_per_tok": 1, "interleave_moe_layer_step": 1, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48, "vocab_size": 202048,
    "tie_word_embeddings": false, "max_position_embeddings": 10485760,
    "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 1.0, "original_max_position_embeddings": 8192}})"),
                            "F16");
  EXPECT_EQ(m.tensors.size(), 628u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 482}, {"f32", 146}}));
  EXPECT_EQ(m.weights.bytes, 215'548'580'096u);
  EXPECT_EQ(find(m, "blk.0.ffn_up_shexp.weight")->shape, (std::vector<uint64_t>{8192, 5120}));
  EXPECT_EQ(find(m, "blk.0.ffn_gate_inp_shexp.weight"), nullptr);
}

// meta-llama/Llama-4-Maverick-17B-128E: 128 experts in every second block
// (interleave_moe_layer_step 2: blocks 1, 3, ..., 47), the other 24 a dense
// MLP of 16,384, no rope scaling. A routed block: 62,914,560 + 3 x 5,120 x
// 8,192 x 129 = 16,294,871,040 elements, F32 10,240 + 5,120 x 128 =
// 665,600 floats: 32,592,404,480 B; a dense block: 62,914,560 + 3 x 5,120 x
// 16,384 = 314,572,800 elements, F32 10,240: 629,186,560 B. 24 of each
// 797,318,184,960 + 4,137,943,040 + 20,480 = 801,456,148,480 B (400.71 B
// parameters: the "400B" Maverick); 3 + 24 x 13 + 24 x 9 = 531 tensors, f32
// 1 + 72 + 48 = 121.
TEST(ConvertedSharedExpertDecoders, Llama4MaverickInterleavesDenseBlocks) {
  const Model m = quantized(from_config(R"({"model_type": "llama4_text", "hidden_size": 5120,
    "intermediate_size": 16384, "moe_intermediate_size": 8192, "num_experts": 128,
    "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48, "vocab_size": 202048,
    "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 410}, {"f32", 121}}));
  EXPECT_EQ(m.weights.bytes, 801'456'148'480u);
  EXPECT_NE(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ffn_gate_inp.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.1.ffn_gate_exps.weight")->shape, (std::vector<uint64_t>{128, 8192, 5120}));
  EXPECT_EQ(find(m, "blk.0.ffn_down.weight")->shape, (std::vector<uint64_t>{5120, 16384}));
}

// A Hugging Face Llama 4 config names its dense width intermediate_size_mlp
// and gives no moe_intermediate_size: memfit does not build it from one.
TEST(ConvertedSharedExpertDecoders, Llama4FromAHuggingFaceConfigIsRefused) {
  const Model m = from_config(R"({"model_type": "llama4_text", "hidden_size": 5120,
    "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_local_experts": 16,
    "num_experts_per_tok": 1, "interleave_moe_layer_step": 1, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48, "vocab_size": 202048})");
  EXPECT_FALSE(converted_tensors(m.spec).ok());
}


// inclusionAI/Ling-lite (bailing_moe: 2,048 wide, 16 heads and 4 KV heads
// of 128, 64 experts of 1,408 and 2 shared experts in every block, 28
// blocks, 126,464 tokens, untied; 16.80 B parameters by the sums below:
// the model card's 16.8B). A block: attn_norm, Q/K/V/O, ffn_norm, the
// router, three experts and three shared experts: 13 tensors, f32 3. F16:
// Q and O 2 x 2,048^2, K and V 2 x 2,048 x 512, experts 3 x 2,048 x 1,408
// x 64, shared 3 x 2,048 x 2,816: 581,435,392 elements x 2 B; F32 2 x 2,048
// + 2,048 x 64 = 135,168 floats; 1,163,411,456 B. 28 blocks
// 32,575,520,768 + token_embd and output 2 x 2,048 x 126,464 x 2 =
// 1,035,993,088 + output_norm 8,192 = 33,611,522,048 B; 3 + 28 x 13 = 367
// tensors (Ling-plus's 88 blocks: 3 + 88 x 13 = 1,147, the count
// ggml-org/llama.cpp #12634 prints for mradermacher's Ling-plus.gguf).
TEST(ConvertedSharedExpertDecoders, LingLiteEveryBlockRoutedWithSharedExperts) {
  const Model m = quantized(from_config(R"({"model_type": "bailing_moe", "hidden_size": 2048,
    "intermediate_size": 5632, "moe_intermediate_size": 1408, "num_experts": 64,
    "num_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 0,
    "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 128,
    "num_hidden_layers": 28, "vocab_size": 126464, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.tensors.size(), 367u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 282}, {"f32", 85}}));
  EXPECT_EQ(m.weights.bytes, 33'611'522'048u);
  EXPECT_EQ(find(m, "blk.27.ffn_gate_shexp.weight")->shape, (std::vector<uint64_t>{2816, 2048}));
}


// swiss-ai/Apertus-8B-2509 (apertus: 4,096 wide, 32 heads and 8 KV heads of
// 128, 21,504 ffn, 32 blocks, 131,072 tokens, untied, llama3 rope). A
// block: attn_norm, the per-head Q/K norms, Q/K/V/O, ffn_norm, ffn_up and
// ffn_down (no gate): 10 tensors, f32 4. F16: Q and O 2 x 4,096^2, K and V
// 2 x 4,096 x 1,024, up/down 2 x 4,096 x 21,504: 218,103,808 elements x 2
// B, F32 2 x 4,096 + 2 x 128 = 8,448 floats: 436,241,408 B; 32 blocks
// 13,959,725,056 + token_embd and output 2 x 4,096 x 131,072 x 2 =
// 2,147,483,648 + output_norm 16,384 + rope_freqs 256 = 16,107,225,344 B
// (8.05 B parameters: the "8B"); 4 + 32 x 10 = 324 tensors, f32 2 + 128.
TEST(ConvertedSharedExpertDecoders, ApertusHasQkNormsAndNoGate) {
  const Model m = quantized(from_config(R"({"model_type": "apertus", "hidden_size": 4096,
    "intermediate_size": 21504, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_hidden_layers": 32, "vocab_size": 131072, "tie_word_embeddings": false,
    "max_position_embeddings": 65536,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})"),
                            "F16");
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 194}, {"f32", 130}}));
  EXPECT_EQ(m.weights.bytes, 16'107'225'344u);
  EXPECT_EQ(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.attn_q_norm.weight")->shape, (std::vector<uint64_t>{128}));
  EXPECT_NE(find(m, "rope_freqs.weight"), nullptr);
}


// stabilityai/stablelm-3b-4e1t (stablelm: 2,560 wide, 32 heads and 32 KV
// heads, 6,912 ffn, 32 blocks, 50,304 tokens, untied; no Q/K/V biases). A
// block: attn_norm and ffn_norm with their biases (F32, 4), Q/K/V/O and
// gate/up/down: 79,298,560 elements x 2 + 10,240 x 4 = 158,638,080 B; 32
// blocks 5,076,418,560 + token_embd and output 2 x 2,560 x 50,304 x 2 =
// 515,112,960 + output_norm and its bias 20,480 = 5,591,552,000 B at F16;
// 4 + 32 x 11 = 356 tensors. acon96/Home-3B-v3-GGUF, a fine-tune of it,
// reads as "356 tensors ... File size: 5.59 GB" (barrontang/gguf2mlx #13).
TEST(ConvertedSharedExpertDecoders, StableLm3bIsThePublicFilesCountAndSize) {
  const Model m = quantized(from_config(R"({"model_type": "stablelm", "hidden_size": 2560,
    "intermediate_size": 6912, "num_attention_heads": 32, "num_key_value_heads": 32,
    "num_hidden_layers": 32, "vocab_size": 50304, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.tensors.size(), 356u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 226}, {"f32", 130}}));
  EXPECT_EQ(m.weights.bytes, 5'591'552'000u);
  EXPECT_NE(find(m, "output_norm.bias"), nullptr);
  EXPECT_NE(find(m, "blk.0.ffn_norm.bias"), nullptr);
}

// stabilityai/stablelm-2-1_6b (2,048 wide, 32 heads and 32 KV heads, 5,632
// ffn, 24 blocks, 100,352 tokens): use_qkv_bias, which the GGUF does not
// say, so only a dump's counts (ConverterHints::stablelm_qkv_bias) add the
// three biases a block: 4 + 24 x 14 = 340 tensors, f32 2 + 24 x 7 = 170.
TEST(ConvertedSharedExpertDecoders, StableLm2QkvBiasesAreAVariant) {
  const Model m = from_config(R"({"model_type": "stablelm", "hidden_size": 2048,
    "intermediate_size": 5632, "num_attention_heads": 32, "num_key_value_heads": 32,
    "num_hidden_layers": 24, "vocab_size": 100352, "tie_word_embeddings": false})");
  ConverterHints hints;
  hints.stablelm_qkv_bias = true;
  Result<std::vector<ConvertedTensor>> with = converted_tensors(m.spec, nullptr, &hints);
  ASSERT_TRUE(with.ok());
  EXPECT_EQ(with->size(), 340u);
  EXPECT_EQ(converted_test::f32_count(*with), 170);
  EXPECT_EQ(converted_tensors(m.spec)->size(), 4u + 24 * 11);
}

// inclusionAI/Ling-1T as its GGUF's metadata dump gives it (bailingmoe2:
// 8,192 wide, 64 heads and 8 KV heads of 128, 80 blocks, the first 4
// dense of 18,432, then 256 experts of 2,048 and one shared expert of
// 2,048, 157,184 tokens, untied, no NextN block; ubergarm's
// Ling-1T-smol-IQ4_KSS, whose ik_llama.cpp log in ikawrakow/ik_llama.cpp
// #873 prints "1103 tensors", "type f32: 473 tensors" and "model params =
// 999.705 B": its quantized types are ik_llama.cpp's own, so the counts and
// the parameters are checked, the bytes at F16 worked out).
// A dense block: attn_norm, attn_qkv, attn_output, the per-head Q/K
// norms, ffn_norm, gate/up/down: 9 tensors, f32 4. A routed block:
// those but the FFN, the router, exp_probs_b, three experts and three
// shared: 14, f32 6. 3 + 4 x 9 + 76 x 14 = 1,103 tensors; f32 1 + 4 x 4 +
// 76 x 6 = 473. Elements: token_embd and output 2 x 8,192 x 157,184 =
// 2,575,302,656; a block's attention 8,192 x (8,192 + 2 x 1,024) + 8,192^2
// = 150,994,944 and norms 2 x 8,192 + 2 x 128 = 16,640 (x 80); dense
// FFNs 3 x 8,192 x 18,432 = 452,984,832 (x 4); experts 3 x 8,192 x 2,048
// x 256 + shared 3 x 8,192 x 2,048 = 12,935,233,536, router 8,192 x 256 +
// 256 = 2,097,408 (x 76); output_norm 8,192: 999,705,328,640 (the print's
// 999.705 B); F16 999,544,586,240 x 2 + F32 160,742,400 x 4 =
// 1,999,732,142,080 B.
TEST(ConvertedSharedExpertDecoders, Ling1TIsItsDumpsCountsAndParameters) {
  const Model m = quantized(from_config(R"({"model_type": "bailing_moe_v2", "hidden_size": 8192,
    "intermediate_size": 18432, "moe_intermediate_size": 2048, "moe_shared_expert_intermediate_size": 2048,
    "num_experts": 256, "num_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 4,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 80,
    "vocab_size": 157184, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.tensors.size(), 1103u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 630}, {"f32", 473}}));
  EXPECT_EQ(m.weights.bytes, 1'999'732'142'080u);
  EXPECT_EQ(find(m, "blk.0.attn_qkv.weight")->shape, (std::vector<uint64_t>{10240, 8192}));
  EXPECT_NE(find(m, "blk.3.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.4.exp_probs_b.bias")->shape, (std::vector<uint64_t>{256}));
  EXPECT_EQ(find(m, "blk.4.ffn_gate_inp_shexp.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.attn_q.weight"), nullptr);
}

// baidu/ERNIE-4.5-21B-A3B-PT's config (ernie4_5_moe: 2,560 wide, 20 heads
// and 4 KV heads of 128, 28 blocks, moe_layer_start_index 1 (block 0 dense
// of 12,288), then 64 experts of 1,536 and moe_num_shared_experts 2 (one
// shared matrix of 3,072), 103,424 tokens, tied). Tensors: token_embd,
// output_norm; the dense block attn_norm, Q/K/V/O, ffn_norm, gate/up/down
// (9, f32 2); a routed block those but the FFN, the router, exp_probs_b,
// three experts, three shared (14, f32 4): 2 + 9 + 27 x 14 = 389, f32 1 +
// 2 + 27 x 4 = 111. F16: token_embd 264,765,440, attention 28 x
// 15,728,640, the dense FFN 94,371,840, routed 27 x (754,974,720 +
// 23,592,960): 21,820,866,560; F32 2,560 + 28 x 5,120 + 27 x 163,904 =
// 4,571,328: 21,825,437,888 parameters (the model card's 21B total; 21.8
// B) and 43,660,018,432 B at F16.
TEST(ConvertedSharedExpertDecoders, Ernie45MoeRoutesAfterItsStartIndexWithUngatedSharedExperts) {
  const Model m = quantized(from_config(R"({"model_type": "ernie4_5_moe", "hidden_size": 2560,
    "intermediate_size": 12288, "moe_intermediate_size": 1536, "moe_num_experts": 64, "moe_k": 6,
    "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "moe_layer_end_index": 27,
    "moe_layer_interval": 1, "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 128,
    "num_hidden_layers": 28, "vocab_size": 103424, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(m.tensors.size(), 389u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 278}, {"f32", 111}}));
  EXPECT_EQ(m.weights.bytes, 43'660'018'432u);
  EXPECT_NE(find(m, "blk.0.ffn_up.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.1.ffn_up_shexp.weight")->shape, (std::vector<uint64_t>{3072, 2560}));
  EXPECT_EQ(find(m, "blk.1.ffn_gate_inp_shexp.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.27.exp_probs_b.bias")->shape, (std::vector<uint64_t>{64}));
  // A checkpoint without moe_use_aux_free has no exp_probs_b: only a dump's
  // counts say so (ConverterHints::no_expert_bias): 389 - 27 = 362, f32 84.
  ConverterHints hints;
  hints.no_expert_bias = true;
  const Model spec_only = from_config(R"({"model_type": "ernie4_5_moe", "hidden_size": 2560,
    "intermediate_size": 12288, "moe_intermediate_size": 1536, "moe_num_experts": 64, "moe_k": 6,
    "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "num_attention_heads": 20,
    "num_key_value_heads": 4, "head_dim": 128, "num_hidden_layers": 28, "vocab_size": 103424,
    "tie_word_embeddings": true})");
  Result<std::vector<ConvertedTensor>> bare = converted_tensors(spec_only.spec, nullptr, &hints);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->size(), 362u);
  EXPECT_EQ(converted_test::f32_count(*bare), 84);
}

// arcee-ai/AFM-4.5B's shape as its model card describes it (arcee: 2,560
// wide, 20 heads and 4 KV heads of 128, 18,432 ffn with ReLU^2, 36 blocks,
// 128,004 tokens, untied; no config.json was reachable to copy, so these
// are checked only by the parameter count below). A block:
// attn_norm, Q/K/V/O, ffn_norm, ffn_up, ffn_down (no gate): 8 tensors, f32
// 2. F16: token_embd and output 2 x 2,560 x 128,004 = 655,380,480, a
// block's attention 2 x 2,560^2 + 2 x 2,560 x 512 = 15,728,640 and MLP 2 x
// 2,560 x 18,432 = 94,371,840 (x 36): 4,618,997,760 elements; F32 2,560 +
// 36 x 5,120 = 186,880: 4,619,184,640 parameters (its Hugging Face page's
// 4.6B), 9,238,743,040 B at F16; 3 + 36 x 8 = 291 tensors.
TEST(ConvertedSharedExpertDecoders, ArceeHasNoGate) {
  const Model m = quantized(from_config(R"({"model_type": "arcee", "hidden_size": 2560,
    "intermediate_size": 18432, "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 128,
    "num_hidden_layers": 36, "vocab_size": 128004, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.tensors.size(), 291u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 218}, {"f32", 73}}));
  EXPECT_EQ(m.weights.bytes, 9'238'743'040u);
  EXPECT_EQ(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.35.ffn_up.weight")->shape, (std::vector<uint64_t>{18432, 2560}));
}

// inclusionAI/GroveMoE-Inst (GGUF grovemoe), its base geometry taken as
// Qwen3-30B-A3B's, from which it was upcycled (its own config.json was not
// reachable; checked only by the parameter count below): 2,048 wide, 32 heads and 4 KV heads of 128, 48 blocks, 128 experts of
// 768, 151,936 tokens, untied), with its adjugate experts: 64 (one a pair
// of experts), 128 wide. A block: attn_norm, Q/K/V/O, the per-head Q/K
// norms, ffn_norm, the router, three experts and three chunk experts: 15
// tensors, f32 5. F16: token_embd and output 2 x 2,048 x 151,936 =
// 622,329,856; a block's attention 18,874,368, experts 3 x 2,048 x 768 x
// 128 = 603,979,776, chunk experts 3 x 2,048 x 128 x 64 = 50,331,648 (x
// 48): 32,935,247,872; F32 2,048 + 48 x 266,496 = 12,793,856:
// 32,948,041,728 parameters (its model card's 33B), 65,921,671,168 B at
// F16; 3 + 48 x 15 = 723 tensors.
TEST(ConvertedSharedExpertDecoders, GroveMoeAddsItsChunkExperts) {
  const Model m = quantized(from_config(R"({"model_type": "grove_moe", "hidden_size": 2048,
    "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
    "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "num_hidden_layers": 48,
    "vocab_size": 151936, "tie_word_embeddings": false})"), "F16");
  EXPECT_EQ(m.tensors.size(), 723u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 482}, {"f32", 241}}));
  EXPECT_EQ(m.weights.bytes, 65'921'671'168u);
  EXPECT_EQ(find(m, "blk.47.ffn_down_chexps.weight")->shape, (std::vector<uint64_t>{64, 2048, 128}));
  EXPECT_EQ(find(m, "blk.0.exp_probs_b.bias"), nullptr);
}

}  // namespace
}  // namespace memfit::llamacpp
