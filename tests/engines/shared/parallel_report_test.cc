// parallel_plan_to_json() and render_parallel_plan_text() on a hand-filled TP 2 x PP 2
// plan, with ranks that do not fit, and on plan_parallel()'s plan for Qwen3-14B.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memfit/parallel_report.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

RankEstimate rank(uint64_t index, uint64_t tp, uint64_t stage, LayerRange layers, uint64_t weights,
                  uint64_t budget) {
  RankEstimate r;
  r.rank = index;
  r.tp_rank = tp;
  r.pp_stage = stage;
  r.layers = layers;
  r.kv_heads = 4;
  MlxcelEstimate& e = r.estimate;
  e.weights_bytes = weights;
  e.kv.total_bytes = 512 * kMiB;
  e.headroom_bytes = kGiB + 512 * kMiB;
  e.total_bytes = weights + 2 * kGiB;  // + 512 MiB of KV + 1.5 GiB of headroom
  e.budget_bytes = budget;
  e.fits = e.total_bytes <= budget;
  return r;
}

// Stage 0 (layers 0-15): 7 GiB of weights, 9 GiB in all; stage 1 (16-31):
// 8 GiB, 10 GiB in all; every rank against 24 GiB.
ParallelPlan tp2_pp2(uint64_t budget = 24 * kGiB) {
  ParallelPlan p;
  p.config = ParallelConfig{2, 2, ShardingRules::kVllm};
  p.from_tensor_list = true;
  p.ranks = {rank(0, 0, 0, {0, 16}, 7 * kGiB, budget), rank(1, 1, 0, {0, 16}, 7 * kGiB, budget),
             rank(2, 0, 1, {16, 32}, 8 * kGiB, budget), rank(3, 1, 1, {16, 32}, 8 * kGiB, budget)};
  p.fits = true;
  for (const RankEstimate& r : p.ranks) p.fits = p.fits && r.estimate.fits;
  return p;
}

TEST(ParallelTextReport, TheWholeTableOfFourRanksThatFit) {
  EXPECT_EQ(render_parallel_plan_text(tp2_pp2()),
            "\nParallel plan: vllm, tensor parallel 2 x pipeline parallel 2 = 4 ranks, weights split by tensor\n"
            "  rank  stage  layers       weights         KV   headroom      total     budget  fits\n"
            "     0      0  0-15        7.00 GiB  512.0 MiB   1.50 GiB   9.00 GiB  24.00 GiB  yes\n"
            "     1      0  0-15        7.00 GiB  512.0 MiB   1.50 GiB   9.00 GiB  24.00 GiB  yes\n"
            "     2      1  16-31       8.00 GiB  512.0 MiB   1.50 GiB  10.00 GiB  24.00 GiB  yes\n"
            "     3      1  16-31       8.00 GiB  512.0 MiB   1.50 GiB  10.00 GiB  24.00 GiB  yes\n"
            "ALL RANKS FIT\n");
}

TEST(ParallelTextReport, RanksThatDoNotFitAreListed) {
  // 9.5 GiB per device: stage 0's 9 GiB fit, stage 1's 10 GiB do not.
  const std::string text = render_parallel_plan_text(tp2_pp2(9 * kGiB + 512 * kMiB));
  EXPECT_THAT(text, HasSubstr("\n     1      0  0-15        7.00 GiB  512.0 MiB   1.50 GiB   9.00 GiB   9.50 GiB  yes\n"));
  EXPECT_THAT(text, HasSubstr("\n     2      1  16-31       8.00 GiB  512.0 MiB   1.50 GiB  10.00 GiB   9.50 GiB  NO\n"));
  EXPECT_THAT(text, HasSubstr("\nRANKS THAT DO NOT FIT: 2, 3\n"));
  EXPECT_THAT(text, Not(HasSubstr("ALL RANKS FIT")));
  // A zero budget: no rank fits.
  EXPECT_THAT(render_parallel_plan_text(tp2_pp2(0)), HasSubstr("\nRANKS THAT DO NOT FIT: 0, 1, 2, 3\n"));
  EXPECT_THAT(render_parallel_plan_text(tp2_pp2(0)), HasSubstr("  10.00 GiB        0 B  NO\n"));
}

TEST(ParallelTextReport, ProportionalSplitAssumptionsAndEmptyStages) {
  ParallelPlan p = tp2_pp2();
  p.config.sharding = ShardingRules::kMlxLm;
  p.from_tensor_list = false;
  p.assumptions = {"weights split in proportion to parameters (no tensor list)"};
  p.ranks[3].layers = {32, 32};  // a stage with no layers
  const std::string text = render_parallel_plan_text(p);
  EXPECT_THAT(text, HasSubstr("\nParallel plan: mlx-lm, tensor parallel 2 x pipeline parallel 2 = 4 ranks, "
                              "weights split proportionally\n"));
  EXPECT_THAT(text, HasSubstr("\n     3      1  -           8.00 GiB"));
  EXPECT_THAT(text, HasSubstr("  yes\n  parallel: weights split in proportion to parameters (no tensor list)\n"
                              "ALL RANKS FIT\n"));
}

