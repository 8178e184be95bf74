// Linux RAM figures read from fake /proc and /sys trees on disk, through
// the same SysrootFiles reader the real query uses.
#include "host/linux_memory.h"

#include <gtest/gtest.h>

#include "host/host_files.h"
#include "support/fake_sysroot.h"

namespace memfit::host {
namespace {

using testing::FakeSysroot;
using testing::RecordingHostFiles;

// The machine of every test below: 16 GiB of RAM (16777216 kB), 12 GiB
// available (12582912 kB = 12884901888 bytes).
constexpr uint64_t kTotalKib = 16777216;
constexpr uint64_t kAvailableKib = 12582912;
constexpr uint64_t kTotalBytes = 17179869184;      // 16 GiB
constexpr uint64_t kAvailableBytes = 12884901888;  // 12 GiB
constexpr uint64_t kGiB = 1073741824;

RamReading read(const FakeSysroot& root) {
  SysrootFiles files(root.path());
  return read_linux_ram(files);
}

TEST(HostLinuxMemory, NoCgroupMeansMemAvailable) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  RamReading ram = read(root);
  EXPECT_EQ(ram.os, "linux");
  EXPECT_EQ(ram.ram_total_bytes, kTotalBytes);
  EXPECT_EQ(ram.available_now_bytes, kAvailableBytes);
  EXPECT_EQ(ram.ram_available_bytes, kAvailableBytes);
  EXPECT_EQ(ram.ram_budget_bytes, kAvailableBytes);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kMeminfoAvailable);
  EXPECT_EQ(ram.reserve_bytes, 0u);
  EXPECT_FALSE(ram.cgroup.has_value());
  EXPECT_TRUE(ram.warnings.empty());
}

TEST(HostLinuxMemory, MissingMemAvailableFallsBackToMemTotalWithAWarning) {
  FakeSysroot root;
  root.meminfo(kTotalKib, std::nullopt);
  RamReading ram = read(root);
  EXPECT_EQ(ram.available_now_bytes, kTotalBytes);
  EXPECT_EQ(ram.ram_budget_bytes, kTotalBytes);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kMeminfoTotal);
  ASSERT_EQ(ram.warnings.size(), 1u);
  EXPECT_EQ(ram.warnings[0],
            "/proc/meminfo: no MemAvailable (Linux before 3.14?); using MemTotal, which counts "
            "memory in use as available");
}

TEST(HostLinuxMemory, NoMeminfoIsZeroWithAWarning) {
  FakeSysroot root;
  RamReading ram = read(root);
  EXPECT_EQ(ram.ram_total_bytes, 0u);
  EXPECT_EQ(ram.ram_budget_bytes, 0u);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kUnavailable);
  ASSERT_EQ(ram.warnings.size(), 1u);
  EXPECT_EQ(ram.warnings[0], "/proc/meminfo: not found; host RAM is unknown");
}

TEST(HostLinuxMemory, V2NestedTakesTheTighterParent) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/kubepods/pod1/ctr");
  // Leaf: 8 GiB limit, 3 GiB charged of which 1 GiB inactive file:
  //   headroom 8 - (3 - 1) = 6 GiB.
  root.cgroup_v2_level("/kubepods/pod1/ctr", "8589934592", 3 * kGiB, 1 * kGiB);
  // Parent: 4 GiB limit, 3.5 GiB charged, 0.5 GiB inactive file:
  //   headroom 4 - (3.5 - 0.5) = 1 GiB, the tightest.
  root.cgroup_v2_level("/kubepods/pod1", "4294967296", 3758096384, 536870912);
  // Grandparent: no limit. The root has no memory.max at all.
  root.cgroup_v2_level("/kubepods", "max", 5 * kGiB, 0);
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->version, 2);
  EXPECT_EQ(ram.cgroup->limit_bytes, 4294967296u);
  EXPECT_EQ(ram.cgroup->usage_bytes, 3758096384u);
  EXPECT_EQ(ram.cgroup->inactive_file_bytes, 536870912u);
  EXPECT_EQ(ram.cgroup->path, "/kubepods/pod1");
  // min(12 GiB available, 1 GiB headroom) = 1 GiB.
  EXPECT_EQ(ram.ram_budget_bytes, kGiB);
  EXPECT_EQ(ram.ram_available_bytes, kGiB);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kCgroup);
  EXPECT_EQ(ram.available_now_bytes, kAvailableBytes);  // machine-wide, unclamped
  EXPECT_TRUE(ram.warnings.empty());
}

