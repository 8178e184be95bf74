// The CPU_REPACK buffer (docs/llamacpp-rules.md, "Model weights") worked by
// hand. Tensor bytes: q4_0 is 18 B per 32 elements, q4_K 144 B per 256,
// q8_0 34 B per 32, q6_K 210 B per 256, q2_K 84 B per 256, f16 2 B.
// Shapes are outermost first (as Model::tensors holds them), so a 2-D
// weight's row count ne[1] is shape[0].
#include <gtest/gtest.h>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/releases.h"
#include "memfit/llamacpp.h"

namespace memfit {
namespace {

SafetensorsTensor tensor(std::string name, std::string dtype, std::vector<uint64_t> shape,
                         uint64_t bytes) {
  return SafetensorsTensor{std::move(name), std::move(dtype), std::move(shape), bytes};
}

// One decoder block (blk.0) and a tied embedding (no output.weight).
std::vector<SafetensorsTensor> tied_model() {
  return {
      // 256 rows of 512: 16 blocks x 18 B = 288 B a row; x 256 = 73,728.
      tensor("blk.0.attn_q.weight", "q4_0", {256, 512}, 73728),
      // 1536 rows of 512: 2 blocks x 144 B = 288 B a row; x 1536 = 442,368.
      tensor("blk.0.ffn_up.weight", "q4_K", {1536, 512}, 442368),
      // 256 rows: 16 x 34 = 544 B a row; x 256 = 139,264.
      tensor("blk.0.attn_k.weight", "q8_0", {256, 512}, 139264),
      // 256 rows of 512 f16: 1,024 B a row; x 256 = 262,144 (never repacked).
      tensor("blk.0.attn_v.weight", "f16", {256, 512}, 262144),
      // 8 experts of 256 x 512 q4_0: 8 x 73,728 = 589,824.
      tensor("blk.0.ffn_gate_exps.weight", "q4_0", {8, 256, 512}, 589824),
      // 100 rows (a multiple of 4, not of 8): 288 x 100 = 28,800.
      tensor("blk.0.attn_output.weight", "q4_0", {100, 512}, 28800),
      // 4 rows of 32: 4 x 18 = 72 B, padded to 96 in the buffer.
      tensor("blk.0.tiny.weight", "q4_0", {4, 32}, 72),
      // 256 rows of 512 q2_K: 2 x 84 = 168 B a row; x 256 = 43,008.
      tensor("blk.0.ffn_down.weight", "q2_K", {256, 512}, 43008),
      // A 3-D weight that is not an expert tensor (MLA's attn_k_b): not repacked.
      tensor("blk.0.attn_k_b.weight", "q4_0", {8, 256, 512}, 589824),
      // 1-D norm: 512 x 4 = 2,048.
      tensor("blk.0.attn_norm.weight", "f32", {512}, 2048),
      // 32000 rows of 512 q4_0: 288 x 32000 = 9,216,000.
      tensor("token_embd.weight", "q4_0", {32000, 512}, 9216000),
  };
}

uint64_t repack(const std::vector<SafetensorsTensor>& tensors, RepackCpu cpu, uint64_t blocks = 1) {
  Result<uint64_t> bytes = llamacpp_repack_bytes(tensors, blocks, cpu);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
  return bytes.ok() ? *bytes : 0;
}

TEST(LlamaCppRepack, X86Avx2TakesQ4WithRowsAMultipleOf8AndTheTiedOutput) {
  // q4_0 attn_q 73,728 + q4_K ffn_up 442,368 + q4_0 experts 589,824
  // + the tied output (token_embd's q4_0, 32000 rows) 9,216,000 = 10,321,920.
  // Not: q8_0, f16, q2_K, the 100- and 4-row q4_0, attn_k_b (3-D, no _exps),
  // token_embd itself (a row lookup).
  EXPECT_EQ(repack(tied_model(), RepackCpu::kX86Avx2), 10321920u);
  // auto, unresolved, is taken as x86-avx2.
  EXPECT_EQ(repack(tied_model(), RepackCpu::kAuto), 10321920u);
}

TEST(LlamaCppRepack, X86Avx512AddsQ2K) {
  // 10,321,920 + q2_K ffn_down 43,008 = 10,364,928.
  EXPECT_EQ(repack(tied_model(), RepackCpu::kX86Avx512), 10364928u);
}

TEST(LlamaCppRepack, ArmTakesQ8_0AndRowsAMultipleOf4) {
  // q4_0: 73,728 + experts 589,824 + 100 rows 28,800 + 4 rows 72 -> 96
  //   = 692,448; q4_K 442,368; q8_0 139,264; tied q4_0 output 9,216,000.
  // 692,448 + 442,368 + 139,264 + 9,216,000 = 10,490,080.
  EXPECT_EQ(repack(tied_model(), RepackCpu::kArm), 10490080u);
}

TEST(LlamaCppRepack, NoneIsZero) { EXPECT_EQ(repack(tied_model(), RepackCpu::kNone), 0u); }

TEST(LlamaCppRepack, AnOutputOfItsOwnReplacesTheTiedCopy) {
  std::vector<SafetensorsTensor> t = tied_model();
  // 32000 rows of 512 q6_K: 2 x 210 = 420 B a row; x 32000 = 13,440,000.
  t.push_back(tensor("output.weight", "q6_K", {32000, 512}, 13440000));
  // x86: no q6_K kernel, and token_embd is no longer counted twice:
  // 73,728 + 442,368 + 589,824 = 1,105,920.
  EXPECT_EQ(repack(t, RepackCpu::kX86Avx2), 1105920u);
  // arm: 10,490,080 - 9,216,000 + 13,440,000 = 14,714,080.
  EXPECT_EQ(repack(t, RepackCpu::kArm), 14714080u);
}

TEST(LlamaCppRepack, TiedOutputOfATypeWithoutAKernelIsNotRepacked) {
  std::vector<SafetensorsTensor> t = tied_model();
  // token_embd as q8_0: 32000 x 544 = 17,408,000; no x86 kernel for q8_0.
  t.back() = tensor("token_embd.weight", "q8_0", {32000, 512}, 17408000);
  EXPECT_EQ(repack(t, RepackCpu::kX86Avx2), 10321920u - 9216000u);
  // arm repacks q8_0: 10,490,080 - 9,216,000 + 17,408,000 = 18,682,080.
  EXPECT_EQ(repack(t, RepackCpu::kArm), 18682080u);
}

TEST(LlamaCppRepack, NextNBlocksAreNotLoaded) {
  std::vector<SafetensorsTensor> t = tied_model();
  t.push_back(tensor("blk.1.attn_q.weight", "q4_0", {256, 512}, 73728));
  // One decoder block: blk.1 is the NextN block, skipped.
  EXPECT_EQ(repack(t, RepackCpu::kX86Avx2, 1), 10321920u);
  // Two decoder blocks: 10,321,920 + 73,728 = 10,395,648.
  EXPECT_EQ(repack(t, RepackCpu::kX86Avx2, 2), 10395648u);
}

// v0.5.0's repack.cpp gave ARM CPUs Q1_0 kernels (4x8 with i8mm, 4x4 with
// dotprod), rows a multiple of 4; v0.4.0, the pinned, had none. Q1_0 is
// 18 B per 128 elements.
TEST(LlamaCppRepack, ArmRepacksQ1_0FromV050) {
  const std::vector<SafetensorsTensor> t = {
      // 256 rows of 512: 4 blocks x 18 = 72 B a row; x 256 = 18,432.
      tensor("blk.0.attn_q.weight", "q1_0", {256, 512}, 18432),
      // 6 rows (not a multiple of 4): 6 x 72 = 432, never repacked.
      tensor("blk.0.attn_k.weight", "q1_0", {6, 512}, 432),
      // 4 rows of 128: 4 x 18 = 72 B, padded to 96 in the buffer.
      tensor("blk.0.ffn_up.weight", "q1_0", {4, 128}, 72),
  };
  LlamaCppSettings s;
  const auto bytes = [&](RepackCpu cpu) {
    Result<uint64_t> r = llamacpp_repack_bytes(t, 1, llamacpp::repack_kernels(cpu, s));
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : UINT64_MAX;
  };
  EXPECT_EQ(bytes(RepackCpu::kArm), 0u);  // the pinned v0.4.0
  s.build = 11299;
  EXPECT_EQ(bytes(RepackCpu::kArm), 0u);
  s.build = parse_llamacpp_build("v0.5.0").value();
  // 18,432 + pad32(72) = 18,432 + 96 = 18,528.
  EXPECT_EQ(bytes(RepackCpu::kArm), 18528u);
  // No x86 kernel for Q1_0 in v0.5.0.
  EXPECT_EQ(bytes(RepackCpu::kX86Avx2), 0u);
  EXPECT_EQ(bytes(RepackCpu::kX86Avx512), 0u);
  const RepackCounts counts = llamacpp_repack_counts(t, 1, llamacpp::repack_kernels(RepackCpu::kArm, s));
  EXPECT_EQ(counts.loaded, 3u);
  EXPECT_EQ(counts.repacked, 2u);
}

TEST(LlamaCppRepack, AbsurdSizesAreAnOverflowError) {
  std::vector<SafetensorsTensor> t = {
      tensor("blk.0.a.weight", "q4_0", {256, 512}, UINT64_MAX - 40),
      tensor("blk.0.b.weight", "q4_0", {256, 512}, 64)};
  Result<uint64_t> bytes = llamacpp_repack_bytes(t, 1, RepackCpu::kX86Avx2);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message(), "llama.cpp repack buffer overflows 64 bits");
}

TEST(LlamaCppRepack, EstimateAddsTheRepackedCopiesToTheModel) {
  Model m;
  m.has_config = true;
  m.spec.geometry = {1, 512, 8, 2, 64, 1536, 32000};
  m.spec.max_position_tokens = 4096;
  m.spec.layers = {LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0}};
  m.weights.bytes = 20000000;
  m.weights.verified = true;
  m.weights.source = WeightsSource::kGgufHeader;
  m.tensors = tied_model();
  const MemoryBudget budget{64ull << 30, 64ull << 30, BudgetSource::kExplicit};
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.repack = RepackCpu::kX86Avx2;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, budget);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->repack_modelled);
  EXPECT_EQ(e->mapped_bytes, 20000000u);
  EXPECT_EQ(e->repack_bytes, 10321920u);
  EXPECT_EQ(e->model_bytes, 30321920u);  // 20,000,000 + 10,321,920
  EXPECT_EQ(e->total_bytes, e->model_bytes + e->context_bytes + e->compute_bytes);

  s.repack = RepackCpu::kNone;
  e = estimate_llamacpp(m, s, budget);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->model_bytes, 20000000u);
  EXPECT_EQ(e->repack_bytes, 0u);

  // Without a tensor list (a safetensors model) the copies are not modelled.
  m.weights.source = WeightsSource::kSafetensorsHeader;
  s.repack = RepackCpu::kX86Avx2;
  e = estimate_llamacpp(m, s, budget);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->repack_modelled);
  EXPECT_EQ(e->model_bytes, 20000000u);
}

