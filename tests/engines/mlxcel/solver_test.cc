// The solver's bounds: the answer fits and one more does not, on the
// bundled Qwen3-14B-MLX-4bit at a 16 GiB budget.
//
// Past 2048 tokens the activation is constant (184,853,248), so
//   total = 1.2 x (8,307,783,680 + 163,840 x R) + 184,853,248
// with R the context rounded up to 256. total <= 17,179,869,184 needs
//   196,608 x R <= 17,179,869,184 - 9,969,340,416 - 184,853,248 = 7,025,675,520
//   R <= 35,734.2, so R = 35,584 (139 blocks): the largest context is 35,584;
//   35,585 rounds to 35,840 and does not fit.
// int8 halves the rate: 98,304 x R <= 7,025,675,520, R <= 71,468.4 -> 71,424.
#include <gtest/gtest.h>

#include "engines/shared/largest_fitting.h"
#include "memfit/mlxcel_solver.h"
#include "support/corpus.h"

namespace memfit {
namespace {

Model example() {
  Model m;
  m.spec = testing::corpus_spec("mlx/Qwen3-14B-MLX-4bit");
  m.weights.bytes = 8307783680;
  return m;
}

const MemoryBudget k16GiB{16ull << 30, 16ull << 30, BudgetSource::kExplicit};

MlxcelEstimate at(uint64_t tokens, uint64_t batch, KvElement element = KvElement::kFp16,
                  const MemoryBudget& budget = k16GiB) {
  MlxcelInputs in;
  in.max_tokens = tokens;
  in.batch = batch;
  in.kv_element = element;
  Result<MlxcelEstimate> e = estimate_mlxcel(example(), in, MlxcelSettings{}, Platform{}, budget);
  EXPECT_TRUE(e.ok());
  return *e;
}

TEST(MlxcelSolver, LargestFittingBisects) {
  auto below_100 = [](uint64_t v) -> Result<bool> { return v <= 100; };
  EXPECT_EQ(*largest_fitting(1, 1000, below_100), 100u);
  EXPECT_EQ(*largest_fitting(1, 50, below_100), 50u);
  EXPECT_FALSE(largest_fitting(101, 1000, below_100)->has_value());
  auto failing = [](uint64_t) -> Result<bool> { return Error("boom"); };
  EXPECT_EQ(largest_fitting(1, 10, failing).error().message(), "boom");
}

TEST(MlxcelSolver, MaxTokensAnswerFitsAndOneMoreDoesNot) {
  Result<MlxcelSolution> s = solve_mlxcel(MlxcelSolveFor::kMaxTokens, example(), {}, MlxcelSettings{}, Platform{}, k16GiB);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->value.has_value());
  EXPECT_EQ(*s->value, 35584u);
  EXPECT_FALSE(s->capped);
  EXPECT_TRUE(s->estimate->fits);
  EXPECT_TRUE(at(35584, 1).fits);
  EXPECT_FALSE(at(35585, 1).fits);
}

TEST(MlxcelSolver, Int8DoublesTheContext) {
  MlxcelInputs in;
  in.kv_element = KvElement::kInt8;
  Result<MlxcelSolution> s = solve_mlxcel(MlxcelSolveFor::kMaxTokens, example(), in, MlxcelSettings{}, Platform{}, k16GiB);
  EXPECT_EQ(*s->value, 71424u);
  EXPECT_FALSE(at(71425, 1, KvElement::kInt8).fits);
}

TEST(MlxcelSolver, BatchAtAFixedContext) {
  // At 8192 tokens a sequence costs 1.2 x 1,342,177,280 = 1,610,612,736 of KV and
  // overhead plus 2 x 2048 x 22528 x 2 + 151936 x 2 = 184,853,248 of activation:
  // 9,969,340,416 + 1,795,465,984 x B <= 17,179,869,184 -> B <= 4.01 -> 4.
  Result<MlxcelSolution> s = solve_mlxcel(MlxcelSolveFor::kBatch, example(), {}, MlxcelSettings{}, Platform{}, k16GiB);
  EXPECT_EQ(*s->value, 4u);
  EXPECT_TRUE(at(8192, 4).fits);
  EXPECT_FALSE(at(8192, 5).fits);
}

TEST(MlxcelSolver, NothingFitsAndCappedAnswers) {
  MemoryBudget tiny{1ull << 30, 1ull << 30, BudgetSource::kExplicit};  // less than the weights
  Result<MlxcelSolution> none = solve_mlxcel(MlxcelSolveFor::kMaxTokens, example(), {}, MlxcelSettings{}, Platform{}, tiny);
  EXPECT_FALSE(none->value.has_value());
  // A pure SSM model's cache stops growing: every context fits a large budget.
  Model mamba;
  mamba.spec = testing::corpus_spec("mamba/mamba-2.8b-hf-finetune");
  mamba.weights.bytes = 5ull << 30;
  Result<MlxcelSolution> ssm = solve_mlxcel(MlxcelSolveFor::kMaxTokens, mamba, {}, MlxcelSettings{}, Platform{},
                                            MemoryBudget{64ull << 30, 64ull << 30, BudgetSource::kExplicit});
  EXPECT_EQ(*ssm->value, kMaxSolvedTokens);
  EXPECT_TRUE(ssm->capped);
}

TEST(MlxcelSolver, SlotsSplitTheTotalContext) {
  // ctx 65536 split into S slots of 65536 / S tokens at batch S: the KV total stays
  // 65536 x 163,840 = 10,737,418,240 while activation grows with S; 1.2 x (W + KV) =
  // 22,854,242,304 > 16 GiB: no slot count fits 16 GiB; at 32 GiB they do.
  MlxcelServeOptions serve;
  serve.ctx_size = 65536;
  Result<MlxcelSolution> s16 = solve_mlxcel(MlxcelSolveFor::kSlots, example(), {}, MlxcelSettings{}, Platform{}, k16GiB, serve);
  EXPECT_FALSE(s16->value.has_value());
  MemoryBudget k32{32ull << 30, 32ull << 30, BudgetSource::kExplicit};
  Result<MlxcelSolution> s32 = solve_mlxcel(MlxcelSolveFor::kSlots, example(), {}, MlxcelSettings{}, Platform{}, k32, serve);
  ASSERT_TRUE(s32->value.has_value());
  // W = 8,307,783,680; KV stays 65536 x 163,840 = 10,737,418,240 for any S that
  // divides 65536; 1.2 x (W + KV) = 22,854,242,304. Activation at S slots of
  // 65536 / S >= 2048 tokens: S x (2 x 2048 x 22528 x 2 + 151936 x 2) = S x 184,853,248.
  // 22,854,242,304 + S x 184,853,248 <= 34,359,738,368 -> S <= 62.2; S = 32 (2048
  // tokens each) fits; at S = 33..62 slots hold 1985..1057 tokens, rounded up to
  // 2048..1280, and the activation term min(ctx, 2048) shrinks: bisection finds the
  // boundary the estimator draws, and the answer fits while one more slot does not.
  uint64_t slots = *s32->value;
  EXPECT_EQ(s32->estimate->inputs.batch, slots);
  EXPECT_EQ(s32->estimate->inputs.max_tokens, 65536 / slots);
  EXPECT_TRUE(at(65536 / slots, slots, KvElement::kFp16, k32).fits);
  EXPECT_FALSE(at(65536 / (slots + 1), slots + 1, KvElement::kFp16, k32).fits);
}

}  // namespace
}  // namespace memfit
