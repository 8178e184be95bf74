// The replayed compute buffer of Mamba-2 and Granite 4.0 H models
// (src/engines/llamacpp/graph/recurrent.cc) on docs/validation-llamacpp.md's
// mamba2 and granite-hybrid, their specs and file facts
// (src/engines/llamacpp/graph/file_facts.cc) read from the same GGUF keys
// (tests/validation/make_validation_models.cc). Every expected figure is
// the high-water mark the pinned library's own allocator reached for the
// same model and settings (its ggml-alloc.c, rebuilt with a print of every
// placement, under @node-llama-cpp/linux-x64@3.21.1's libllama; the layout
// at the peak is written out by hand beside each).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engines/llamacpp/graph/file_facts.h"
#include "memfit/gguf.h"
#include "memfit/llamacpp.h"
#include "memfit/model.h"
#include "memfit/model_spec.h"
#include "support/llamacpp_replay.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

// The model of the file `writer` makes: its spec and its header, as
// open_model gives them.
Model model_of(const GgufWriter& writer) {
  const std::string bytes = writer.bytes();
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  EXPECT_TRUE(header.ok()) << header.error().message();
  if (!header.ok()) return Model{};
  Result<ModelSpec> spec = model_spec_from_gguf(*header);
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  Model model;
  if (spec.ok()) model.spec = *spec;
  model.gguf = std::make_shared<const GgufHeader>(*header);
  return model;
}

// Whether llama.cpp ropes the attention layers of `model`'s file.
bool ropes(const Model& model) {
  return llamacpp::graph::file_facts(*model.gguf, model.spec.layers.size()).attention_rope;
}

// The keys of a validation model's architecture: 512 wide, vocabulary
// 32000, Mamba-2 mixers of inner 1024 (16 heads of 64), state 64, one
// group, kernel 4, unless told otherwise.
GgufWriter keys(const std::string& arch, uint32_t blocks, uint32_t inner = 1024, uint32_t heads = 16,
                uint32_t groups = 1, uint32_t state = 64) {
  GgufWriter w;
  w.add_string("general.architecture", arch)
      .add_u32(arch + ".context_length", 8192)
      .add_u32(arch + ".embedding_length", 512)
      .add_u32(arch + ".block_count", blocks)
      .add_f32(arch + ".attention.layer_norm_rms_epsilon", 1e-6f)
      .add_u32(arch + ".vocab_size", 32000)
      .add_u32(arch + ".ssm.conv_kernel", 4)
      .add_u32(arch + ".ssm.inner_size", inner)
      .add_u32(arch + ".ssm.state_size", state)
      .add_u32(arch + ".ssm.time_step_rank", heads)
      .add_u32(arch + ".ssm.group_count", groups);
  return w;
}

// `mamba2`: 4 blocks.
Model validation_mamba2() {
  GgufWriter w = keys("mamba2", 4);
  w.add_u32("mamba2.feed_forward_length", 0).add_u32("mamba2.attention.head_count", 0);
  return model_of(w);
}

// `granite-hybrid`: 6 blocks, attention (8 heads, 2 KV heads of 64) in
// blocks 2 and 5, a dense FFN of 1536 in every block; RoPE unless
// `rope` is false (rope.scaling.finetuned, absent in the validation file).
Model validation_granite(std::optional<bool> rope = std::nullopt) {
  GgufWriter w = keys("granitehybrid", 6);
  w.add_u32("granitehybrid.feed_forward_length", 1536)
      .add_u32("granitehybrid.attention.head_count", 8)
      .add_u32_array("granitehybrid.attention.head_count_kv", {0, 0, 2, 0, 0, 2})
      .add_f32("granitehybrid.rope.freq_base", 10000.0f);
  if (rope) w.add_bool("granitehybrid.rope.scaling.finetuned", *rope);
  return model_of(w);
}

// mamba2's prompt graph peaks at the logits for n tokens in one sequence
// (n outputs): from 0, the token ids 4n (freed), inp_embd 2048n (never
// freed), s_copy (one state row index, 32 after alignment), the output
// ids 4n, the residual rows the last block took (2048n, freed), then its
// l_out 2048n (which the final norm and result_norm reuse in place) and
// the logits 4 x 32000 x n.
constexpr uint64_t mamba2_logits_peak(uint64_t n) {
  return 4 * n + 2048 * n + 32 + 4 * n + 2048 * n + 2048 * n + 128000 * n;
}

