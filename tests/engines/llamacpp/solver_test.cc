// solve_llamacpp(): the largest --ctx-size or --parallel that fits. Budgets
// are set from estimate_llamacpp() at a known answer, so the tests hold
// whatever the compute model says, and each checks one step further does
// not fit.
#include <gtest/gtest.h>

#include "memfit/llamacpp_solver.h"
#include "support/corpus.h"

namespace memfit {
namespace {

Model qwen3_8b() {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("qwen3/Qwen3-8B");  // training context 40,960
  m.weights.bytes = 5'000'000'000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

MemoryBudget budget_of(uint64_t bytes) { return MemoryBudget{bytes, bytes, BudgetSource::kExplicit}; }

uint64_t total_at(const Model& m, LlamaCppSettings s) {
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, budget_of(1));
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? e->total_bytes : 0;
}

TEST(LlamaCppSolver, LargestContextIsAPaddedBlockAndOneMoreDoesNotFit) {
  const Model m = qwen3_8b();
  LlamaCppSettings s;
  s.ctx_size = 16384;
  const uint64_t budget = total_at(m, s);
  Result<LlamaCppSolution> sol = solve_llamacpp(LlamaCppSolveFor::kCtxSize, m, LlamaCppSettings{},
                                                budget_of(budget));
  ASSERT_TRUE(sol.ok()) << sol.error().message();
  // 16,384 fits exactly; 16,385 pads to 16,640 cells: 256 more cells of
  // 36 x 4,096 B = 37,748,736 B more KV, which the budget does not have.
  EXPECT_EQ(sol->value, 16384u);
  EXPECT_FALSE(sol->capped);
  ASSERT_TRUE(sol->estimate.has_value());
  EXPECT_EQ(sol->estimate->total_bytes, budget);
  EXPECT_EQ(sol->estimate->context.n_ctx, 16384u);
  s.ctx_size = 16385;
  EXPECT_GT(total_at(m, s), budget);
}

TEST(LlamaCppSolver, ContextIsCappedAtTheTrainingContext) {
  const Model m = qwen3_8b();
  Result<LlamaCppSolution> sol =
      solve_llamacpp(LlamaCppSolveFor::kCtxSize, m, LlamaCppSettings{}, budget_of(1ull << 40));
  ASSERT_TRUE(sol.ok()) << sol.error().message();
  EXPECT_EQ(sol->value, 40960u);
  EXPECT_TRUE(sol->capped);
  // Not even one cell: the weights alone are 5 GB.
  sol = solve_llamacpp(LlamaCppSolveFor::kCtxSize, m, LlamaCppSettings{}, budget_of(4'000'000'000));
  ASSERT_TRUE(sol.ok());
  EXPECT_FALSE(sol->value.has_value());
  EXPECT_FALSE(sol->estimate.has_value());
}

TEST(LlamaCppSolver, QuantizedCachesHoldMoreContext) {
  const Model m = qwen3_8b();
  LlamaCppSettings s;
  s.ctx_size = 8192;
  const uint64_t budget = total_at(m, s);
  Result<std::vector<LlamaCppSolution>> all =
      solve_llamacpp_each_cache_type(LlamaCppSolveFor::kCtxSize, m, LlamaCppSettings{}, budget_of(budget));
  ASSERT_TRUE(all.ok()) << all.error().message();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].cache_type, GgmlType::kF16);
  EXPECT_EQ((*all)[0].value, 8192u);
  // q8_0 rows are 1,088 B for 2,048 B of f16 (1024 / 32 x 34), so the
  // same KV bytes hold about 8,192 x 2,048 / 1,088 = 15,420 tokens: the
  // answer is a block count of 256 at or below that.
  EXPECT_EQ((*all)[1].cache_type, GgmlType::kQ8_0);
  ASSERT_TRUE((*all)[1].value.has_value());
  EXPECT_GT(*(*all)[1].value, 8192u);
  EXPECT_LE(*(*all)[1].value, 15420u);
  EXPECT_EQ(*(*all)[1].value % 256, 0u);
  EXPECT_EQ((*all)[2].cache_type, GgmlType::kQ4_0);
  EXPECT_GT(*(*all)[2].value, *(*all)[1].value);
  // With flash attention off only f16 is solved (quantized V needs it).
  LlamaCppSettings off;
  off.flash_attn = FlashAttn::kOff;
  all = solve_llamacpp_each_cache_type(LlamaCppSolveFor::kCtxSize, m, off, budget_of(budget));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

TEST(LlamaCppSolver, ParallelIsSearchedWholeBecauseCellsAreNotMonotone) {
  const Model m = qwen3_8b();
  // -c 4096: -np 3 pads to 3 x 1,536 = 4,608 cells, -np 4 to 4 x 1,024 =
  // 4,096. A budget of -np 4's total fits 4 (and 1, 2) but not 3; -np 5 is
  // 5 x 1,024 = 5,120 cells, over. The answer is 4, past a failing 3.
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.parallel = 4;
  const uint64_t budget = total_at(m, s);
  s.parallel = 3;
  ASSERT_GT(total_at(m, s), budget);
  LlamaCppSettings at;
  at.ctx_size = 4096;
  Result<LlamaCppSolution> sol = solve_llamacpp(LlamaCppSolveFor::kParallel, m, at, budget_of(budget));
  ASSERT_TRUE(sol.ok()) << sol.error().message();
  EXPECT_EQ(sol->value, 4u);
  EXPECT_FALSE(sol->capped);
  EXPECT_EQ(sol->estimate->context.n_ctx, 4096u);
  // The ceiling: 4,096 cells keep 256 per sequence up to -np 16.
  sol = solve_llamacpp(LlamaCppSolveFor::kParallel, m, at, budget_of(1ull << 40));
  ASSERT_TRUE(sol.ok());
  EXPECT_EQ(sol->value, 16u);
  EXPECT_TRUE(sol->capped);
}

TEST(LlamaCppSolver, TheSettingsOwnErrorsAreReturned) {
  Model m = qwen3_8b();
  LlamaCppSettings s;
  s.cache_type_v = GgmlType::kQ4_0;
  s.flash_attn = FlashAttn::kOff;
  Result<LlamaCppSolution> sol = solve_llamacpp(LlamaCppSolveFor::kCtxSize, m, s, budget_of(1ull << 40));
  ASSERT_FALSE(sol.ok());
  EXPECT_EQ(sol.error().field(), "flash_attn");
  // --solve parallel at --ctx-size 0 with no training context.
  m.spec.max_position_tokens = 0;
  sol = solve_llamacpp(LlamaCppSolveFor::kParallel, m, LlamaCppSettings{}, budget_of(1ull << 40));
  ASSERT_FALSE(sol.ok());
  EXPECT_EQ(sol.error().field(), "ctx_size");
}

}  // namespace
}  // namespace memfit
