// The memory bandwidth measurement (memfit/memory_bandwidth.h) on a fake
// clock: the arithmetic and that every word is read, not the host's speed.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "memfit/memory_bandwidth.h"

namespace memfit {
namespace {

// Each reading is `step` seconds after the one before.
class FakeSecondsClock final : public SecondsClock {
 public:
  explicit FakeSecondsClock(double step) : step_(step) {}
  double now_seconds() override { return now_ += step_; }
  int readings() const { return static_cast<int>(now_ / step_); }

 private:
  double step_;
  double now_ = 0;
};

TEST(MemoryBandwidth, BytesOverTheClocksSeconds) {
  // 1 Mi words (8 MiB = 8,388,608 bytes) read 4 times: 33,554,432 bytes in
  // the 0.5 s between the clock's two readings: 0.067108864 GB/s.
  std::vector<uint64_t> buffer(1 << 20);
  std::iota(buffer.begin(), buffer.end(), 0);
  FakeSecondsClock clock(0.5);
  Result<BandwidthMeasurement> m = measure_read_bandwidth(buffer, 4, 3, clock);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->buffer_bytes, 8'388'608u);
  EXPECT_EQ(m->bytes_read, 33'554'432u);
  EXPECT_DOUBLE_EQ(m->seconds, 0.5);
  EXPECT_DOUBLE_EQ(m->gb_per_s, 0.067108864);
  EXPECT_EQ(m->threads, 3u);
  EXPECT_EQ(clock.readings(), 2);
  // Every word read on every pass: 4 x (0 + 1 + ... + 2^20 - 1) = 4 x
  // 2^20 x (2^20 - 1) / 2 = 2,199,021,158,400.
  EXPECT_EQ(m->checksum, 2'199'021'158'400u);
}

TEST(MemoryBandwidth, MoreThreadsThanWordsReadEachWordOnce) {
  const std::vector<uint64_t> buffer = {5, 7};
  FakeSecondsClock clock(1);
  Result<BandwidthMeasurement> m = measure_read_bandwidth(buffer, 1, 8, clock);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->threads, 2u);
  EXPECT_EQ(m->checksum, 12u);
}

TEST(MemoryBandwidth, RefusesNothingToMeasure) {
  FakeSecondsClock clock(1);
  Result<BandwidthMeasurement> empty = measure_read_bandwidth({}, 4, 1, clock);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(), "memory bandwidth: an empty buffer, no pass or no thread");
  FakeSecondsClock stopped(0);
  const std::vector<uint64_t> buffer = {1};
  Result<BandwidthMeasurement> frozen = measure_read_bandwidth(buffer, 1, 1, stopped);
  ASSERT_FALSE(frozen.ok());
  EXPECT_EQ(frozen.error().message(), "memory bandwidth: the clock did not advance");
}

}  // namespace
}  // namespace memfit
