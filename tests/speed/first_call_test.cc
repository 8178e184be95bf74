// A process's first call (memfit/speed.h: first_call_seconds,
// first_call_prefill), worked by hand.
#include <gtest/gtest.h>

#include "memfit/speed.h"

namespace memfit {
namespace {

TEST(FirstCall, OnlyMlxLmHasAFirstCallCost) {
  const std::optional<FirstCallSeconds> mlx = first_call_seconds("mlx-lm");
  ASSERT_TRUE(mlx.has_value());
  EXPECT_DOUBLE_EQ(mlx->low, 0.2);
  EXPECT_DOUBLE_EQ(mlx->median, 0.35);
  EXPECT_DOUBLE_EQ(mlx->high, 0.5);
  EXPECT_FALSE(first_call_seconds("llamacpp").has_value());
  EXPECT_FALSE(first_call_seconds("vllm").has_value());
}

TEST(FirstCall, TheCostIsAddedToThePromptsTimeTheBandEachWay) {
  // 50 tokens at 100 / 80 / 120 tok/s warm (median / low / high) take
  // 0.5, 0.625 and 0.41667 s; with the cost 0.35 / 0.5 / 0.2 s:
  // 50 / 0.85 = 58.8235, 50 / 1.125 = 44.4444, 50 / 0.61667 = 81.0811.
  SpeedRange warm;
  warm.bound = 400;
  warm.modelled = 100;
  warm.median = 100;
  warm.low = 80;
  warm.high = 120;
  const SpeedRange cold = first_call_prefill(warm, 50, kMlxLmFirstCall);
  EXPECT_NEAR(cold.median, 58.8235, 1e-4);
  EXPECT_NEAR(cold.modelled, 58.8235, 1e-4);
  EXPECT_NEAR(cold.low, 44.4444, 1e-4);
  EXPECT_NEAR(cold.high, 81.0811, 1e-4);
  EXPECT_DOUBLE_EQ(cold.bound, 400);  // the bound is the warm device's
}

TEST(FirstCall, ALongPromptHidesTheCost) {
  // 20,000 tokens at 100 tok/s take 200 s; 0.35 s more: 20,000 / 200.35 =
  // 99.8253 tok/s, 0.17 % under the warm rate.
  SpeedRange warm;
  warm.modelled = warm.median = warm.low = warm.high = 100;
  EXPECT_NEAR(first_call_prefill(warm, 20'000, kMlxLmFirstCall).median, 99.8253, 1e-4);
}

TEST(FirstCall, NoPromptOrNoRateLeavesTheRangeAlone) {
  SpeedRange warm;
  warm.modelled = warm.median = warm.low = warm.high = 100;
  EXPECT_DOUBLE_EQ(first_call_prefill(warm, 0, kMlxLmFirstCall).median, 100);
  warm.low = 0;
  EXPECT_DOUBLE_EQ(first_call_prefill(warm, 50, kMlxLmFirstCall).median, 100);
}

}  // namespace
}  // namespace memfit
