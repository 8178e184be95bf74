// The plot's axes: byte ticks in GiB/MiB steps of 1, 2 or 5, power-of-two
// context ticks, their labels, and the mapping to pixels.
#include <gtest/gtest.h>

#include "engines/shared/plot/axes.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

TEST(PlotAxes, ByteTicksStepByOneTwoOrFiveUnits) {
  // 20 GiB: 1 GiB needs 20 steps, 2 GiB 10, 5 GiB 4 (<= 5).
  ByteTicks t = byte_ticks(20 * kGiB);
  EXPECT_EQ(t.unit, "GiB");
  EXPECT_EQ(t.step_bytes, 5 * kGiB);
  EXPECT_EQ(t.top_bytes, 20 * kGiB);
  // 21 GiB: still 5 GiB steps, 5 of them, so the top is 25 GiB.
  EXPECT_EQ(byte_ticks(21 * kGiB).top_bytes, 25 * kGiB);
  // 26 GiB: 5 GiB would need 6 steps; 10 GiB needs 3.
  t = byte_ticks(26 * kGiB);
  EXPECT_EQ(t.step_bytes, 10 * kGiB);
  EXPECT_EQ(t.top_bytes, 30 * kGiB);
}

TEST(PlotAxes, SmallRangesTickInMiB) {
  // 1.5 GiB = 1,536 MiB: 500 MiB steps, 4 of them.
  ByteTicks t = byte_ticks(1536 * kMiB);
  EXPECT_EQ(t.unit, "MiB");
  EXPECT_EQ(t.step_bytes, 500 * kMiB);
  EXPECT_EQ(t.top_bytes, 2000 * kMiB);
  EXPECT_EQ(byte_tick_label(1000 * kMiB, t), "1000 MiB");
}

TEST(PlotAxes, ByteTicksOfNothingOrEverythingStillEnd) {
  ByteTicks zero = byte_ticks(0);
  EXPECT_EQ(zero.step_bytes, 1u);
  EXPECT_EQ(zero.top_bytes, 1u);
  ByteTicks huge = byte_ticks(UINT64_MAX);
  EXPECT_GT(huge.step_bytes, 0u);
  EXPECT_EQ(huge.top_bytes, UINT64_MAX);  // saturated, not wrapped
}

TEST(PlotAxes, ByteTickLabels) {
  ByteTicks t = byte_ticks(20 * kGiB);
  EXPECT_EQ(byte_tick_label(0, t), "0");
  EXPECT_EQ(byte_tick_label(15 * kGiB, t), "15 GiB");
  EXPECT_EQ(byte_tick_label(5 * kGiB / 2, t), "2.5 GiB");
}

TEST(PlotAxes, ContextTicksArePowersOfTwoThinnedFromTheTop) {
  EXPECT_EQ(context_ticks(256, 131072, 20),
            (std::vector<uint64_t>{256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}));
  // Ten powers, five labels: every second one, keeping 128K.
  EXPECT_EQ(context_ticks(256, 131072, 5), (std::vector<uint64_t>{512, 2048, 8192, 32768, 131072}));
  EXPECT_EQ(context_ticks(300, 40960, 20),
            (std::vector<uint64_t>{512, 1024, 2048, 4096, 8192, 16384, 32768}));
}

TEST(PlotAxes, ContextLabelsUseBinaryThousands) {
  EXPECT_EQ(context_tick_label(512), "512");
  EXPECT_EQ(context_tick_label(4096), "4K");
  EXPECT_EQ(context_tick_label(131072), "128K");
  EXPECT_EQ(context_tick_label(1ull << 20), "1M");
  EXPECT_EQ(context_tick_label(1536), "1536");
}

TEST(PlotAxes, GroupDigitsInThrees) {
  EXPECT_EQ(group_digits(0), "0");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(1000), "1,000");
  EXPECT_EQ(group_digits(35584), "35,584");
  EXPECT_EQ(group_digits(17179869184ull), "17,179,869,184");
}

TEST(PlotAxes, AxesMapEndsToTheirPixels) {
  ContextAxis x(256, 131072, 100, 1000);
  EXPECT_DOUBLE_EQ(x.x(256), 100);
  EXPECT_DOUBLE_EQ(x.x(131072), 1000);
  EXPECT_DOUBLE_EQ(x.x(2048), 400);  // 3 of 9 doublings
  ByteAxis y(16 * kGiB, 300, 100);
  EXPECT_DOUBLE_EQ(y.y(0), 300);
  EXPECT_DOUBLE_EQ(y.y(16 * kGiB), 100);
  EXPECT_DOUBLE_EQ(y.y(8 * kGiB), 200);
}

}  // namespace
}  // namespace memfit
