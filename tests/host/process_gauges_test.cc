// Process gauges from /proc/self/status, fake and real.
#include "memfit/process_gauges.h"

#include <gtest/gtest.h>

#include "support/fake_sysroot.h"

namespace memfit {
namespace {

#ifdef __linux__  // why: only Linux reads the gauges from files under a sysroot
TEST(HostProcessGauges, ReadsProcSelfStatusUnderTheSysroot) {
  testing::FakeSysroot root;
  root.write("/proc/self/status",
             "Name:\tmemfit\nVmLck:\t       8 kB\nVmRSS:\t   65536 kB\nVmSwap:\t       0 kB\n");
  ProcessGauges gauges = read_process_gauges(root.path());
  EXPECT_EQ(gauges.footprint_bytes, std::optional<uint64_t>(67108864));  // 65536 x 1024
  EXPECT_EQ(gauges.swapped_bytes, std::optional<uint64_t>(0));
  EXPECT_EQ(gauges.wired_bytes, std::optional<uint64_t>(8192));
}

TEST(HostProcessGauges, MissingStatusLeavesEveryGaugeUnknown) {
  testing::FakeSysroot root;
  ProcessGauges gauges = read_process_gauges(root.path());
  EXPECT_FALSE(gauges.footprint_bytes.has_value());
  EXPECT_FALSE(gauges.swapped_bytes.has_value());
  EXPECT_FALSE(gauges.wired_bytes.has_value());
}

TEST(HostProcessGauges, RealProcessHasAFootprint) {
  // This test binary maps at least its own code and GoogleTest's: more
  // than 1 MiB resident, and fewer locked bytes than resident ones.
  ProcessGauges gauges = read_process_gauges();
  ASSERT_TRUE(gauges.footprint_bytes.has_value());
  EXPECT_GT(*gauges.footprint_bytes, 1u << 20);
  ASSERT_TRUE(gauges.wired_bytes.has_value());
  EXPECT_LT(*gauges.wired_bytes, *gauges.footprint_bytes);
}
#endif

}  // namespace
}  // namespace memfit
