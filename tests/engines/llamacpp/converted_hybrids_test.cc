// The converter's tensors for the Mamba-2 and short-convolution hybrids
// (Granite 4.0's hybrid, Nemotron-H, LFM2 and LFM2-MoE, Falcon-H1), deepseek2's multi-token
// prediction blocks, qwen2vl and T5's encoder (engines/llamacpp/
// converted_hybrids.cc, converted_t5.cc, converted_tensors.cc), checked
// against real and synthetic dumps' tensor counts; counts by type and
// bytes worked by hand below.
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

// The synthetic granite-hybrid model of tests/validation/
// make_validation_models.cc (the pinned-granite-hybrid logs' file): 6
// blocks of 512, attention (8 heads, 2 KV heads of 64) at blocks 2 and 5,
// Mamba-2 elsewhere (inner 1,024 = 16 heads x 64, 1 group, state 64,
// kernel 4), a dense FFN of 1,536 in every block, 32,000 tokens, tied.
constexpr std::string_view kGraniteSynthetic = R"({"model_type": "granitemoehybrid",
  "num_hidden_layers": 6, "hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2,
  "layer_types": ["mamba", "mamba", "attention", "mamba", "mamba", "attention"],
  "mamba_n_heads": 16, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 64,
  "mamba_d_conv": 4, "mamba_expand": 2, "intermediate_size": 1536, "vocab_size": 32000,
  "tie_word_embeddings": true})";

// As F16, the synthetic file's 72 tensors ("loaded ... 72 tensors"), 37
// F32 (its "f32: 37") and 35 matrices.
// F16: token_embd 512 x 32,000 = 16,384,000; a Mamba-2 block ssm_in 512 x
// (2 x 1,024 + 2 x 64 + 16 = 2,192) = 1,122,304, ssm_out 1,024 x 512 =
// 524,288, the FFN 3 x 512 x 1,536 = 2,359,296: 4,005,888, x 4 =
// 16,023,552; an attention block Q and O 2 x 512 x 512 = 524,288, K and V
// 2 x 512 x 128 = 131,072, the FFN 2,359,296: 3,014,656, x 2 = 6,029,312.
// 38,436,864 x 2 B = 76,873,728 B.
// F32: output_norm 512; a Mamba-2 block attn_norm 512, ssm_a, ssm_d and
// ssm_dt.bias 3 x 16, ssm_conv1d.bias 1,152 (1,024 + 2 x 64) and its
// weight 4 x 1,152 = 4,608, ssm_norm 1,024, ffn_norm 512: 7,856, x 4 =
// 31,424; an attention block's two norms 1,024, x 2 = 2,048. 33,984 x 4 B =
// 135,936 B. Together 77,009,664 B.
TEST(ConvertedHybrids, GraniteSyntheticF16) {
  const Model q = quantized(from_config(kGraniteSynthetic), "F16");
  EXPECT_EQ(q.tensors.size(), 72u);
  EXPECT_EQ(type_counts(q), (std::map<std::string, int>{{"f16", 35}, {"f32", 37}}));
  EXPECT_EQ(q.weights.bytes, 77009664u);
  const SafetensorsTensor* in = find(q, "blk.0.ssm_in.weight");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->shape, (std::vector<uint64_t>{2192, 512}));
  EXPECT_EQ(find(q, "blk.0.attn_q.weight"), nullptr);
  EXPECT_NE(find(q, "blk.2.attn_v.weight"), nullptr);
  EXPECT_EQ(find(q, "output.weight"), nullptr);
}

