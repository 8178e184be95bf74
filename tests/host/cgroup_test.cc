// Which cgroup the process is in and where its hierarchy is mounted.
// (The limit walk itself is driven through fake trees in
// linux_memory_test.cc.)
#include "host/cgroup.h"

#include <gtest/gtest.h>

namespace memfit::host {
namespace {

// /proc/self/cgroup of a process on a hybrid (v1 + v2) host, as read on a
// real machine.
constexpr std::string_view kHybridSelfCgroup =
    "9:name=systemd:/\n"
    "8:pids:/\n"
    "4:memory:/process_api/43e4e852\n"
    "2:cpuacct:/\n"
    "1:cpu:/\n"
    "0::/\n";

// The same host's /proc/self/mountinfo (cgroup lines).
constexpr std::string_view kHybridMountinfo =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(HostCgroup, V1MemoryLineWinsOnHybridHosts) {
  std::optional<CgroupMembership> membership = parse_proc_self_cgroup(kHybridSelfCgroup);
  ASSERT_TRUE(membership.has_value());
  EXPECT_EQ(membership->version, 1);
  EXPECT_EQ(membership->path, "/process_api/43e4e852");
}

TEST(HostCgroup, UnifiedLineOnV2Hosts) {
  std::optional<CgroupMembership> membership =
      parse_proc_self_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n");
  ASSERT_TRUE(membership.has_value());
  EXPECT_EQ(membership->version, 2);
  EXPECT_EQ(membership->path, "/user.slice/user-1000.slice/session-2.scope");
}

TEST(HostCgroup, MemoryAmongSeveralControllers) {
  std::optional<CgroupMembership> membership =
      parse_proc_self_cgroup("7:cpu,cpuacct:/\n5:hugetlb,memory:/a/b\n");
  ASSERT_TRUE(membership.has_value());
  EXPECT_EQ(membership->version, 1);
  EXPECT_EQ(membership->path, "/a/b");
}

TEST(HostCgroup, PathMayHoldColons) {
  std::optional<CgroupMembership> membership = parse_proc_self_cgroup("0::/a:b/c\n");
  ASSERT_TRUE(membership.has_value());
  EXPECT_EQ(membership->path, "/a:b/c");
}

TEST(HostCgroup, NoMemoryHierarchyIsNoCgroup) {
  EXPECT_FALSE(parse_proc_self_cgroup("").has_value());
  EXPECT_FALSE(parse_proc_self_cgroup("7:cpu,cpuacct:/\n1:name=systemd:/\n").has_value());
  EXPECT_FALSE(parse_proc_self_cgroup("garbage\n").has_value());
}

TEST(HostCgroup, FindsEachVersionsMount) {
  std::optional<CgroupMount> v1 = find_cgroup_mount(kHybridMountinfo, 1);
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->mount_point, "/sys/fs/cgroup/memory");
  EXPECT_EQ(v1->root, "/");
  std::optional<CgroupMount> v2 = find_cgroup_mount(kHybridMountinfo, 2);
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->mount_point, "/sys/fs/cgroup/unified");
}

TEST(HostCgroup, ContainerMountShowsASubtree) {
  // Docker without a cgroup namespace: optional field "master:9" before the
  // separator, the container's cgroup as the mount's root.
  std::optional<CgroupMount> mount = find_cgroup_mount(
      "1203 1200 0:32 /docker/ab12 /sys/fs/cgroup/memory ro,nosuid master:9 - cgroup cgroup "
      "rw,memory\n",
      1);
  ASSERT_TRUE(mount.has_value());
  EXPECT_EQ(mount->mount_point, "/sys/fs/cgroup/memory");
  EXPECT_EQ(mount->root, "/docker/ab12");
}

TEST(HostCgroup, MountPathEscapesAreDecoded) {
  std::optional<CgroupMount> mount =
      find_cgroup_mount("50 1 0:40 / /mnt/cg\\040two rw - cgroup2 none rw\n", 2);
  ASSERT_TRUE(mount.has_value());
  EXPECT_EQ(mount->mount_point, "/mnt/cg two");
}

TEST(HostCgroup, NoMatchingMount) {
  EXPECT_FALSE(find_cgroup_mount(kHybridMountinfo.substr(0, 60), 2).has_value());
  EXPECT_FALSE(find_cgroup_mount("41 31 0:38 / /x rw - cgroup2\n", 2).has_value());  // truncated
  EXPECT_FALSE(find_cgroup_mount("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n", 1)
                   .has_value());
}

TEST(HostCgroup, HeadroomIsLimitLessUsageNotReclaimable) {
  CgroupMemory cgroup;
  cgroup.limit_bytes = 4294967296;         // 4 GiB
  cgroup.usage_bytes = 3758096384;         // 3.5 GiB
  cgroup.inactive_file_bytes = 536870912;  // 0.5 GiB
  // 4 - (3.5 - 0.5) = 1 GiB.
  EXPECT_EQ(cgroup.headroom_bytes(), 1073741824u);
  cgroup.inactive_file_bytes = 4294967296;  // more inactive than usage: charged 0
  EXPECT_EQ(cgroup.headroom_bytes(), 4294967296u);
  cgroup.inactive_file_bytes = 0;
  cgroup.usage_bytes = 5368709120;  // 5 GiB, past the limit
  EXPECT_EQ(cgroup.headroom_bytes(), 0u);
}

}  // namespace
}  // namespace memfit::host
