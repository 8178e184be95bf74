// The mlxcel command hooks' options (engines/mlxcel/commands.h): memfit
// fit's solve names, preflight serve's server flags, recommend-quant's
// candidates and fit's answer on the bundled example.
//
// The example (Qwen3-14B-MLX-4bit) at a 16 GiB budget (solver_test.cc):
//   total = 1.2 x (8,307,783,680 + 163,840 x R) + 184,853,248 with R the
//   context rounded up to 256: fp16's largest R is 35,584, int8's (half
//   the rate) 71,424.
#include <gtest/gtest.h>

#include <string>

#include "engines/mlxcel/commands.h"
#include "support/command_hooks.h"
#include "support/paths.h"

namespace memfit::engines {
namespace {

using nlohmann::json;

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

TEST(MlxcelSolve, ItsNamesAndTheOtherEnginesSolves) {
  EXPECT_EQ(*parse_mlxcel_solve("max-tokens"), MlxcelSolveFor::kMaxTokens);
  EXPECT_EQ(*parse_mlxcel_solve("batch"), MlxcelSolveFor::kBatch);
  EXPECT_EQ(*parse_mlxcel_solve("slots"), MlxcelSolveFor::kSlots);
  EXPECT_EQ(parse_mlxcel_solve("max-num-seqs").error().message(),
            "solve: max-num-seqs is a vllm solve; mlxcel solves max-tokens, batch or slots");
  EXPECT_EQ(parse_mlxcel_solve("n-cpu-moe").error().message(),
            "solve: n-cpu-moe is a llamacpp solve; mlxcel solves max-tokens, batch or slots");
  EXPECT_EQ(parse_mlxcel_solve("everything").error().message(),
            "solve: 'everything': mlxcel solves max-tokens, batch or slots");
}

TEST(MlxcelServeOptions, NoneGivenAreTheServersDefaults) {
  Result<MlxcelServeOptions> o = mlxcel_serve_options(json::object());
  ASSERT_TRUE(o.ok()) << o.error().message();
  EXPECT_EQ(o->ctx_size, 0u);
  EXPECT_EQ(o->n_parallel, 4u);
  EXPECT_FALSE(o->max_batch_size);
  EXPECT_FALSE(o->no_batch);
  EXPECT_EQ(o->kv_budget, MlxcelServeOptions::KvBudget::kAuto);
  EXPECT_EQ(o->kv_block_size, 32u);
  // Context 0: 8,192 tokens for each of the 4 slots.
  Result<MlxcelServeSlots> slots = mlxcel_serve_slots(*o);
  EXPECT_EQ(slots->active_slots, 4u);
  EXPECT_EQ(slots->effective_context, 8192u);
}

TEST(MlxcelServeOptions, TheFlagsGiven) {
  Result<MlxcelServeOptions> o = mlxcel_serve_options(
      {{"ctx_size", 32768}, {"max_batch_size", 2}, {"kv_cache_budget", "4GiB"}, {"kv_block_size", 64}});
  ASSERT_TRUE(o.ok()) << o.error().message();
  EXPECT_EQ(o->kv_budget, MlxcelServeOptions::KvBudget::kBytes);
  EXPECT_EQ(o->kv_budget_bytes, 4294967296u);  // 4 x 1,073,741,824
  EXPECT_EQ(o->kv_block_size, 64u);
  // max_batch_size 2 wins over the 4 slots: 32,768 / 2 = 16,384 each.
  Result<MlxcelServeSlots> slots = mlxcel_serve_slots(*o);
  EXPECT_EQ(slots->active_slots, 2u);
  EXPECT_EQ(slots->effective_context, 16384u);
  // no_batch: one slot holding the whole 32,768.
  slots = mlxcel_serve_slots(*mlxcel_serve_options({{"ctx_size", 32768}, {"n_parallel", 8}, {"no_batch", true}}));
  EXPECT_EQ(slots->active_slots, 1u);
  EXPECT_EQ(slots->effective_context, 32768u);
  EXPECT_EQ(mlxcel_serve_options({{"kv_cache_budget", "none"}})->kv_budget,
            MlxcelServeOptions::KvBudget::kNone);
}

TEST(MlxcelServeOptions, Refused) {
  EXPECT_EQ(mlxcel_serve_options({{"kv_cache_budget", "lots"}}).error().message(),
            "kv_cache_budget: 'lots': expected auto, none or a size such as 8GiB");
  EXPECT_EQ(mlxcel_serve_options({{"kv_block_size", -1}}).error().message(),
            "kv_block_size: expected a non-negative integer, got -1");
  EXPECT_EQ(mlxcel_serve_options({{"no_batch", "yes"}}).error().message(),
            "no_batch: expected true or false, got \"yes\"");
}

// A hook's answer for the example at a 16 GiB budget.
class MlxcelHooks : public ::testing::Test {
 protected:
  void SetUp() override {
    request_.model = kExample;
    request_.memory_limit_bytes = 16ull << 30;
  }
  Result<CommandAnswer> ask(EngineCommand command, json options) {
    return testing::ask_hook(request_, command, options);
  }
  EstimateRequest request_;
};

TEST_F(MlxcelHooks, FitSolvesTheContextAtEachKvWidth) {
  Result<CommandAnswer> a = ask(EngineCommand::kFit, {{"solve", "max-tokens"}});
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["solve"], "max-tokens");
  EXPECT_EQ(a->json["value"], 35584);
  EXPECT_EQ(a->json["by_kv_mode"][1]["value"], 71424);
  EXPECT_EQ(a->text.substr(0, a->text.find("\n\n")),
            "Largest max-tokens that fits 16.00 GiB (explicit):\n  fp16   35584\n  int8   71424");
  // Without solve: max-tokens.
  EXPECT_EQ(ask(EngineCommand::kFit, json::object())->json["value"], 35584);
}

TEST_F(MlxcelHooks, FitAnswersForOneDevice) {
  request_.parallel.tensor_parallel = 2;
  EXPECT_EQ(ask(EngineCommand::kFit, {{"solve", "max-tokens"}}).error().message(),
            "fit solves for one device under mlxcel and llamacpp; a per-rank plan is inspect's");
}

TEST_F(MlxcelHooks, RecommendQuantsCandidatesAreItsOptions) {
  Result<CommandAnswer> a = ask(EngineCommand::kRecommendQuant, {{"group_size", 32}, {"bits", {8}}});
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["group_size"], 32);
  ASSERT_EQ(a->json["candidates"].size(), 2u);  // as-is, then int8
  EXPECT_EQ(a->json["candidates"][1]["mode"], "int8");
  EXPECT_EQ(ask(EngineCommand::kRecommendQuant, {{"bits", {17}}}).error().message(),
            "bits: expected an array of at most 64 integers from 1 to 16, got 17");
}

}  // namespace
}  // namespace memfit::engines