// Granite 4.0 H Small as ollama/ollama#12982's dump prints it: 40 blocks
// of 4,096, KV heads (8) in 4 of them (5, 15, 25, 35), 72 experts of 768
// (feed_forward_length) with a shared expert, 100,352 tokens, tied; its
// file holds 666 tensors. The Mamba-2 widths (128 heads of 64, 1 group,
// state 128) size, but do not count, tensors.
constexpr std::string_view kGraniteSmall = R"({"model_type": "granitemoehybrid",
  "num_hidden_layers": 40, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
  "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba"],
  "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128,
  "mamba_d_conv": 4, "mamba_expand": 2, "intermediate_size": 768, "shared_intermediate_size": 1024,
  "num_local_experts": 72, "num_experts_per_tok": 10, "vocab_size": 100352,
  "tie_word_embeddings": true})";

// Tensors: token_embd and output_norm (tied); a Mamba-2 block attn_norm, 8
// mixer tensors, ffn_norm, router, 3 routed and 3 shared: 17, x 36 = 612;
// an attention block attn_norm, Q/K/V/O, ffn_norm and the same 7 FFN
// tensors: 13, x 4 = 52. 666, the dump's count.
// Q4_K_M: F32 output_norm, 9 a Mamba-2 block (its 2 norms, ssm_a, ssm_d,
// ssm_dt.bias, the conv's weight and bias, ssm_norm, the router) and 3 an
// attention block: 1 + 324 + 12 = 337. Tied token_embd Q6_K. attn_v, 4 of
// them, Q6_K where use_more_bits(i, 4): i = 2 and 3. ffn_down (72 experts:
// its block from the name, n = 40) Q6_K in blocks 0-4, 35-39 and 7, 10,
// ..., 34 (10): 20 blocks x (routed + shared) = 40. q6_K 1 + 2 + 40 = 43;
// the other 328 - 42 = 286 matrices Q4_K.
TEST(ConvertedHybrids, GraniteSmallCountsAndQ4KM) {
  const Model m = from_config(kGraniteSmall);
  Result<std::vector<ConvertedTensor>> tensors = converted_tensors(m.spec);
  ASSERT_TRUE(tensors.ok()) << tensors.error().message();
  EXPECT_EQ(tensors->size(), 666u);
  const Model q = quantized(m, "Q4_K_M");
  EXPECT_EQ(type_counts(q), (std::map<std::string, int>{{"f32", 337}, {"q4_K", 286}, {"q6_K", 43}}));
  const SafetensorsTensor* shexp = find(q, "blk.0.ffn_down_shexp.weight");
  ASSERT_NE(shexp, nullptr);
  EXPECT_EQ(shexp->shape, (std::vector<uint64_t>{4096, 1024}));
}

// Nemotron 3 Nano (tests/data/corpus/nemotron_h): 52 blocks of 2,688 in
// the pattern MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME: 23
// Mamba-2 (M), 23 MoE (E: 128 experts of 1,856, a shared expert of 3,712),
// 6 attention (*: 32 heads, 2 KV heads of 128), untied.
// Tensors: token_embd, output, output_norm; M attn_norm + 8 mixer = 9 (x
// 23 = 207); E attn_norm, exp_probs_b, router, routed up/down, shared
// up/down = 7 (161); * attn_norm + Q/K/V/O = 5 (30): 401.
// Q4_K_M: rows of 2,688 (hidden) are not whole 256-blocks, nor are
// 1,856 and 3,712: Q4_K falls back to Q5_0, Q6_K to Q8_0.
// q5_0: token_embd, 23 ssm_in, 6 attn_q, 6 attn_k, 4 attn_v, 23 routed
// and 23 shared ffn_up, and the ffn_down of the 12 E blocks without more
// bits (24): 110. q8_0: output, 2 attn_v (use_more_bits(i, 6): i = 2, 5),
// the ffn_down of the 11 E blocks with more bits (blocks 1, 3, 8, 17, 20,
// 29, 38, 45, 47, 49, 51 of 52; x 2 = 22): 25. q4_K: 23 ssm_out and 6
// attn_output (rows of 4,096): 29. F32: output_norm, 7 a M block (161),
// 3 an E block (69), 1 a * block (6): 237.
TEST(ConvertedHybrids, NemotronNanoCountsAndQ4KM) {
  const Model m = from_config(R"({"model_type": "nemotron_h", "hidden_size": 2688,
    "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
    "num_hidden_layers": 52, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
    "intermediate_size": 1856, "moe_intermediate_size": 1856,
    "moe_shared_expert_intermediate_size": 3712, "n_routed_experts": 128, "n_shared_experts": 1,
    "num_experts_per_tok": 6, "mamba_num_heads": 64, "mamba_head_dim": 64, "n_groups": 8,
    "ssm_state_size": 128, "conv_kernel": 4, "vocab_size": 131072, "tie_word_embeddings": false})");
  Result<std::vector<ConvertedTensor>> tensors = converted_tensors(m.spec);
  ASSERT_TRUE(tensors.ok()) << tensors.error().message();
  EXPECT_EQ(tensors->size(), 401u);
  const Model q = quantized(m, "Q4_K_M");
  EXPECT_EQ(type_counts(q), (std::map<std::string, int>{
                                {"f32", 237}, {"q4_K", 29}, {"q5_0", 110}, {"q8_0", 25}}));
  const SafetensorsTensor* shexp = find(q, "blk.1.ffn_up_shexp.weight");
  ASSERT_NE(shexp, nullptr);
  EXPECT_EQ(shexp->shape, (std::vector<uint64_t>{3712, 2688}));
  EXPECT_EQ(find(q, "blk.1.ffn_gate_exps.weight"), nullptr);  // squared ReLU: no gate
}

