// The search for llama-quantize's options that give a file's counts and
// bytes (engines/llamacpp/quantize_options.h), on a two-block model small
// enough to work by hand.
// Block sizes (ggml): Q4_K 256 elements in 144 B, Q5_K 256 in 176 B,
// Q6_K 256 in 210 B, Q8_0 32 in 34 B (272 B per 256).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engines/llamacpp/quantize_options.h"

namespace memfit::llamacpp {
namespace {

using enum GgmlType;

// The tensors (ne[0] the row) and the types a Q4_K_M-like rule set gives:
//   token_embd  256 x 1000: 1,000 blocks of 256  (rules: q4_K, untied)
//   blk.N.attn_norm  256 F32: 1,024 B each       (not quantizable)
//   blk.N.attn_q    256 x 256: 256 blocks each    (rules: q4_K)
//   blk.N.ffn_down  512 x 256: 512 blocks each    (rules: q6_K)
//   output      256 x 1000: 1,000 blocks          (rules: q6_K)
// `tied` drops output (the rules then give token_embd the output's q6_K).
struct SmallModel {
  std::vector<ConvertedTensor> tensors;
  std::vector<GgmlType> rule_types;
  std::vector<TypeChoice> choices;

  explicit SmallModel(bool tied) {
    add("token_embd.weight", {256, 1000}, tied ? kQ6_K : kQ4_K, true);
    for (int i = 0; i < 2; ++i) {
      const std::string blk = "blk." + std::to_string(i) + ".";
      add(blk + "attn_norm.weight", {256}, kF32, false);
      add(blk + "attn_q.weight", {256, 256}, kQ4_K, true);
      add(blk + "ffn_down.weight", {512, 256}, kQ6_K, true);
    }
    if (!tied) add("output.weight", {256, 1000}, kQ6_K, true);
  }
  void add(std::string name, std::vector<uint64_t> ne, GgmlType rule, bool quantizable) {
    tensors.push_back(ConvertedTensor{std::move(name), std::move(ne), quantizable ? kF16 : kF32});
    rule_types.push_back(rule);
    choices.push_back(TypeChoice{quantizable, false});
  }
  RulesRebuild rebuild() const { return RulesRebuild{tensors, rule_types, choices, kQ4_K, {}}; }
};

std::vector<std::vector<std::string>> options_of(const std::vector<OptionsAssignment>& found) {
  std::vector<std::vector<std::string>> out;
  for (const OptionsAssignment& a : found) out.push_back(a.options);
  std::sort(out.begin(), out.end());
  return out;
}

// Tied, the file's token_embd at Q8_0 (bartowski's "_L" files):
//   token_embd q8_0 1,000 x 272 = 272,000
//   attn_q q4_K 2 x 256 x 144   =  73,728
//   ffn_down q6_K 2 x 512 x 210 = 215,040
//   norms 2 x 1,024             =   2,048
// 562,816 B; counts f32 2, q8_0 1, q4_K 2, q6_K 2. The other ways to hold
// those counts trade attn_q and ffn_down's types (attn_q q6_K 107,520 +
// ffn_down q4_K 147,456 = 254,976 B, not 288,768): only one holds the size.
TEST(QuantizeOptions, TiedTokenEmbeddingAtQ8_0IsTheOneAssignment) {
  const SmallModel m(true);
  const QuantizedFileTotals totals{{{kF32, 2}, {kQ8_0, 1}, {kQ4_K, 2}, {kQ6_K, 2}}, 562816, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().options, std::vector<std::string>{"--token-embedding-type q8_0"});
  EXPECT_EQ(found->front().bytes, 562816u);
  EXPECT_EQ(found->front().types.front(), kQ8_0);
}

// Untied, the same file with output at Q6_K: 562,816 + output q6_K
// 1,000 x 210 = 210,000 -> 772,816 B; counts f32 2, q8_0 1, q4_K 2,
// q6_K 3. token_embd and output have one shape, so token_embd q6_K with
// output q8_0 holds the counts and the bytes too: two assignments, which
// put different bytes on the host (token_embd) and the GPU (output).
TEST(QuantizeOptions, SwappedEmbeddingAndOutputTypesAreBothFound) {
  const SmallModel m(false);
  const QuantizedFileTotals totals{{{kF32, 2}, {kQ8_0, 1}, {kQ4_K, 2}, {kQ6_K, 3}}, 772816, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(options_of(*found),
            (std::vector<std::vector<std::string>>{
                {"--output-tensor-type q8_0", "--token-embedding-type q6_K"},
                {"--token-embedding-type q8_0"}}));
}

// --tensor-type by role, tied: ffn_down at Q5_K in both blocks. Bytes:
// token_embd q6_K 1,000 x 210 = 210,000 + attn_q 73,728 + ffn_down q5_K
// 2 x 512 x 176 = 180,224 + norms 2,048 = 466,000 B; counts f32 2, q4_K 2,
// q5_K 2, q6_K 1. attn_q at q5_K with ffn_down at q4_K holds the counts
// but not the bytes (90,112 + 147,456 = 237,568, not 253,952).
TEST(QuantizeOptions, ARoleOverriddenInEveryBlockIsOneTensorTypeOption) {
  const SmallModel m(true);
  const QuantizedFileTotals totals{{{kF32, 2}, {kQ4_K, 2}, {kQ5_K, 2}, {kQ6_K, 1}}, 466000, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().options, std::vector<std::string>{"--tensor-type ffn_down=q5_K"});
}

// A --tensor-type override leaves a tensor whose rules fell back: with
// blk.1.ffn_down marked as having fallen back (to q6_K here), ffn_down=q5_K
// types blk.0 alone: counts q5_K 1, q6_K 2 and 466,000 - 90,112 + 107,520
// = 483,408 B (token_embd at q5_K, the other way to one q5_K, is 466,816).
TEST(QuantizeOptions, TensorTypeSkipsATensorWhoseRulesFellBack) {
  SmallModel m(true);
  ASSERT_EQ(m.tensors[6].name, "blk.1.ffn_down.weight");
  m.choices[6].fell_back = true;
  const QuantizedFileTotals totals{{{kF32, 2}, {kQ4_K, 2}, {kQ5_K, 1}, {kQ6_K, 2}}, 483408, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().options, std::vector<std::string>{"--tensor-type ffn_down=q5_K"});
  EXPECT_EQ(found->front().types[6], kQ6_K);
}

// Every matrix at the default Q4_K: token_embd 144,000 + attn_q 73,728 +
// ffn_down 2 x 512 x 144 = 147,456 + output 144,000 + norms 2,048 =
// 511,232 B. --pure gives it, and so do the rules with ffn_down and
// output overridden: one list of types, kept once (the rules' first).
TEST(QuantizeOptions, PureAndTheSameOverridesAreOneAssignment) {
  const SmallModel m(false);
  const QuantizedFileTotals totals{{{kF32, 2}, {kQ4_K, 6}}, 511232, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().options,
            (std::vector<std::string>{"--output-tensor-type q4_K", "--tensor-type ffn_down=q4_K"}));
}

// The size decides what the counts leave open: the tied ffn_down=q5_K
// file (466,000 B) priced 1 byte off with no band holds no assignment;
// with a band of 1 it does.
TEST(QuantizeOptions, BytesOutsideTheBandHoldNoAssignment) {
  const SmallModel m(true);
  QuantizedFileTotals totals{{{kF32, 2}, {kQ4_K, 2}, {kQ5_K, 2}, {kQ6_K, 1}}, 466001, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
  totals.band_bytes = 1;
  found = search_quantize_options(m.rebuild(), totals);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->size(), 1u);
}

// An F16 file type: --tensor-type does not apply (llama-quantize retypes
// by pattern only when the default type is quantized), so a file whose
// blocks mix Q4_0 and Q4_K under "F16" (tests/validation/
// make_validation_models.cc writes such files) has no assignment.
TEST(QuantizeOptions, AFloatFileTypeTakesNoTensorTypeOverride) {
  SmallModel m(false);
  for (size_t i = 0; i < m.rule_types.size(); ++i) {
    if (m.choices[i].quantizable) m.rule_types[i] = kF16;
  }
  RulesRebuild r = m.rebuild();
  r.default_type = kF16;
  // attn_q at q4_0 (2 x 2,048 blocks of 32 x 18 B = 73,728) needs
  // --tensor-type: with ffn_down F16 2 x 131,072 x 2 = 524,288, token_embd
  // and output F16 2 x 512,000 and the norms 2,048: 1,624,064 B. The
  // overrides llama-quantize does take (token_embd and output at q4_0,
  // 144,000 each, attn_q F16 262,144) hold the counts in 1,076,480 B.
  const QuantizedFileTotals totals{{{kF32, 2}, {kF16, 4}, {kQ4_0, 2}}, 1624064, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(r, totals);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
}

// gpt-oss's experts as the converter writes them (MXFP4, 32 elements in
// 17 B; Q5_0 32 in 22 B), kept by the published K-quant files though the
// rules give an expert of a row that is not whole Q4_K blocks its fallback:
//   token_embd  256 x 1000, q4_K: 1,000 x 144        = 144,000 B
//   blk.0.ffn_up_exps 64 x 32 x 4 = 8,192 elements = 256 blocks of 32:
//     rules (q4_K -> fallback q5_0) 256 x 22 = 5,632; MXFP4 256 x 17 = 4,352
// File: q4_K 1, mxfp4 1, 144,000 + 4,352 = 148,352 B. --tensor-type does not
// override a fallback, so only keeping the converter's MXFP4 holds it.
TEST(QuantizeOptions, ExpertsTheConverterWroteInMxfp4AreKept) {
  std::vector<ConvertedTensor> tensors{{"token_embd.weight", {256, 1000}, kF16},
                                       {"blk.0.ffn_up_exps.weight", {64, 32, 4}, kMXFP4}};
  const std::vector<GgmlType> rules{kQ4_K, kQ5_0};
  const std::vector<TypeChoice> choices{TypeChoice{true, false}, TypeChoice{true, true}};
  const RulesRebuild rebuild{tensors, rules, choices, kQ4_K, {}};
  const QuantizedFileTotals totals{{{kQ4_K, 1}, {kMXFP4, 1}}, 148352, 0};
  Result<std::vector<OptionsAssignment>> found = search_quantize_options(rebuild, totals);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().options, std::vector<std::string>{"ffn_up_exps kept mxfp4 as converted"});
  EXPECT_TRUE(is_kept_as_converted(found->front().options.front()));
  EXPECT_EQ(found->front().types[1], kMXFP4);
  EXPECT_EQ(found->front().bytes, 148352u);
}

}  // namespace
}  // namespace memfit::llamacpp
