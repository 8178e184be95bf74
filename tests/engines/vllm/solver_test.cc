// solve_vllm(): the largest --max-model-len and --max-num-seqs vLLM starts
// with, worked by hand on real corpus configs (Llama-3.1-8B dense GQA, the
// Gemma-2 sliding window, the Qwen3.5 gated-delta-net hybrid). Every answer
// is checked against the estimate itself: at the answer it fits, at the
// answer + 1 it does not.
#include <gtest/gtest.h>

#include "memfit/vllm_solver.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
const MemoryBudget kBudgetSolver{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

// Llama-3.1-8B's bf16 checkpoint (the index's total_size).
constexpr uint64_t k8BWeights = 16060522496ull;

Model corpus_model(const std::string& config, uint64_t weights = 1000) {
  return testing::corpus_model(config, weights);
}

VllmSolution solve(VllmSolveFor what, const Model& m, const VllmSettings& s,
                   const MemoryBudget& budget = kBudgetSolver) {
  Result<VllmSolution> r = solve_vllm(what, m, {}, s, budget);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : VllmSolution{};
}

VllmEstimate estimate_at(VllmSolveFor what, const Model& m, VllmSettings s, uint64_t value) {
  if (what == VllmSolveFor::kMaxModelLen) s.max_model_len = value;
  else s.max_num_seqs = value;
  Result<VllmEstimate> e = estimate_vllm(m, {}, s, kBudgetSolver);
  EXPECT_TRUE(e.ok());
  return e.ok() ? *e : VllmEstimate{};
}

// The answer starts and fits; one more does not.
void expect_boundary(VllmSolveFor what, const Model& m, const VllmSettings& s, uint64_t answer) {
  const VllmEstimate at = estimate_at(what, m, s, answer);
  const VllmEstimate past = estimate_at(what, m, s, answer + 1);
  EXPECT_TRUE(at.starts && at.fits);
  if (what == VllmSolveFor::kMaxModelLen) {
    EXPECT_FALSE(past.starts);
  } else {
    EXPECT_GE(at.max_num_seqs_fit, answer);
    EXPECT_LT(past.max_num_seqs_fit, answer + 1);
  }
}

TEST(VllmSolver, MaxModelLenIsEveryBlockGivenToOneRequest) {
  // Llama-3.1-8B: 32 layers x 2 x 16 tokens x 8 KV heads x 128 x 2 B =
  // 2,097,152 B a block. 2 GiB given: 1,024 blocks, 1,024 x 16 = 16,384
  // tokens; 16,385 needs cdiv(16,385, 16) = 1,025 blocks.
  Model m = corpus_model("llama3/Meta-Llama-3.1-8B", k8BWeights);
  VllmSettings s;
  s.kv_cache_memory = 2 * kGiB;
  VllmSolution a = solve(VllmSolveFor::kMaxModelLen, m, s);
  ASSERT_TRUE(a.value);
  EXPECT_EQ(*a.value, 16384u);
  EXPECT_FALSE(a.capped);
  EXPECT_EQ(a.ceiling, 131072u);  // max_position_embeddings
  ASSERT_TRUE(a.estimate);
  EXPECT_EQ(a.estimate->num_blocks, 1024u);
  EXPECT_EQ(a.estimate->settings.max_model_len, 16384u);
  EXPECT_EQ(a.estimate->max_model_len_fit, 16384u);  // the estimate's own answer agrees
  expect_boundary(VllmSolveFor::kMaxModelLen, m, s, 16384);
}

TEST(VllmSolver, MaxModelLenFromTheUtilization) {
  // Llama-3.1-8B on a 24 GiB GPU, vLLM 0.21 (pinned: the last release
  // whose V1 sampler sorts the logits, the 39 B the arithmetic below takes;
  // the solve is what is tested) at its default 0.92 (0.21 on):
  // floor(25,769,803,776 x 0.92) = 23,708,219,473 B. A 24 GiB GPU takes
  // vLLM's small defaults, 2,048 batched tokens and 256 rows. Weights
  // 16,060,522,496 + rope 131,072 x 128 x 2 = 33,554,432; activation: the
  // forward's hidden 2,048 x 4,096 x 2 x 4 = 67,108,864 + MLP 2,048 x 3 x
  // 14,336 x 2 = 176,160,768 = 243,269,632, under the sampler's hidden
  // 2,048 x 4,096 x 2 = 16,777,216 + 256 rows x 128,256 x 39 =
  // 1,280,507,904, so 1,297,285,120; non-torch 150,994,944: 17,542,356,992.
  // From 0.21 the CUDA graphs' estimate is subtracted too: 51 PIECEWISE
  // and 35 FULL graphs (256 sequences) x 32 layers x 256 KiB =
  // 721,420,288: KV 5,444,442,193, 2,596 blocks of 2,097,152, 41,536
  // tokens. The peak is the utilization's, the graphs inside it:
  // 23,708,219,473.
  Model m = corpus_model("llama3/Meta-Llama-3.1-8B", k8BWeights);
  VllmSettings s;
  s.gpu_memory_total = 24 * kGiB;
  s.release = VllmRelease{0, 21, 0, true};
  VllmSolution a = solve(VllmSolveFor::kMaxModelLen, m, s);
  ASSERT_TRUE(a.value);
  EXPECT_EQ(*a.value, 41536u);
  ASSERT_TRUE(a.estimate);
  EXPECT_EQ(a.estimate->kv_cache_bytes, 5444442193ull);
  EXPECT_EQ(a.estimate->num_blocks, 2596u);
  EXPECT_EQ(a.estimate->total_bytes, 23708219473ull);
  expect_boundary(VllmSolveFor::kMaxModelLen, m, s, 41536);
  // 80 GiB (vLLM's large defaults: 8,192 tokens, 1,024 rows): 26,643
  // blocks hold 426,288 tokens, past the config's 131,072:
  // capped there (vLLM refuses a longer --max-model-len).
  s.gpu_memory_total = 80 * kGiB;
  VllmSolution big = solve(VllmSolveFor::kMaxModelLen, m, s);
  ASSERT_TRUE(big.value);
  EXPECT_EQ(*big.value, 131072u);
  EXPECT_TRUE(big.capped);
  EXPECT_EQ(big.estimate->max_model_len_fit, 131072u);
}

TEST(VllmSolver, MaxNumSeqsCountsTheSamplerRowsItAdds) {
  // Llama-3.1-8B on 80 GiB at 0.9 (77,309,411,328 B; vLLM's large
  // defaults, 8,192 batched tokens), requests of 1,024 tokens (64 blocks).
  // Past 181 rows the sampler's peak is the activation: the hidden states
  // 8,192 x 4,096 x 2 = 67,108,864 + N x 128,256 x 39 = N x 5,001,984
  // (over the forward's 973,078,528). Everything but the rows: weights and
  // rope 16,094,076,928 + 67,108,864 + non-torch 150,994,944 =
  // 16,312,180,736, so KV(N) = 60,997,230,592 - N x 5,001,984. At 256 rows:
  // 59,716,722,688 B = 28,475 blocks, 444 requests. N requests fit while
  // KV(N) >= N x 64 x 2,097,152, so N <= 60,997,230,592 / 139,219,712 =
  // 438.1: 438 (58,806,361,600 B = 28,041 blocks; 439 rows leave 28,038
  // blocks, 438 requests).
  // Priced as 0.20 (0.11 to 0.20's accounting: 0.9, the CUDA graphs past
  // the utilization).
  Model m = corpus_model("llama3/Meta-Llama-3.1-8B", k8BWeights);
  VllmSettings s;
  s.gpu_memory_total = 80 * kGiB;
  s.max_model_len = 1024;
  s.release = VllmRelease{0, 20, 0, false};
  EXPECT_EQ(estimate_at(VllmSolveFor::kMaxNumSeqs, m, s, 256).max_num_seqs_fit, 444u);
  VllmSolution a = solve(VllmSolveFor::kMaxNumSeqs, m, s);
  ASSERT_TRUE(a.value);
  EXPECT_EQ(*a.value, 438u);
  EXPECT_FALSE(a.capped);
  EXPECT_EQ(a.ceiling, 8192u);  // --max-num-batched-tokens
  ASSERT_TRUE(a.estimate);
  EXPECT_EQ(a.estimate->settings.max_num_seqs, 438u);
  EXPECT_EQ(a.estimate->num_blocks, 28041u);
  EXPECT_EQ(a.estimate->max_num_seqs_fit, 438u);
  expect_boundary(VllmSolveFor::kMaxNumSeqs, m, s, 438);
  // Requests of 16 tokens (one block) would fit ~27,000: capped at the
  // 8,192 batched tokens (vLLM refuses more sequences than that).
  s.max_model_len = 16;
  VllmSolution many = solve(VllmSolveFor::kMaxNumSeqs, m, s);
  ASSERT_TRUE(many.value);
  EXPECT_EQ(*many.value, 8192u);
  EXPECT_TRUE(many.capped);
}

TEST(VllmSolver, SlidingWindowLayersStopGrowingAtTheirWindow) {
  // Gemma-2-2B: 13 full + 13 sliding (4,096) layers, a block 13 x 65,536 =
  // 851,968 B across a group; 800 blocks given (681,574,400 B). With 2,048
  // batched tokens a request of L >= 6,143 tokens needs cdiv(L, 16) full
  // blocks + cdiv(4,095 + 2,048, 16) + 1 = 385 sliding ones: cdiv(L, 16) <=
  // 415, L = 6,640 (6,641: 416 + 385 = 801 blocks). Priced as full
  // attention it would be 800 / 2 blocks x 16 = 6,400.
  Model m = corpus_model("gemma2/gemma-2-2b-it");
  VllmSettings s;
  s.max_num_batched_tokens = 2048;
  s.kv_cache_memory = 800ull * 851968;
  VllmSolution a = solve(VllmSolveFor::kMaxModelLen, m, s);
  ASSERT_TRUE(a.value);
  EXPECT_EQ(*a.value, 6640u);
  ASSERT_TRUE(a.estimate);
  EXPECT_EQ(a.estimate->num_blocks, 800u);
  EXPECT_EQ(a.estimate->layout.blocks_per_request, 800u);
  expect_boundary(VllmSolveFor::kMaxModelLen, m, s, 6640);
}

TEST(VllmSolver, HybridMambaGroupsNeedOneStateEach) {
  // Qwen3.5-35B-A3B with 5.98 GiB of fp8 KV (the hybrid estimate test): 299
  // blocks of 21,463,040 B; a request of 131,072 tokens needs 63 attention
  // blocks of 2,096 tokens + 3 Mamba groups x (1 + 1 speculative) = 69:
  // 299 / 69 = 4 requests, 5 need 345.
  Model m = corpus_model("qwen3_5/Qwen3.5-35B-A3B");
  VllmSettings s;
  s.kv_cache_fp8 = true;
  s.max_model_len = 131072;
  s.num_speculative_tokens = 1;
  s.kv_cache_memory = static_cast<uint64_t>(5.98 * kGiB);
  VllmSolution a = solve(VllmSolveFor::kMaxNumSeqs, m, s);
  ASSERT_TRUE(a.value);
  EXPECT_EQ(*a.value, 4u);
  expect_boundary(VllmSolveFor::kMaxNumSeqs, m, s, 4);
  // The longest one request: 299 - 6 Mamba blocks = 293 attention blocks x
  // 2,096 = 614,128 tokens, past the config's context: capped there.
  VllmSolution len = solve(VllmSolveFor::kMaxModelLen, m, s);
  ASSERT_TRUE(len.value);
  EXPECT_TRUE(len.capped);
  EXPECT_EQ(*len.value, m.spec.max_position_tokens);
}

TEST(VllmSolver, NothingFitsSaysWhy) {
  // 16 GiB at 0.92 (15,805,479,649 B) is less than the 18.7 GB of weights
  // and the rest: no KV blocks, vLLM does not start.
  Model m = corpus_model("llama3/Meta-Llama-3.1-8B", k8BWeights);
  VllmSettings s;
  s.gpu_memory_total = 16 * kGiB;
  VllmSolution a = solve(VllmSolveFor::kMaxModelLen, m, s);
  EXPECT_FALSE(a.value);
  EXPECT_FALSE(a.estimate);
  EXPECT_EQ(a.why_none.rfind("vLLM would not start: 0.92 x 16.00 GiB less the weights", 0), 0u)
      << a.why_none;
  // 80 GiB at 0.92 takes 73.6 GiB, the CUDA graphs inside it (subtracted
  // from the KV memory from 0.21), over a 40 GiB budget.
  s.gpu_memory_total = 80 * kGiB;
  const MemoryBudget forty{40 * kGiB, 40 * kGiB, BudgetSource::kExplicit};
  VllmSolution over = solve(VllmSolveFor::kMaxNumSeqs, m, s, forty);
  EXPECT_FALSE(over.value);
  EXPECT_EQ(over.why_none, "vLLM's peak per rank, 73.60 GiB, is over the budget, 40.00 GiB");
  // Requests of 131,072 tokens (8,192 blocks) in 4,096 blocks: none.
  s.kv_cache_memory = 4096ull * 2097152;
  VllmSolution none = solve(VllmSolveFor::kMaxNumSeqs, m, s);
  EXPECT_FALSE(none.value);
  EXPECT_EQ(none.why_none,
            "vLLM would not start: its 4096 KV blocks hold no request of 131072 tokens (the longest "
            "they hold: 65536)");
}

TEST(VllmSolver, EstimateErrorsAreReturned) {
  Model m = corpus_model("llama3/Meta-Llama-3.1-8B", k8BWeights);
  VllmSettings s;  // no GPU total, no KV memory
  Result<VllmSolution> r = solve_vllm(VllmSolveFor::kMaxModelLen, m, {}, s, kBudgetSolver);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field(), "gpu_memory_total");
}

}  // namespace
}  // namespace memfit