// A dense Nemotron-H's MLP blocks (-) are the only ones with an ffn_down:
// llama-quantize's layer index for it is its count of ffn_down typed so
// far (layer_info(): one expert or none), not the block. Pattern M-M-M*--
// (8 blocks, MLPs at 1, 3, 6 and 7): under Q4_K_M ffn_down number i of n =
// 8 blocks takes Q6_K where use_more_bits(i, 8): i < 1, i >= 7 or (i - 1)
// % 3 == 2: i = 0 and 3, 2 of the 4. By block index (1, 3, 6, 7) it would
// be 3, 6 and 7: three.
TEST(ConvertedHybrids, NemotronDenseFfnDownByCount) {
  const Model m = from_config(R"({"model_type": "nemotron_h", "hidden_size": 1024,
    "hybrid_override_pattern": "M-M-M*--", "num_hidden_layers": 8, "num_attention_heads": 8,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 4096, "mamba_num_heads": 32,
    "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
    "vocab_size": 32768, "tie_word_embeddings": false})");
  const Model q = quantized(m, "Q4_K_M");
  int q6k_down = 0;
  for (const SafetensorsTensor& t : q.tensors) {
    q6k_down += t.name.ends_with("ffn_down.weight") && t.dtype == "q6_K";
  }
  EXPECT_EQ(q6k_down, 2);
}

// An LFM2 as llama.cpp #18641's dump prints it: 8 blocks of 512, KV heads
// (8 of 32) at blocks 2, 4 and 6, short convolutions elsewhere (width 3),
// n_ff 2,304, untied. Q4_0: 5 conv blocks' in_proj and out_proj (10), 3
// attention blocks' Q/K/V/O (12), 8 FFNs' gate/up/down (24) and the untied
// token_embd: q4_0 47; output Q6_K: 1, the dump's "q4_0: 47, q6_K: 1".
// F32: token_embd_norm, 2 norms a block (16), 5 conv kernels, 3 x 2 Q/K
// norms: 28.
TEST(ConvertedHybrids, Lfm2Q40IsTheDumps) {
  const Model m = from_config(R"({"model_type": "lfm2", "hidden_size": 512,
    "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 8,
    "full_attn_idxs": [2, 4, 6], "block_ff_dim": 2304, "block_auto_adjust_ff_dim": false,
    "conv_L_cache": 3, "vocab_size": 65536, "tie_word_embeddings": false})");
  const Model q = quantized(m, "Q4_0");
  EXPECT_EQ(type_counts(q), (std::map<std::string, int>{{"f32", 28}, {"q4_0", 47}, {"q6_K", 1}}));
  const SafetensorsTensor* conv = find(q, "blk.0.shortconv.conv.weight");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->shape, (std::vector<uint64_t>{512, 3}));
  EXPECT_EQ(conv->dtype, "f32");
}