TEST(HostLinuxMemory, V2TightestIsLeastHeadroomNotLeastLimit) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/app/worker");
  // Leaf: 2 GiB limit, 0.5 GiB charged: headroom 1.5 GiB.
  root.cgroup_v2_level("/app/worker", "2147483648", 536870912, 0);
  // Parent: a larger 3 GiB limit, but a sibling brings its charge to
  // 2.5 GiB: headroom 0.5 GiB = 536870912, the tighter one.
  root.cgroup_v2_level("/app", "3221225472", 2684354560, 0);
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->path, "/app");
  EXPECT_EQ(ram.cgroup->limit_bytes, 3221225472u);
  EXPECT_EQ(ram.ram_budget_bytes, 536870912u);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kCgroup);
}

TEST(HostLinuxMemory, V2MaxEverywhereIsNoLimit) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/user.slice/session-2.scope");
  root.cgroup_v2_level("/user.slice/session-2.scope", "max", kGiB, 0);
  root.cgroup_v2_level("/user.slice", "max", 2 * kGiB, 0);
  RamReading ram = read(root);
  EXPECT_FALSE(ram.cgroup.has_value());
  EXPECT_EQ(ram.ram_budget_bytes, kAvailableBytes);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kMeminfoAvailable);
  EXPECT_TRUE(ram.warnings.empty());
}

TEST(HostLinuxMemory, V2LooseLimitIsReportedButMemAvailableBinds) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/big");
  // 64 GiB limit, 1 GiB charged: headroom 63 GiB > 12 GiB available.
  root.cgroup_v2_level("/big", "68719476736", kGiB, 0);
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->headroom_bytes(), 63 * kGiB);
  EXPECT_EQ(ram.ram_budget_bytes, kAvailableBytes);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kMeminfoAvailable);
}

TEST(HostLinuxMemory, V2ContainerRootWithCgroupNamespace) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/");
  // 1 GiB limit, 256 MiB charged, 64 MiB inactive file:
  //   1024 - (256 - 64) = 832 MiB = 872415232 bytes.
  root.cgroup_v2_level("/", "1073741824", 268435456, 67108864);
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->path, "/");
  EXPECT_EQ(ram.ram_budget_bytes, 872415232u);
}

TEST(HostLinuxMemory, V2UsagePastTheLimitIsZeroBudget) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/full");
  root.cgroup_v2_level("/full", "1073741824", 1610612736, 0);  // 1.5 GiB charged of 1 GiB
  RamReading ram = read(root);
  EXPECT_EQ(ram.ram_budget_bytes, 0u);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kCgroup);
}

TEST(HostLinuxMemory, V1UsesTotalInactiveFileAndIgnoresHugeLimits) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.write("/proc/self/cgroup", "9:name=systemd:/\n4:memory:/docker/ab12\n1:cpu:/\n0::/\n");
  // 2 GiB limit, 1.5 GiB usage, 0.5 GiB total_inactive_file (the local
  // inactive_file line says 12345 and must not be used):
  //   2 - (1.5 - 0.5) = 1 GiB.
  root.cgroup_v1_level("/docker/ab12", 2147483648, 1610612736, 536870912);
  // v1's "no limit" is a huge page-aligned number.
  root.cgroup_v1_level("/docker", 9223372036854771712u, 1610612736, 0);
  root.cgroup_v1_level("/", 9223372036854771712u, 4 * kGiB, 0);
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->version, 1);
  EXPECT_EQ(ram.cgroup->limit_bytes, 2147483648u);
  EXPECT_EQ(ram.cgroup->usage_bytes, 1610612736u);
  EXPECT_EQ(ram.cgroup->inactive_file_bytes, 536870912u);
  EXPECT_EQ(ram.cgroup->path, "/docker/ab12");
  EXPECT_EQ(ram.ram_budget_bytes, kGiB);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kCgroup);
}

TEST(HostLinuxMemory, V1ContainerSeesItsCgroupAtTheMountPoint) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.write("/proc/self/cgroup", "4:memory:/docker/ab12\n");
  root.write("/proc/self/mountinfo",
             "1203 1200 0:32 /docker/ab12 /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup "
             "rw,memory\n");
  // The mount point is the container's own cgroup: 1 GiB limit, 256 MiB
  // usage, nothing inactive: 1024 - 256 = 768 MiB = 805306368.
  root.cgroup_v1_level("/", 1073741824, 268435456, 0);
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->path, "/docker/ab12");
  EXPECT_EQ(ram.ram_budget_bytes, 805306368u);
}

TEST(HostLinuxMemory, CgroupBindsWhenMemAvailableIsMissing) {
  FakeSysroot root;
  root.meminfo(kTotalKib, std::nullopt);
  root.self_cgroup_v2("/c");
  root.cgroup_v2_level("/c", "2147483648", kGiB, 0);  // headroom 1 GiB < 16 GiB total
  RamReading ram = read(root);
  EXPECT_EQ(ram.available_now_bytes, kTotalBytes);
  EXPECT_EQ(ram.ram_budget_bytes, kGiB);
  EXPECT_EQ(ram.ram_budget_source, BudgetSource::kCgroup);
  EXPECT_EQ(ram.warnings.size(), 1u);  // the MemTotal fallback
}

