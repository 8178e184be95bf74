// Fixed-point scaling of byte counts: rounding directions and the 64-bit edge.
#include <gtest/gtest.h>

#include <cstdint>

#include "engines/shared/fixed_point.h"

namespace memfit {
namespace {

TEST(FixedPoint, MulDivRoundsUpWithoutIntermediateOverflow) {
  // 10 x 3 / 4 = 7.5 -> 8; 12 x 3 / 4 = 9 exactly.
  EXPECT_EQ(mul_div_ceil(10, 3, 4), 8u);
  EXPECT_EQ(mul_div_ceil(12, 3, 4), 9u);
  // 2^63 x 4 / 8 = 2^62: the product 2^65 overflows 64 bits, the answer does not.
  EXPECT_EQ(mul_div_ceil(uint64_t{1} << 63, 4, 8), uint64_t{1} << 62);
  // 2^63 x 4 / 2 = 2^64: one past the largest uint64_t.
  EXPECT_EQ(mul_div_ceil(uint64_t{1} << 63, 4, 2), std::nullopt);
}

TEST(FixedPoint, MulDivFloorRoundsDownWithoutIntermediateOverflow) {
  // 10 x 3 / 4 = 7.5 -> 7; 12 x 3 / 4 = 9 exactly.
  EXPECT_EQ(mul_div_floor(10, 3, 4), 7u);
  EXPECT_EQ(mul_div_floor(12, 3, 4), 9u);
  // (2^63 + 1) x 4 / 8 = 2^62 + 0.5 -> 2^62: the product 2^65 + 4 overflows 64 bits, the answer does not.
  EXPECT_EQ(mul_div_floor((uint64_t{1} << 63) + 1, 4, 8), uint64_t{1} << 62);
  // 2^63 x 4 / 2 = 2^64: one past the largest uint64_t.
  EXPECT_EQ(mul_div_floor(uint64_t{1} << 63, 4, 2), std::nullopt);
}

TEST(FixedPoint, ScalingRoundsUp) {
  // 1.2 x 10 = 12 exactly; 1.2 x 11 = 13.2 -> 14; 0.2 x 1 = 0.2 -> 1.
  EXPECT_EQ(scale_micros_rounding_up(10, 1'200'000), 12u);
  EXPECT_EQ(scale_micros_rounding_up(11, 1'200'000), 14u);
  EXPECT_EQ(scale_micros_rounding_up(1, 200'000), 1u);
  EXPECT_EQ(scale_micros_rounding_up(0, 200'000), 0u);
  // 2^63 x 2.0 = 2^64: one past the largest uint64_t.
  EXPECT_EQ(scale_micros_rounding_up(uint64_t{1} << 63, 2'000'000), std::nullopt);
  // (2^63 - 1) x 2.0 = 2^64 - 2 fits; the 128-bit product never wraps.
  EXPECT_EQ(scale_micros_rounding_up((uint64_t{1} << 63) - 1, 2'000'000), UINT64_MAX - 1);
}

TEST(FixedPoint, UnscalingRoundsDownAndInvertsScaling) {
  // 12 / 1.2 = 10; 13 / 1.2 = 10.83 -> 10; 10 x 1.2 = 12 <= 13, 11 x 1.2 = 13.2 -> 14 > 13.
  EXPECT_EQ(unscale_micros_rounding_down(12, 1'200'000), 10u);
  EXPECT_EQ(unscale_micros_rounding_down(13, 1'200'000), 10u);
  EXPECT_EQ(unscale_micros_rounding_down(UINT64_MAX, 1'000'000), UINT64_MAX);
  // 16 GiB / 1.2 = 17179869184 / 1.2 = 14316557653.33 -> 14316557653.
  EXPECT_EQ(unscale_micros_rounding_down(17179869184u, 1'200'000), 14316557653u);
}

}  // namespace
}  // namespace memfit