TEST(LlamaCppGraphRecurrent, Mamba2PeaksAtTheLogits) {
  // -c 4096 -ub 512 (measured 65.50 MiB): 2,048 + 1,048,576 + 32 + 2,048 +
  // 1,048,576 + 1,048,576 + 65,536,000 = 68,685,856.
  const Model model = validation_mamba2();
  ASSERT_EQ(model.spec.mamba2, (Mamba2Geometry{16, 1024, 1, 64, 4, 4}));
  LlamaCppEstimate e = run_llamacpp(model, llamacpp_settings(4096, 1, 512, FlashAttn::kAuto));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, mamba2_logits_peak(512));
  EXPECT_EQ(mamba2_logits_peak(512), 68685856u);
  // -c 16384 -np 8 -ub 128: 8 sequences of 16 tokens, their 8 state row
  // indices 32 B: the same layout at 128 tokens, 17,171,488.
  e = run_llamacpp(model, llamacpp_settings(16384, 8, 128, FlashAttn::kOff));
  EXPECT_EQ(e.compute_bytes, mamba2_logits_peak(128));
  EXPECT_EQ(mamba2_logits_peak(128), 17171488u);
}

TEST(LlamaCppGraphRecurrent, Mamba2RoundsThePromptUpToTheSequences) {
  // -c 3000 -np 3 -ub 512: 513 tokens (3 sequences of 171), 512 outputs.
  // Token ids 4 x 513 = 2,052 (2,080 aligned), inp_embd 2,048 x 513 =
  // 1,050,624, s_copy 32, output ids 2,048, the last mixer's output over
  // 513 tokens freed (1,050,624), l_out over the 512 rows 1,048,576, the
  // logits 65,536,000: 68,689,984.
  LlamaCppEstimate e = run_llamacpp(validation_mamba2(), llamacpp_settings(3000, 3, 512, FlashAttn::kOn));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2080u + 1050624 + 32 + 2048 + 1050624 + 1048576 + 65536000);
}

TEST(LlamaCppGraphRecurrent, WideMixersPeakInTheConvolution) {
  // Mamba-Codestral 7B's mixer (inner 8192 in 128 heads, 8 groups of state
  // 128) in two 512-wide blocks, -c 4096 -ub 512 (measured on such a file:
  // 99.61 MiB). in_proj gives 2 x 8192 + 2 x 8 x 128 + 128 = 18,560 rows
  // a token, the convolution 8192 + 2 x 8 x 128 = 10,240 channels. The
  // second block's concat ((3 + 512) x 10,240 x 4 = 21,094,400) lands at
  // 62,378,016, above its in_proj output (18,560 x 512 x 4 = 38,010,880 at
  // 19,927,072, over the inputs and the holes the first block left) and a
  // 4,440,064 hole too small for it; the convolution's output (10,240 x 512
  // x 4 = 20,971,520) goes above: 104,443,936.
  GgufWriter w = keys("mamba2", 2, 8192, 128, 8, 128);
  w.add_u32("mamba2.feed_forward_length", 0).add_u32("mamba2.attention.head_count", 0);
  const LlamaCppEstimate e = run_llamacpp(model_of(w), llamacpp_settings(4096, 1, 512, FlashAttn::kAuto));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 62378016u + 21094400 + 20971520);
  // Three sequences (513 tokens) and eight (-ub 128), measured the same way.
  EXPECT_EQ(run_llamacpp(model_of(w),
                         llamacpp_settings(3000, 3, 512, FlashAttn::kOn)).compute_bytes, 130206272u);
  EXPECT_EQ(run_llamacpp(model_of(w),
                         llamacpp_settings(16384, 8, 128, FlashAttn::kOff)).compute_bytes, 60490784u);
}