TEST(LlamaCppRepack, AutoResolvesFromTheHostCpu) {
  CpuFeatures x86;
  x86.arch = CpuFeatures::Arch::kX86;
  std::string assumption;
  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kAuto, x86, &assumption), RepackCpu::kNone);  // no AVX2
  x86.avx2 = true;
  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kAuto, x86, &assumption), RepackCpu::kX86Avx2);
  x86.amx_int8 = true;  // AMX is taken as the AVX-512 set
  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kAuto, x86, &assumption), RepackCpu::kX86Avx512);
  CpuFeatures arm;
  arm.arch = CpuFeatures::Arch::kArm;
  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kAuto, arm, &assumption), RepackCpu::kNone);
  arm.asimddp = true;
  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kAuto, arm, &assumption), RepackCpu::kArm);
  EXPECT_EQ(assumption, "");
  // Given values win over the host.
  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kNone, arm, &assumption), RepackCpu::kNone);
  EXPECT_EQ(assumption, "");

  EXPECT_EQ(resolve_repack_cpu(RepackCpu::kAuto, CpuFeatures{}, &assumption), RepackCpu::kX86Avx2);
  EXPECT_EQ(assumption,
            "this host's CPU features are unknown: llama.cpp's weight repacking is sized for an x86 "
            "CPU with AVX2 (give --repack to choose)");
}