// LiquidAI/LFM2-8B-A1B (lfm2_moe: 2,048 wide, 24 blocks, attention (32
// heads, 8 KV heads of 64) at blocks 2, 6, 10, 14, 18 and 21, short
// convolutions of width 3 elsewhere, the first 2 FFNs dense (7,168), then
// 32 experts of 1,792, 65,536 tokens, tied; 8.34 B parameters by the sums
// below: the model card's 8.3B). Tensors: token_embd, token_embd_norm, 2
// norms a block (48), 18 conv blocks' kernel, in_proj and out_proj (54), 6
// attention blocks' Q/K/V/O and Q/K norms (36), 2 dense FFNs (6), 22
// routed FFNs' router, exp_probs_b and three experts (110): 256. F16
// elements: token_embd 134,217,728, conv 18 x 16,777,216, attention 6 x
// 10,485,760, dense 2 x 44,040,192, experts 22 x 352,321,536:
// 8,338,276,352 x 2 B; F32: 2,048 + 48 x 2,048 + 18 x 6,144 + 6 x 128 +
// 22 x 65,568 = 1,654,208 floats x 4: 16,683,169,536 B.
TEST(ConvertedHybrids, Lfm2MoeRoutesAfterItsDenseBlocks) {
  const Model m = quantized(from_config(R"({"model_type": "lfm2_moe", "hidden_size": 2048,
    "intermediate_size": 7168, "moe_intermediate_size": 1792, "num_experts": 32,
    "num_experts_per_tok": 4, "num_dense_layers": 2, "num_hidden_layers": 24,
    "num_attention_heads": 32, "num_key_value_heads": 8, "full_attn_idxs": [2, 6, 10, 14, 18, 21],
    "conv_L_cache": 3, "vocab_size": 65536, "tie_embedding": true,
    "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(m.tensors.size(), 256u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 133}, {"f32", 123}}));
  EXPECT_EQ(m.weights.bytes, 16'683'169'536u);
  EXPECT_NE(find(m, "blk.1.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.2.exp_probs_b.bias")->shape, (std::vector<uint64_t>{32}));
  EXPECT_EQ(find(m, "blk.23.ffn_down_exps.weight")->shape, (std::vector<uint64_t>{32, 2048, 1792}));
}

// The pinned-deepseek2-mla synthetic file: 4 blocks, the last a NextN
// block (nextn_predict_layers 1), MLA split (k_b, v_b), 1 dense lead block,
// 16 experts of 256 and a shared one. A block 10 attention tensors
// (attn_norm, q_a, q_a_norm, q_b, kv_a_mqa, kv_a_norm, k_b, v_b, output,
// ffn_norm), 3 dense or 8 MoE: 13 + 2 x 18, the NextN block 18 + eh_proj,
// enorm, hnorm, shared_head_norm = 22; + token_embd, output_norm, output:
// 74, the log's. F32: 4 norms a block (16), router and exp_probs_b in 3
// MoE blocks (6), enorm, hnorm, shared_head_norm, output_norm: 26, the
// log's "f32: 26".
TEST(ConvertedHybrids, DeepSeekNextnBlock) {
  Model m = from_config(R"({"model_type": "deepseek_v3", "hidden_size": 512,
    "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 8,
    "intermediate_size": 1536, "moe_intermediate_size": 256, "n_routed_experts": 16,
    "n_shared_experts": 1, "num_experts_per_tok": 4, "q_lora_rank": 256, "kv_lora_rank": 256,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "first_k_dense_replace": 1, "vocab_size": 32000, "tie_word_embeddings": false})");
  m.spec.nextn_layers = 1;
  MlaWidths w{256, 256, 128, 64, 128, 1, true, true};
  ConverterHints hints;
  hints.mla = &w;
  Result<std::vector<ConvertedTensor>> tensors = converted_tensors(m.spec, nullptr, &hints);
  ASSERT_TRUE(tensors.ok()) << tensors.error().message();
  EXPECT_EQ(tensors->size(), 74u);
  EXPECT_EQ(f32_count(*tensors), 26);
  EXPECT_EQ(tensors->back().name, "blk.3.nextn.shared_head_norm.weight");
}

// llamacpp-13250's Qwen2.5-VL-3B language model (qwen2vl, F16): 36 blocks
// of 2,048, 16 heads, 2 KV heads of 128, FFN 11,008, 151,936 tokens, tied.
// A block qwen2's 12 (Q/K/V biases, 2 norms, 7 matrices): 432, +
// token_embd, output_norm: 434, the log's; F32 5 a block + output_norm =
// 181, F16 7 a block + token_embd = 253, the log's counts.
// F16: token_embd 2,048 x 151,936 = 311,164,928; a block Q and O 2 x
// 4,194,304, K and V 2 x 524,288, FFN 3 x 2,048 x 11,008 = 67,633,152:
// 77,070,336, x 36 = 2,774,532,096; 3,085,697,024 x 2 B = 6,171,394,048.
// F32: biases 2,048 + 2 x 256, norms 2 x 2,048: 6,656 x 36 + 2,048 =
// 241,664 x 4 B = 966,656. 6,172,360,704 B = 5.748 GiB, the log's "5.75 GiB".
TEST(ConvertedHybrids, Qwen2VlIsTheLogsF16) {
  const Model q = quantized(from_config(R"({"model_type": "qwen2vl", "hidden_size": 2048,
    "num_hidden_layers": 36, "num_attention_heads": 16, "num_key_value_heads": 2,
    "intermediate_size": 11008, "vocab_size": 151936, "tie_word_embeddings": true})"), "F16");
  EXPECT_EQ(type_counts(q), (std::map<std::string, int>{{"f16", 253}, {"f32", 181}}));
  EXPECT_EQ(q.weights.bytes, 6172360704u);
}

// llamacpp-12588's UMT5-XXL encoder (t5encoder, Q4_K_M): 24 blocks of
// 4,096, 64 heads of 64, FFN 10,240, 256,384 tokens, 32 relative buckets,
// a relative attention bias in every block (UMT5). 24 x 10 + token_embd +
// enc.output_norm = 242, the log's. F32: 2 norms a block + the output norm
// = 49; F16: 24 attn_rel_b (left as written). Q4_K_M: token_embd, with no
// output, by the output's rule Q6_K; attn_v and ffn_down Q6_K where
// use_more_bits(i, 24): i < 3, i >= 21, i = 5, 8, ..., 20: 12 each. q6_K
// 25, q4_K 24 x 7 - 24 = 144: the log's f32 49, f16 24, q4_K 144, q6_K 25.
// Bytes: token_embd 4,096 x 256,384 x 210 / 256 = 861,450,240; Q6_K
// attn_v 12 x 16,777,216 and ffn_down 12 x 41,943,040 = 704,643,072 x 210
// / 256 = 578,027,520; Q4_K the other 24 x 192,937,984 - 704,643,072 =
// 3,925,868,544 x 144 / 256 = 2,208,301,056; F16 24 x 32 x 64 x 2 =
// 98,304; F32 49 x 4,096 x 4 = 802,816. 3,648,679,936 B = 3.398 GiB, the
// log's "3.40 GiB". With the bias in block 0 alone (T5): 219 tensors.
TEST(ConvertedHybrids, T5EncoderIsTheLogsQ4KM) {
  const Model m = from_config(R"({"model_type": "t5encoder", "hidden_size": 4096,
    "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 64,
    "head_dim": 64, "intermediate_size": 10240, "vocab_size": 256384})");
  ConverterHints umt5;
  umt5.t5_relative_buckets = 32;
  umt5.t5_rel_b_every_block = true;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_K_M"), nullptr, {}, &umt5);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->tensors.size(), 242u);
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{
                                 {"f16", 24}, {"f32", 49}, {"q4_K", 144}, {"q6_K", 25}}));
  EXPECT_EQ(q->weights.bytes, 3648679936u);
  ConverterHints t5;
  Result<std::vector<ConvertedTensor>> first_only = converted_tensors(m.spec, nullptr, &t5);
  ASSERT_TRUE(first_only.ok()) << first_only.error().message();
  EXPECT_EQ(first_only->size(), 219u);
}