TEST(HostLinuxMemory, MalformedLimitIsSkippedWithAWarning) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/odd/leaf");
  root.cgroup_v2_level("/odd/leaf", "lots", kGiB, 0);
  root.cgroup_v2_level("/odd", "3221225472", kGiB, 0);  // headroom 2 GiB
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->path, "/odd");
  EXPECT_EQ(ram.ram_budget_bytes, 2 * kGiB);
  ASSERT_EQ(ram.warnings.size(), 1u);
  EXPECT_EQ(ram.warnings[0],
            "cgroup: /sys/fs/cgroup/odd/leaf/memory.max: \"lots\" is not a number");
}

TEST(HostLinuxMemory, UnreadableUsageCountsAsEmptyWithAWarning) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/c");
  root.write("/sys/fs/cgroup/c/memory.max", "2147483648\n");
  RamReading ram = read(root);
  ASSERT_TRUE(ram.cgroup.has_value());
  EXPECT_EQ(ram.cgroup->usage_bytes, 0u);
  EXPECT_EQ(ram.ram_budget_bytes, 2147483648u);
  ASSERT_EQ(ram.warnings.size(), 1u);
  EXPECT_EQ(ram.warnings[0],
            "cgroup: /sys/fs/cgroup/c/memory.current unreadable; the limit is taken as the "
            "headroom");
}

TEST(HostLinuxMemory, PathEscapingTheTreeIsRefused) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/../../etc");
  RamReading ram = read(root);
  EXPECT_FALSE(ram.cgroup.has_value());
  ASSERT_EQ(ram.warnings.size(), 1u);
  EXPECT_EQ(ram.warnings[0],
            "cgroup: /proc/self/cgroup: path \"/../../etc\" is not a plain absolute path; cgroup "
            "limits ignored");
}

TEST(HostLinuxMemory, ReadsOnlyTheFilesOfThePathToTheRoot) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib);
  root.self_cgroup_v2("/a/b");
  root.cgroup_v2_level("/a/b", "max", kGiB, 0);
  SysrootFiles sysroot(root.path());
  RecordingHostFiles files(sysroot);
  (void)read_linux_ram(files);
  // Levels without a limit are not asked for usage; the root has no files.
  const std::vector<std::string> expected = {
      "/proc/meminfo",
      "/proc/self/cgroup",
      "/proc/self/mountinfo",
      "/sys/fs/cgroup/a/b/memory.max",
      "/sys/fs/cgroup/a/memory.max",
      "/sys/fs/cgroup/memory.max",
  };
  EXPECT_EQ(files.paths_read(), expected);
}

TEST(HostLinuxMemory, LockedTotalIsMlocked) {
  FakeSysroot root;
  root.meminfo(kTotalKib, kAvailableKib, /*mlocked_kib=*/2048);
  SysrootFiles files(root.path());
  Result<uint64_t> locked = read_linux_locked_bytes(files);
  ASSERT_TRUE(locked.ok());
  EXPECT_EQ(*locked, 2097152u);  // 2048 kB x 1024
  FakeSysroot empty;
  SysrootFiles none(empty.path());
  Result<uint64_t> missing = read_linux_locked_bytes(none);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "/proc/meminfo: not found");
}

TEST(HostLinuxMemory, ProcessGaugesFromProcSelfStatus) {
  ProcessGauges gauges = parse_proc_status_gauges(
      "Name:\tmemfit\nVmPeak:\t  900000 kB\nVmLck:\t      16 kB\nVmRSS:\t  524288 kB\n"
      "VmSwap:\t    1024 kB\nThreads:\t1\n");
  EXPECT_EQ(gauges.footprint_bytes, std::optional<uint64_t>(536870912));  // 524288 x 1024
  EXPECT_EQ(gauges.swapped_bytes, std::optional<uint64_t>(1048576));      // 1024 x 1024
  EXPECT_EQ(gauges.wired_bytes, std::optional<uint64_t>(16384));          // 16 x 1024
  ProcessGauges kernel_thread = parse_proc_status_gauges("Name:\tkthreadd\nThreads:\t1\n");
  EXPECT_FALSE(kernel_thread.footprint_bytes.has_value());
  EXPECT_FALSE(kernel_thread.swapped_bytes.has_value());
  EXPECT_FALSE(kernel_thread.wired_bytes.has_value());
}

}  // namespace
}  // namespace memfit::host
