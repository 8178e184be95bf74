// Efficiency bands (memfit/speed.h): median and 10th-90th percentile per
// backend and family, and the fall-backs for small groups.
#include <gtest/gtest.h>

#include "memfit/speed.h"

namespace memfit {
namespace {

TEST(SpeedEfficiency, QuantFamilies) {
  EXPECT_EQ(quant_family("F16"), "16-bit");
  EXPECT_EQ(quant_family("bf16"), "16-bit");
  EXPECT_EQ(quant_family("Q8_0"), "8-bit");
  EXPECT_EQ(quant_family("8bit"), "8-bit");
  EXPECT_EQ(quant_family("Q4_K_M"), "under 8-bit");
  EXPECT_EQ(quant_family("4bit"), "under 8-bit");
  EXPECT_EQ(quant_family("MXFP4 (llama-bench names it F16)"), "under 8-bit");
}

TEST(SpeedEfficiency, BandIsMedianAndTenthToNinetiethPercentile) {
  // Five CUDA runs 0.5, 0.6, 0.7, 0.8, 0.9: median 0.7; the 10th
  // percentile sits 0.4 of the way from 0.5 to 0.6 (0.1 x 4 = 0.4): 0.54;
  // the 90th at 3.6: 0.8 + 0.6 x 0.1 = 0.86.
  const std::vector<EfficiencySample> samples = {{"cuda", "under 8-bit", 0.9},
                                                 {"cuda", "under 8-bit", 0.5},
                                                 {"cuda", "under 8-bit", 0.7},
                                                 {"cuda", "under 8-bit", 0.6},
                                                 {"cuda", "under 8-bit", 0.8}};
  const EfficiencyTable table = EfficiencyTable::fit(samples);
  std::optional<EfficiencyBand> band = table.find("cuda", "under 8-bit");
  ASSERT_TRUE(band.has_value());
  EXPECT_DOUBLE_EQ(band->median, 0.7);
  EXPECT_NEAR(band->low, 0.54, 1e-12);
  EXPECT_NEAR(band->high, 0.86, 1e-12);
  EXPECT_EQ(band->runs, 5u);
  EXPECT_EQ(band->basis, "backend and family");
}

TEST(SpeedEfficiency, SmallGroupFallsBackToItsBackendThenToAll) {
  // CUDA: three 4-bit runs (0.8 each) and one 16-bit run (0.4): the 16-bit
  // group has 1 run, under kMinEfficiencyRuns, so it takes CUDA's band
  // over all four runs, median (0.8 + 0.8) / 2 = 0.8. Metal has 1 run:
  // Metal's own band is too small too, so the band over all five runs
  // (0.4, 0.5, 0.8, 0.8, 0.8), median 0.8, applies.
  const std::vector<EfficiencySample> samples = {{"cuda", "under 8-bit", 0.8},
                                                 {"cuda", "under 8-bit", 0.8},
                                                 {"cuda", "under 8-bit", 0.8},
                                                 {"cuda", "16-bit", 0.4},
                                                 {"metal", "16-bit", 0.5}};
  const EfficiencyTable table = EfficiencyTable::fit(samples);
  std::optional<EfficiencyBand> cuda16 = table.find("cuda", "16-bit");
  ASSERT_TRUE(cuda16.has_value());
  EXPECT_EQ(cuda16->basis, "backend, all families");
  EXPECT_EQ(cuda16->runs, 4u);
  EXPECT_DOUBLE_EQ(cuda16->median, 0.8);
  std::optional<EfficiencyBand> metal = table.find("metal", "16-bit");
  ASSERT_TRUE(metal.has_value());
  EXPECT_EQ(metal->basis, "all backends");
  EXPECT_EQ(metal->runs, 5u);
  EXPECT_DOUBLE_EQ(metal->median, 0.8);
  EXPECT_FALSE(EfficiencyTable::fit({}).find("cuda", "16-bit").has_value());
}

TEST(SpeedEfficiency, ApplyScalesTheBound) {
  // A 200 tokens/s bound at a band of 0.54 / 0.7 / 0.86: 108 / 140 / 172.
  const EfficiencyBand band{"cuda", "under 8-bit", 0.7, 0.54, 0.86, 5, "backend and family"};
  const SpeedRange range = apply_efficiency(200, band);
  EXPECT_DOUBLE_EQ(range.median, 140);
  EXPECT_DOUBLE_EQ(range.low, 108);
  EXPECT_DOUBLE_EQ(range.high, 172);
}

}  // namespace
}  // namespace memfit