// tiiuae/Falcon-H1-Tiny-90M (falcon_h1: 512 wide, 8 heads and 2 KV heads of
// 64, 768 ffn, 24 blocks, 32,768 tokens, tied; its Mamba-2 mixer 24 heads
// of 32 (d_ssm 768), one group, state 64, kernel 4; its published config's
// dimensions and its Tool-Calling sibling's mamba widths as public code
// quotes them). A block: attn_norm; ssm_in (512 -> 768 + 896 + 24),
// ssm_conv1d (4 x 896, F32) and its bias, ssm_dt.bias, ssm_a, ssm_d,
// ssm_norm (768), ssm_out (768 -> 512); Q/K/V/O; ffn_norm; gate/up/down:
// 17 tensors, f32 8. F16: token_embd 16,777,216 + 24 x (864,256 + 393,216
// + 655,360 + 1,179,648) = 90,996,736 elements x 2; F32 512 + 24 x 6,344
// = 152,768 x 4: 182,604,544 B; 91,149,504 parameters (the name's 90M).
// 2 + 24 x 17 = 410 tensors. Without the gated norm (mamba_rms_norm false,
// a dump's counts' variant) each block holds 16.
TEST(ConvertedHybrids, FalconH1RunsAttentionAndMamba2SideBySide) {
  const Model m = quantized(from_config(R"({"model_type": "falcon_h1", "hidden_size": 512,
    "intermediate_size": 768, "num_hidden_layers": 24, "num_attention_heads": 8,
    "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 32768, "tie_word_embeddings": true,
    "mamba_d_ssm": 768, "mamba_n_heads": 24, "mamba_d_head": 32, "mamba_n_groups": 1,
    "mamba_d_state": 64, "mamba_d_conv": 4, "mamba_expand": 2})"), "F16");
  EXPECT_EQ(m.tensors.size(), 410u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 217}, {"f32", 193}}));
  EXPECT_EQ(m.weights.bytes, 182'604'544u);
  EXPECT_NE(find(m, "blk.23.ffn_norm"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ssm_in.weight")->shape, (std::vector<uint64_t>{1688, 512}));
  EXPECT_NE(find(m, "blk.0.attn_k.weight"), nullptr);
  ConverterHints hints;
  hints.falcon_h1_no_ssm_norm = true;
  const Model spec_only = from_config(R"({"model_type": "falcon_h1", "hidden_size": 512,
    "intermediate_size": 768, "num_hidden_layers": 24, "num_attention_heads": 8,
    "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 32768, "tie_word_embeddings": true,
    "mamba_d_ssm": 768, "mamba_n_heads": 24, "mamba_d_head": 32, "mamba_n_groups": 1,
    "mamba_d_state": 64, "mamba_d_conv": 4, "mamba_expand": 2})");
  Result<std::vector<ConvertedTensor>> bare = converted_tensors(spec_only.spec, nullptr, &hints);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->size(), 2u + 24 * 16);
  EXPECT_EQ(f32_count(*bare), 1 + 24 * 7);
}

}  // namespace
}  // namespace memfit::llamacpp
