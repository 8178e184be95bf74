// The macOS formulas (docs/host.md, "macOS": available now, the reserve),
// away from the syscalls that feed them.
#include "host/unified_memory.h"

#include <gtest/gtest.h>

namespace memfit::host {
namespace {

TEST(HostUnifiedMemory, AvailableNowFollowsTheMacosFormula) {
  VmPageCounts pages;
  pages.free = 100000;
  pages.speculative = 20000;
  pages.purgeable = 5000;
  pages.inactive = 300000;
  pages.file_backed = 150000;
  // free - speculative = 80000; min(inactive + speculative = 320000,
  // file_backed = 150000) = 150000; 80000 + 5000 + 150000 = 235000 pages
  // x 16384 bytes = 3850240000.
  EXPECT_EQ(unified_available_now_bytes(pages, 16384), 3850240000u);
}

TEST(HostUnifiedMemory, FileBackedBeyondInactiveIsNotCounted) {
  VmPageCounts pages;
  pages.free = 100000;
  pages.speculative = 20000;
  pages.inactive = 10000;
  pages.file_backed = 500000;  // mostly active file pages
  // 80000 + 0 + min(30000, 500000) = 110000 pages x 4096 = 450560000.
  EXPECT_EQ(unified_available_now_bytes(pages, 4096), 450560000u);
}

TEST(HostUnifiedMemory, SpeculativeAboveFreeCountsNoFreePages) {
  VmPageCounts pages;
  pages.free = 10;
  pages.speculative = 20;  // counters read at different instants
  pages.purgeable = 3;
  // free part 0; min(0 + 20, 0 file-backed) = 0; 3 purgeable x 4096.
  EXPECT_EQ(unified_available_now_bytes(pages, 4096), 12288u);
}

TEST(HostUnifiedMemory, AvailableNowSaturates) {
  VmPageCounts pages;
  pages.free = UINT64_MAX;
  pages.purgeable = UINT64_MAX;
  EXPECT_EQ(unified_available_now_bytes(pages, 16384), UINT64_MAX);
}

TEST(HostUnifiedMemory, ReserveIsSevenGibOnSmallMacs) {
  EXPECT_EQ(unified_memory_reserve_bytes(0), 7516192768u);            // 7 GiB
  EXPECT_EQ(unified_memory_reserve_bytes(17179869184), 7516192768u);  // 16 GiB: 15% = 2.4 GiB
  EXPECT_EQ(unified_memory_reserve_bytes(38654705664), 7516192768u);  // 36 GiB: 15% = 5.4 GiB
}

TEST(HostUnifiedMemory, ReserveIsFifteenPercentOnLargeMacs) {
  // 64 GiB = 68719476736; x 0.15 = 10307921510.4, rounded up.
  EXPECT_EQ(unified_memory_reserve_bytes(68719476736), 10307921511u);
  // 128 GiB = 137438953472; x 0.15 = 20615843020.8, rounded up.
  EXPECT_EQ(unified_memory_reserve_bytes(137438953472), 20615843021u);
  // 200 GB (decimal) = 200000000000; x 0.15 = 30000000000 exactly.
  EXPECT_EQ(unified_memory_reserve_bytes(200000000000), 30000000000u);
}

TEST(HostUnifiedMemory, ReserveCrossesOverWhereFifteenPercentPassesSevenGib) {
  // 7 GiB = 7516192768; / 0.15 = 50107951786.67. Just below, 15% is
  // 7516192767.9 -> 7516192768 (a tie with 7 GiB); just above,
  // 50107951787 x 0.15 = 7516192768.05 -> 7516192769.
  EXPECT_EQ(unified_memory_reserve_bytes(50107951786), 7516192768u);
  EXPECT_EQ(unified_memory_reserve_bytes(50107951787), 7516192769u);
}

TEST(HostUnifiedMemory, ReserveDoesNotOverflow) {
  // UINT64_MAX = 18446744073709551615; x 0.15 = 2767011611056432742.25,
  // rounded up.
  EXPECT_EQ(unified_memory_reserve_bytes(UINT64_MAX), 2767011611056432743u);
}

}  // namespace
}  // namespace memfit::host
