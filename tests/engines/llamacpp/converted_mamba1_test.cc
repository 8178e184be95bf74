// Mamba's and Jamba's converted tensors (engines/llamacpp/converted_mamba1.cc).
// Jamba's are checked against the Jamba Mini 1.7 Q8_0 dump of ggml-org/llama.cpp
// issue #14625 (tests/data/logs/llamacpp/llamacpp-14625-jamba-mini-q8_0-
// 4060ti-ot.log: 531 tensors, f32 305, q8_0 226, file size 51.05 GiB);
// counts by type and bytes worked by hand below.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engines/llamacpp/converted_mamba1.h"
#include "engines/llamacpp/converted_models.h"
#include "engines/llamacpp/quantize_plan.h"

namespace memfit::llamacpp {
namespace {

using converted_test::find;
using converted_test::from_config;
using converted_test::type_counts;

// AI21 Jamba Mini 1.7: 32 layers of 4,096, attention at 4, 12, 20, 28
// (32 heads, 8 KV heads of 128), Mamba-1 elsewhere (inner 8,192, state
// 16, kernel 4, dt_rank 256), 16 experts of 14,336 in the odd layers, a
// dense FFN of 14,336 in the even ones, 65,536 tokens, untied.
constexpr std::string_view kJambaMini = R"({"model_type": "jamba", "num_hidden_layers": 32,
  "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
  "intermediate_size": 14336, "num_experts": 16, "num_experts_per_tok": 2,
  "attn_layer_period": 8, "attn_layer_offset": 4, "expert_layer_period": 2,
  "expert_layer_offset": 1, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2,
  "mamba_dt_rank": 256, "vocab_size": 65536, "tie_word_embeddings": false})";

// Q8_0 elements: token_embd and output 2 x 4,096 x 65,536 = 536,870,912; a
// Mamba block's ssm_in 4,096 x 16,384 = 67,108,864, ssm_x 8,192 x 288 =
// 2,359,296, ssm_dt 256 x 8,192 = 2,097,152, ssm_out 8,192 x 4,096 =
// 33,554,432: 105,119,744, x 28 = 2,943,352,832; an attention block's Q
// and O 2 x 16,777,216, K and V 2 x 4,194,304: 41,943,040, x 4 =
// 167,772,160; a dense FFN 3 x 4,096 x 14,336 = 176,160,768, x 16 =
// 2,818,572,288; a routed one x 16 experts = 2,818,572,288, x 16 =
// 45,097,156,608. 51,563,724,800 x 34 / 32 = 54,786,457,600 B.
// F32: output_norm 4,096; a Mamba block's attn_norm 4,096, ssm_conv1d 4 x
// 8,192 = 32,768 and its bias 8,192, ssm_dt_norm 256, ssm_dt.bias 8,192,
// ssm_b_norm and ssm_c_norm 2 x 16, ssm_a 16 x 8,192 = 131,072, ssm_d
// 8,192, ffn_norm 4,096: 196,896, x 28 = 5,513,088; an attention block's
// two norms 8,192, x 4 = 32,768; a router 4,096 x 16 = 65,536, x 16 =
// 1,048,576. 6,598,528 x 4 = 26,394,112 B. Together 54,812,851,712 B, in
// the printed 51.05 GiB; 531 tensors: q8_0 2 + 28 x 4 + 4 x 4 + 16 x 3 +
// 16 x 3 = 226, f32 1 + 28 x 10 + 4 x 2 + 16 = 305.
TEST(ConvertedJamba, MiniQ8_0OfIssue14625) {
  const Model m = from_config(kJambaMini);
  const Mamba1Widths w{8192, 16, 4, 256};
  ConverterHints h;
  h.mamba1 = &w;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q8_0"), nullptr, {}, &h);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->tensors.size(), 531u);
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"f32", 305}, {"q8_0", 226}}));
  EXPECT_EQ(q->weights.bytes, 54812851712u);
  EXPECT_NE(find(*q, "blk.1.ffn_up_exps.weight"), nullptr);
  EXPECT_EQ(find(*q, "blk.2.ffn_up_exps.weight"), nullptr);
  EXPECT_NE(find(*q, "blk.4.attn_k.weight"), nullptr);
  // Without the widths the spec alone builds no list.
  EXPECT_FALSE(converted_tensors(m.spec).ok());
}

