// mlxcel_serve_plan_to_json() and render_mlxcel_serve_plan_text(): the serve preflight's
// plan, filled by hand and once planned by plan_mlxcel_serve() for Qwen3-14B.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memfit/mlxcel_report.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using ::memfit::testing::kMiB;
using ::memfit::testing::kGiB;

// 4 slots of 2048 tokens, a 6 GiB paged KV budget in 32-token blocks of
// 32 x 131,072 B = 4 MiB: (6,442,450,944 - 17,040,384 workspace) / 4,194,304
// = 1531.9 -> 1531 blocks; a 1 GiB prompt cache.
MlxcelServePlan hand_plan() {
  MlxcelServePlan p;
  p.slots.active_slots = 4;
  p.slots.effective_context = 2048;
  p.kv_cache_budget_bytes = 6 * kGiB;
  p.kv_block_size = 32;
  p.kv_blocks = 1531;
  p.per_slot_overhead_bytes = 17040384;
  p.prompt_cache_capacity_bytes = kGiB;
  return p;
}

TEST(MlxcelServeReport, TextOfAPlanWithABudget) {
  EXPECT_EQ(render_mlxcel_serve_plan_text(hand_plan()),
            "\nServe: 4 active slots x 2048 tokens per slot\n"
            "  paged KV budget        6.00 GiB (6442450944 bytes): 1531 blocks of 32 tokens\n"
            "  decode workspace       16.3 MiB (taken from the KV budget)\n"  // 16.25 MiB
            "  prompt cache capacity  1.00 GiB\n");
}

TEST(MlxcelServeReport, TextWithoutABudgetBlocksOrWorkspace) {
  MlxcelServePlan p = hand_plan();
  p.kv_cache_budget_bytes.reset();  // --kv-cache-budget none
  p.kv_blocks.reset();
  p.per_slot_overhead_bytes.reset();  // not a paged family
  p.prompt_cache_capacity_bytes = 0;  // the estimate does not fit
  EXPECT_EQ(render_mlxcel_serve_plan_text(p),
            "\nServe: 4 active slots x 2048 tokens per slot\n"
            "  paged KV budget        none\n"
            "  prompt cache capacity  0 B\n");
  // A budget but no per-token KV (an SSM): no blocks.
  p.kv_cache_budget_bytes = 512 * kMiB;
  EXPECT_THAT(render_mlxcel_serve_plan_text(p),
              HasSubstr("\n  paged KV budget        512.0 MiB (536870912 bytes)\n"));
  // A zero budget is a budget of 0 B, not "none".
  p.kv_cache_budget_bytes = 0;
  p.kv_blocks = 0;
  EXPECT_THAT(render_mlxcel_serve_plan_text(p),
              HasSubstr("\n  paged KV budget        0 B (0 bytes): 0 blocks of 32 tokens\n"));
}

TEST(MlxcelServeReport, TextFollowsTheSlots) {
  MlxcelServePlan p = hand_plan();
  p.slots.active_slots = 1;
  p.slots.effective_context = 8192;
  p.kv_block_size = 16;
  EXPECT_THAT(render_mlxcel_serve_plan_text(p), HasSubstr("\nServe: 1 active slots x 8192 tokens per slot\n"));
  EXPECT_THAT(render_mlxcel_serve_plan_text(p), HasSubstr(": 1531 blocks of 16 tokens\n"));
}

TEST(MlxcelServeReport, JsonOfAPlanWithABudget) {
  EXPECT_EQ(mlxcel_serve_plan_to_json(hand_plan()).dump(),
            R"({"active_slots":4,"effective_context":2048,"kv_cache_budget_bytes":6442450944,)"
            R"("kv_block_size":32,"kv_blocks":1531,"per_slot_overhead_bytes":17040384,)"
            R"("prompt_cache_capacity_bytes":1073741824})");
}

TEST(MlxcelServeReport, JsonNullsWhatThePlanLacks) {
  MlxcelServePlan p = hand_plan();
  p.kv_cache_budget_bytes.reset();
  p.kv_blocks.reset();
  p.per_slot_overhead_bytes.reset();
  p.prompt_cache_capacity_bytes = 0;
  EXPECT_EQ(mlxcel_serve_plan_to_json(p).dump(),
            R"({"active_slots":4,"effective_context":2048,"kv_cache_budget_bytes":null,)"
            R"("kv_block_size":32,"kv_blocks":null,"per_slot_overhead_bytes":null,)"
            R"("prompt_cache_capacity_bytes":0})");
}