TEST(ParallelTextReport, NoRanksIsAHeaderAlone) {
  // No planner makes a plan without ranks (tp and pp are at least 1); the
  // table is then its header, and no rank is short.
  ParallelPlan p;
  EXPECT_EQ(render_parallel_plan_text(p),
            "\nParallel plan: vllm, tensor parallel 1 x pipeline parallel 1 = 0 ranks, weights split proportionally\n"
            "  rank  stage  layers       weights         KV   headroom      total     budget  fits\n"
            "ALL RANKS FIT\n");
  EXPECT_EQ(parallel_plan_to_json(p).dump(),
            R"({"tensor_parallel":1,"pipeline_parallel":1,"engine":"vllm","weights_split":"proportional",)"
            R"("fits":false,"assumptions":[],"ranks":[]})");
}

TEST(ParallelJsonReport, EveryRankWithExactBytes) {
  nlohmann::ordered_json j = parallel_plan_to_json(tp2_pp2());
  EXPECT_EQ(j["tensor_parallel"], 2u);
  EXPECT_EQ(j["pipeline_parallel"], 2u);
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["weights_split"], "tensor_list");
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["assumptions"].dump(), "[]");
  ASSERT_EQ(j["ranks"].size(), 4u);
  // 7 GiB = 7,516,192,768; 512 MiB = 536,870,912; 1.5 GiB = 1,610,612,736;
  // 9 GiB = 9,663,676,416; 24 GiB = 25,769,803,776.
  EXPECT_EQ(j["ranks"][1].dump(),
            R"({"rank":1,"tp_rank":1,"pp_stage":0,"layer_begin":0,"layer_end":16,"kv_heads":4,)"
            R"("weights_bytes":7516192768,"kv_bytes_total":536870912,"headroom_bytes":1610612736,)"
            R"("total_bytes":9663676416,"budget_bytes":25769803776,"fits":true})");
  EXPECT_EQ(j["ranks"][2]["layer_begin"], 16u);
  EXPECT_EQ(j["ranks"][2]["layer_end"], 32u);
  EXPECT_EQ(j["ranks"][2]["weights_bytes"], 8589934592u);  // 8 GiB
  EXPECT_EQ(j["ranks"][2]["total_bytes"], 10737418240u);   // 10 GiB
  for (const auto& r : j["ranks"]) {
    EXPECT_EQ(r["weights_bytes"].get<uint64_t>() + r["kv_bytes_total"].get<uint64_t>() +
                  r["headroom_bytes"].get<uint64_t>(),
              r["total_bytes"].get<uint64_t>());
  }
  // Stage 1 over a 9.5 GiB budget.
  nlohmann::ordered_json short_plan = parallel_plan_to_json(tp2_pp2(9 * kGiB + 512 * kMiB));
  EXPECT_EQ(short_plan["fits"], false);
  EXPECT_EQ(short_plan["ranks"][0]["fits"], true);
  EXPECT_EQ(short_plan["ranks"][3]["fits"], false);
  EXPECT_EQ(short_plan["ranks"][3]["budget_bytes"], 10200547328u);  // 9.5 x 2^30
}

TEST(ParallelTextReport, PlannedForQwen3_14BOverTwoStages) {
  // vLLM's pipeline split of 40 layers over 2 stages: 0-19 and 20-39. Each
  // stage caches 20 layers x 2 x 8 x 128 x 2 B x 8192 tokens = 671,088,640
  // B (640.0 MiB) of KV.
  Model m = testing::corpus_model("mlx/Qwen3-14B-MLX-4bit", 8307783680ull);
  const MemoryBudget budget{24 * kGiB, 24 * kGiB, BudgetSource::kExplicit};
  Result<ParallelPlan> plan = plan_parallel(m, {}, MlxcelInputs{}, MlxcelSettings{}, Platform{}, budget,
                                            ParallelConfig{1, 2, ShardingRules::kVllm});
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  const std::string text = render_parallel_plan_text(*plan);
  EXPECT_THAT(text, HasSubstr("\nParallel plan: vllm, tensor parallel 1 x pipeline parallel 2 = 2 ranks, "
                              "weights split proportionally\n"));
  EXPECT_THAT(text, HasSubstr("\n     0      0  0-19     "));
  EXPECT_THAT(text, HasSubstr("\n     1      1  20-39    "));
  EXPECT_EQ(plan->ranks[0].estimate.kv.total_bytes, 671088640u);
  EXPECT_THAT(text, HasSubstr(" 640.0 MiB "));
  EXPECT_THAT(text, HasSubstr("\nALL RANKS FIT\n"));
  nlohmann::ordered_json j = parallel_plan_to_json(*plan);
  EXPECT_EQ(j["ranks"][1]["layer_begin"], 20u);
  EXPECT_EQ(j["ranks"][1]["layer_end"], 40u);
  EXPECT_EQ(j["ranks"][1]["kv_bytes_total"], 671088640u);
}

}  // namespace
}  // namespace memfit