// bagel-2.8b-v0.2, a Mamba 2.8B (llamacpp-neverllama8-6189-m1-mamba-2.8b-
// q8_0-metal's dump, ggml-org/llama.cpp #6189: 64 blocks of 2,560, inner
// 5,120, state 16, kernel 4, dt_rank 160, 50,280 tokens; 642 tensors, f32
// 513, q8_0 129: no output.weight, tied).
constexpr std::string_view kMamba28b = R"({"model_type": "mamba", "num_hidden_layers": 64,
  "hidden_size": 2560, "intermediate_size": 5120, "state_size": 16, "conv_kernel": 4,
  "expand": 2, "time_step_rank": 160, "vocab_size": 50280, "tie_word_embeddings": true})";

// Q8_0 as the first Mamba support wrote it (#5328: ssm_x and ssm_dt F32,
// unquantized). A block: Q8_0 ssm_in 2,560 x 10,240 = 26,214,400 and
// ssm_out 5,120 x 2,560 = 13,107,200 elements, 39,321,600 / 32 x 34 =
// 41,779,200 B; F32 attn_norm 2,560, ssm_conv1d 4 x 5,120 = 20,480 and its
// bias 5,120, ssm_x 5,120 x (160 + 32) = 983,040, ssm_dt 160 x 5,120 =
// 819,200 and its bias 5,120, ssm_a 16 x 5,120 = 81,920, ssm_d 5,120:
// 1,922,560 floats = 7,690,240 B. 49,469,440 B x 64 = 3,166,044,160;
// token_embd (tied: the output's rule, Q8_0 kept) 2,560 x 50,280 =
// 128,716,800 / 32 x 34 = 136,761,600 (the log's CPU buffer, 130.43 MiB),
// output_norm 10,240. 3,302,816,000 B, the printed 3.08 GiB; f32 64 x 8 +
// 1 = 513, q8_0 64 x 2 + 1 = 129: the dump's counts.
// The pinned release's rules quantize ssm_x and ssm_dt too (their rows,
// 5,120 and 160, are whole 32-blocks): a block's Q8_0 elements 41,123,840
// / 32 x 34 = 43,694,080 B and its F32 120,320 floats = 481,280 B,
// 44,175,360 x 64 = 2,827,223,040, with token_embd and output_norm
// 2,963,994,880 B; q8_0 64 x 4 + 1 = 257, f32 64 x 6 + 1 = 385.
TEST(ConvertedMamba1, Mamba28bQ8_0OfIssue6189) {
  const Model m = from_config(kMamba28b);
  const Mamba1Widths w{5120, 16, 4, 160};
  ConverterHints h;
  h.mamba1 = &w;
  h.mamba1_small_f32 = true;
  QuantizeRules first;
  first.mamba1_small_f32 = true;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q8_0"), nullptr, first, &h);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->tensors.size(), 642u);
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"f32", 513}, {"q8_0", 129}}));
  EXPECT_EQ(q->weights.bytes, 3302816000u);
  EXPECT_EQ(find(*q, "token_embd.weight")->data_bytes, 136761600u);
  EXPECT_EQ(find(*q, "blk.0.ssm_x.weight")->shape, (std::vector<uint64_t>{192, 5120}));
  EXPECT_EQ(find(*q, "output.weight"), nullptr);
  EXPECT_EQ(find(*q, "blk.0.ffn_norm.weight"), nullptr);  // Jamba's, not Mamba's

  h.mamba1_small_f32 = false;
  Result<Model> pinned = quantized_gguf_model(m, *find_gguf_file_type("Q8_0"), nullptr, {}, &h);
  ASSERT_TRUE(pinned.ok()) << pinned.error().message();
  EXPECT_EQ(type_counts(*pinned), (std::map<std::string, int>{{"f32", 385}, {"q8_0", 257}}));
  EXPECT_EQ(pinned->weights.bytes, 2963994880u);
  // Without the widths the spec alone builds no list.
  EXPECT_FALSE(converted_tensors(m.spec).ok());
}

}  // namespace
}  // namespace memfit::llamacpp