TEST(MlxcelServeReport, PlannedForQwen3_14BOnSixteenGiB) {
  // ctx 8192 over 4 slots: 2048 tokens each; the estimate at 2048 x batch 4:
  //   KV 163,840 B/token x 2048 x 4 = 1,342,177,280
  //   allocator 0.2 x (8,307,783,680 + 1,342,177,280) = 1,929,992,192
  //   activation 2.0 x 4 x 2048 x (5120 + 17408) x 2 = 738,197,504
  //              + logits 4 x 151,936 x 2 = 1,215,488 -> 739,412,992
  //   total 8,307,783,680 + 1,342,177,280 + 1,929,992,192 + 739,412,992 = 12,319,366,144
  // Auto KV budget: (17,179,869,184 - 739,412,992) / 1.2 - 8,307,783,680
  //   = 13,700,380,160 - 8,307,783,680 = 5,392,596,480 (5.02 GiB)
  // Workspace at batch 4: 2 x (128 + 4) x 128 x 129 x 4 = 17,436,672 (16.6 MiB)
  // Blocks: (5,392,596,480 - 17,436,672) / (32 x 163,840) = 1025.2 -> 1025
  // Prompt cache: min(17,179,869,184 - 12,319,366,144, 1,342,177,280) = 1.25 GiB
  Model m = testing::corpus_model("mlx/Qwen3-14B-MLX-4bit", 8307783680ull);
  MlxcelServeOptions options;
  options.ctx_size = 8192;
  options.n_parallel = 4;
  Result<MlxcelServeSlots> slots = mlxcel_serve_slots(options);
  ASSERT_TRUE(slots.ok());
  MlxcelInputs inputs;
  inputs.max_tokens = slots->effective_context;
  inputs.batch = slots->active_slots;
  const MemoryBudget budget{16 * kGiB, 16 * kGiB, BudgetSource::kExplicit};
  Result<MlxcelEstimate> e = estimate_mlxcel(m, inputs, MlxcelSettings{}, Platform{}, budget);
  ASSERT_TRUE(e.ok()) << e.error().message();
  ASSERT_EQ(e->total_bytes, 12319366144u);
  const MlxcelServePlan plan = plan_mlxcel_serve(options, *slots, m, *e, MlxcelSettings{});
  EXPECT_EQ(render_mlxcel_serve_plan_text(plan),
            "\nServe: 4 active slots x 2048 tokens per slot\n"
            "  paged KV budget        5.02 GiB (5392596480 bytes): 1025 blocks of 32 tokens\n"
            "  decode workspace       16.6 MiB (taken from the KV budget)\n"
            "  prompt cache capacity  1.25 GiB\n");
  EXPECT_EQ(mlxcel_serve_plan_to_json(plan).dump(),
            R"({"active_slots":4,"effective_context":2048,"kv_cache_budget_bytes":5392596480,)"
            R"("kv_block_size":32,"kv_blocks":1025,"per_slot_overhead_bytes":17436672,)"
            R"("prompt_cache_capacity_bytes":1342177280})");
  // Halving the budget: 8 GiB is under the total; no prompt cache, and the
  // KV budget floor((8,589,934,592 - 739,412,992) / 1.2) = 6,542,101,333
  // is under the weights: 0.
  const MemoryBudget half{8 * kGiB, 8 * kGiB, BudgetSource::kExplicit};
  Result<MlxcelEstimate> over = estimate_mlxcel(m, inputs, MlxcelSettings{}, Platform{}, half);
  ASSERT_TRUE(over.ok());
  const MlxcelServePlan none = plan_mlxcel_serve(options, *slots, m, *over, MlxcelSettings{});
  EXPECT_THAT(render_mlxcel_serve_plan_text(none),
              HasSubstr("\n  paged KV budget        0 B (0 bytes): 0 blocks of 32 tokens\n"));
  EXPECT_THAT(render_mlxcel_serve_plan_text(none), HasSubstr("\n  prompt cache capacity  0 B\n"));
  EXPECT_THAT(render_mlxcel_serve_plan_text(none), Not(HasSubstr("GiB (")));
}

}  // namespace
}  // namespace memfit