TEST(LlamaCppRepack, ParsesTheFiveSpellings) {
  EXPECT_EQ(*parse_repack_cpu("auto"), RepackCpu::kAuto);
  EXPECT_EQ(*parse_repack_cpu("none"), RepackCpu::kNone);
  EXPECT_EQ(*parse_repack_cpu("x86-avx2"), RepackCpu::kX86Avx2);
  EXPECT_EQ(*parse_repack_cpu("x86-avx512"), RepackCpu::kX86Avx512);
  EXPECT_EQ(*parse_repack_cpu("arm"), RepackCpu::kArm);
  Result<RepackCpu> bad = parse_repack_cpu("amx");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "'amx': expected auto, none, x86-avx2, x86-avx512 or arm");
}

uint64_t host_extra(const std::vector<SafetensorsTensor>& tensors, RepackCpu cpu) {
  Result<uint64_t> bytes = llamacpp_host_extra_buffer_bytes(tensors, cpu);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
  return bytes.ok() ? *bytes : 0;
}

TEST(LlamaCppRepack, HostExtraBufferBeforeTwelve498TakesOnlyQ4_0OnX86) {
  // The CPU_AARCH64 kernels of a GPU build before #12498, over the same
  // tensors as the host's: on x86, q4_0 with rows a multiple of 8, attn_q
  // 73,728 + the experts 589,824 = 663,552. Not: q4_K (no x86 kernel then),
  // the 100- and 4-row q4_0, attn_k_b, token_embd (a lookup; the tied
  // output's copy is not counted here).
  EXPECT_EQ(host_extra(tied_model(), RepackCpu::kX86Avx2), 663552u);
  EXPECT_EQ(host_extra(tied_model(), RepackCpu::kX86Avx512), 663552u);
  // On ARM, q4_0 with rows a multiple of 4 adds the 100-row attn_output,
  // 28,800, and the 4-row tiny tensor, 72 padded to 96: 692,448.
  EXPECT_EQ(host_extra(tied_model(), RepackCpu::kArm), 663552u + 28800u + 96u);
  EXPECT_EQ(host_extra(tied_model(), RepackCpu::kNone), 0u);
}

TEST(LlamaCppRepack, CountsTheLoadedTensorsAndTheRepackedOnes) {
  // tied_model's 11 tensors, all in block 0 or outside the blocks, and
  // the tied output's second token_embd: 12 loaded. On x86-avx2, 4 land
  // in CPU_REPACK (attn_q, ffn_up, the experts, the output's copy of
  // token_embd): the loader's line would say "(and 7 others)", 8 off it.
  const RepackCounts avx2 = llamacpp_repack_counts(tied_model(), 1, RepackCpu::kX86Avx2);
  EXPECT_EQ(avx2.loaded, 12u);
  EXPECT_EQ(avx2.repacked, 4u);
  // With no decoder block (blk.0 a NextN block, not loaded): token_embd
  // and its copy, 2 loaded, the copy repacked.
  const RepackCounts nextn = llamacpp_repack_counts(tied_model(), 0, RepackCpu::kX86Avx2);
  EXPECT_EQ(nextn.loaded, 2u);
  EXPECT_EQ(nextn.repacked, 1u);
}

}  // namespace
}  // namespace memfit
