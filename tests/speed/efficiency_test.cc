// Efficiency bands (memfit/speed.h): the fraction of the bound's rate and
// the cost a layer fitted per backend and family, the spread around them,
// and the fall-backs for small groups.
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
  EXPECT_EQ(quant_family("GPTQ-Int8"), "8-bit");
  EXPECT_EQ(quant_family("GPTQ-Int4"), "under 8-bit");
  EXPECT_EQ(quant_family("MXFP4 (llama-bench names it F16)"), "under 8-bit");
}

TEST(SpeedEfficiency, FitRecoversEfficiencyAndLayerOverhead) {
  // Runs made at efficiency 0.8 and 0.1 ms a layer: measured = bound
  // seconds / 0.8 + layers x 0.0001. (0.01 s, 32 layers): 0.0125 + 0.0032
  // = 0.0157; (0.02, 32): 0.0282; (0.01, 80): 0.0205; (0.04, 80): 0.058.
  // The fit is exact, so every run sits on the model: band 1 / 1 / 1.
  const std::vector<EfficiencySample> samples = {{"cuda", "16-bit", 0.01, 32, 0.0157},
                                                 {"cuda", "16-bit", 0.02, 32, 0.0282},
                                                 {"cuda", "16-bit", 0.01, 80, 0.0205},
                                                 {"cuda", "16-bit", 0.04, 80, 0.058}};
  std::optional<EfficiencyBand> band = EfficiencyTable::fit(samples).find("cuda", "16-bit");
  ASSERT_TRUE(band.has_value());
  EXPECT_NEAR(band->efficiency, 0.8, 1e-9);
  EXPECT_NEAR(band->layer_overhead_s, 0.0001, 1e-12);
  EXPECT_NEAR(band->median, 1.0, 1e-9);
  EXPECT_NEAR(band->low, 1.0, 1e-9);
  EXPECT_NEAR(band->high, 1.0, 1e-9);
  EXPECT_EQ(band->basis, "backend and family");
}

TEST(SpeedEfficiency, BandIsTheSpreadAroundTheModel) {
  // Five runs without layers reaching 0.5, 0.6, 0.7, 0.8, 0.9 of the bound
  // (measured = 1 / fraction for a bound of 1 s). No overhead to fit: a =
  // sum(f) / sum(f^2) = 3.5 / 2.55 = 1.372549, efficiency 2.55 / 3.5 =
  // 0.728571. Published / modelled = a x f: the median a x 0.7 =
  // 0.960784; the least a x 0.5 = 0.686275; the greatest a x 0.9 =
  // 1.235294.
  std::vector<EfficiencySample> samples;
  for (double f : {0.9, 0.5, 0.7, 0.6, 0.8}) samples.push_back({"metal", "under 8-bit", 1, 0, 1 / f});
  std::optional<EfficiencyBand> band = EfficiencyTable::fit(samples).find("metal", "under 8-bit");
  ASSERT_TRUE(band.has_value());
  EXPECT_NEAR(band->efficiency, 2.55 / 3.5, 1e-12);
  EXPECT_DOUBLE_EQ(band->layer_overhead_s, 0);
  EXPECT_NEAR(band->median, 0.7 * 3.5 / 2.55, 1e-12);
  EXPECT_NEAR(band->low, 0.5 * 3.5 / 2.55, 1e-12);
  EXPECT_NEAR(band->high, 0.9 * 3.5 / 2.55, 1e-12);
  EXPECT_EQ(band->runs, 5u);
}

TEST(SpeedEfficiency, EfficiencyIsAtMostOne) {
  // Four runs faster than their bound (0.9 s a token at a 1 s bound): the
  // free fit would be 1 / 0.9; it stops at 1, and the band carries the
  // rest: 1 / 0.9 = 1.111.
  std::vector<EfficiencySample> samples(4, EfficiencySample{"cuda", "8-bit", 1, 0, 0.9});
  std::optional<EfficiencyBand> band = EfficiencyTable::fit(samples).find("cuda", "8-bit");
  ASSERT_TRUE(band.has_value());
  EXPECT_DOUBLE_EQ(band->efficiency, 1);
  EXPECT_NEAR(band->median, 1 / 0.9, 1e-12);
}

TEST(SpeedEfficiency, SmallGroupFallsBackToItsBackendThenToAll) {
  // CUDA: four 4-bit runs and one 16-bit run; the 16-bit group has 1 run,
  // under kMinEfficiencyRuns (4), so it takes CUDA's band over all five.
  // Metal has 1 run: too few too, so the band over all six applies.
  const std::vector<EfficiencySample> samples = {
      {"cuda", "under 8-bit", 1, 0, 1.25}, {"cuda", "under 8-bit", 1, 0, 1.25},
      {"cuda", "under 8-bit", 1, 0, 1.25}, {"cuda", "under 8-bit", 1, 0, 1.25},
      {"cuda", "16-bit", 1, 0, 2.5},       {"metal", "16-bit", 1, 0, 2}};
  const EfficiencyTable table = EfficiencyTable::fit(samples);
  std::optional<EfficiencyBand> cuda16 = table.find("cuda", "16-bit");
  ASSERT_TRUE(cuda16.has_value());
  EXPECT_EQ(cuda16->basis, "backend, all families");
  EXPECT_EQ(cuda16->runs, 5u);
  EXPECT_EQ(cuda16->family, "16-bit");
  std::optional<EfficiencyBand> cuda4 = table.find("cuda", "under 8-bit");
  ASSERT_TRUE(cuda4.has_value());
  EXPECT_EQ(cuda4->basis, "backend and family");
  EXPECT_DOUBLE_EQ(cuda4->efficiency, 0.8);  // 1 s of bound in 1.25 s
  std::optional<EfficiencyBand> metal = table.find("metal", "16-bit");
  ASSERT_TRUE(metal.has_value());
  EXPECT_EQ(metal->basis, "all backends");
  EXPECT_EQ(metal->runs, 6u);
  EXPECT_FALSE(EfficiencyTable::fit({}).find("cuda", "16-bit").has_value());
}

TEST(SpeedEfficiency, ApplyModelsTheBoundThenScalesByTheBand) {
  // A 200 tokens/s bound (5 ms) at efficiency 0.8 is 6.25 ms, plus 32
  // layers x 0.1 ms: 9.45 ms, 105.820 tokens/s modelled; the band 0.95 /
  // 0.8 / 1.1 of it: 100.529 / 84.656 / 116.402.
  const EfficiencyBand band{"cuda", "under 8-bit", 0.8, 0.0001, 0.95, 0.8, 1.1, 5,
                            "backend and family"};
  const SpeedRange range = apply_efficiency(200, 32, band);
  EXPECT_NEAR(range.modelled, 1 / 0.00945, 1e-9);
  EXPECT_NEAR(range.median, 100.529, 0.001);
  EXPECT_NEAR(range.low, 84.656, 0.001);
  EXPECT_NEAR(range.high, 116.402, 0.001);
  EXPECT_DOUBLE_EQ(range.bound, 200);
}

}  // namespace
}  // namespace memfit