TEST(LlamaCppGraphRecurrent, GraniteHybridPeaksAtTheLogits) {
  // -c 4096 -ub 512, flash attention (measured 64.50 MiB): the token ids'
  // hole 2,048, inp_embd 1,048,576, the last block's l_out 1,048,576 where
  // the other inputs were (all freed; the final norms reuse it in place),
  // the logits 65,536,000: 67,635,200.
  const Model model = validation_granite();
  EXPECT_TRUE(ropes(model));
  LlamaCppEstimate e = run_llamacpp(model, llamacpp_settings(4096, 1, 512, FlashAttn::kAuto));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2048u + 1048576 + 1048576 + 65536000);
  // The same without flash attention at -c 1000 (1,024 cells), and over
  // three sequences (-c 3000 -np 3: 513 tokens, measured 65.50 MiB).
  EXPECT_EQ(run_llamacpp(model, llamacpp_settings(1000, 1, 512, FlashAttn::kOff)).compute_bytes, 67635200u);
  EXPECT_EQ(run_llamacpp(model, llamacpp_settings(3000, 3, 512, FlashAttn::kOn)).compute_bytes, 68685856u);
  // -c 12000 -ub 1024 without flash attention: the attention scores peak
  // (measured 434.02 MiB).
  EXPECT_EQ(run_llamacpp(model, llamacpp_settings(12000, 1, 1024, FlashAttn::kOff)).compute_bytes, 455102496u);
}

TEST(LlamaCppGraphRecurrent, GraniteHybridWithoutRopeKeepsOneMoreRow) {
  // Granite 4.0 H files switch RoPE off (rope.scaling.finetuned false):
  // Q and K are views of their projections, not roped copies, and the
  // blocks' activations land elsewhere. -c 1000 -ub 512 without flash
  // attention (measured on the validation file with that key): the token
  // ids' hole 2,048, inp_embd 1,048,576, the last block's ffn_inp freed
  // (1,048,576), its l_out 1,048,576, the logits 65,536,000: 68,683,776,
  // one 2,048-wide row of 512 tokens more than with RoPE.
  const Model model = validation_granite(false);
  EXPECT_FALSE(ropes(model));
  LlamaCppEstimate e = run_llamacpp(model, llamacpp_settings(1000, 1, 512, FlashAttn::kOff));
  EXPECT_TRUE(e.compute_replayed);
  EXPECT_EQ(e.compute_bytes, 2048u + 1048576 + 1048576 + 1048576 + 65536000);
  EXPECT_EQ(run_llamacpp(validation_granite(true),
                         llamacpp_settings(1000, 1, 512, FlashAttn::kOff)).compute_bytes, 67635200u);
}

TEST(LlamaCppGraphRecurrent, WhatTheReplayDoesNotBuildKeepsThePhaseModel) {
  const LlamaCppSettings s = llamacpp_settings(4096, 1, 512, FlashAttn::kOn);
  Model moe = validation_granite();
  moe.spec.moe = MoeInfo{64, 6, 1, 512};  // Granite 4.0 H Tiny's experts
  EXPECT_FALSE(run_llamacpp(moe, s).compute_replayed);
  ModelSpec config = validation_granite().spec;
  config.model_type = "granitemoehybrid";  // a config.json: RoPE unknown
  EXPECT_FALSE(run_llamacpp(config, s).compute_replayed);
  // An f32 cache under flash attention is cast first: not in the graph.
  EXPECT_FALSE(run_llamacpp(validation_granite(),
                            llamacpp_settings(4096, 1, 512, FlashAttn::kOn, GgmlType::kF32))
                           .compute_replayed);
  // mamba2 has no KV cache: its graph is the same whatever the cache types.
  EXPECT_TRUE(run_llamacpp(validation_mamba2(),
                           llamacpp_settings(4096, 1, 512, FlashAttn::kOn, GgmlType::kF32)).compute_replayed);
  Model absurd = validation_mamba2();
  absurd.spec.mamba2.state = uint64_t{1} << 40;
  EXPECT_FALSE(run_llamacpp(absurd, s).compute_replayed);
  // A state row of 2^30 elements or more (state 2^17 x inner 2^13) is not
  // built; Mamba-Codestral 7B's 128 x 8192 = 2^20 is.
  absurd = validation_mamba2();
  absurd.spec.mamba2.state = uint64_t{1} << 17;
  absurd.spec.mamba2.inner = 8192;
  EXPECT_FALSE(run_llamacpp(absurd, s).compute_replayed);
  absurd.spec.mamba2.state = 128;
  EXPECT_TRUE(run_llamacpp(absurd, s).compute_replayed);
}

}  // namespace
}  // namespace memfit
