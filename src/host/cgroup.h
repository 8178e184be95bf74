// The memory limit of the cgroup this process runs in (Linux).
//
// A container's budget is not the machine's: a process under a cgroup
// limit is reclaimed, then killed, once its cgroup's charge reaches the
// limit, whatever MemAvailable says. The charge includes page cache, of
// which the inactive file pages are reclaimed first, so the headroom of
// one level is
//   limit - (usage - inactive_file)
// and the process's headroom is the least over the levels from its own
// cgroup up to the hierarchy's root (a parent's limit binds its children).
#ifndef MEMFIT_SRC_HOST_CGROUP_H_
#define MEMFIT_SRC_HOST_CGROUP_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/host_files.h"
#include "memfit/host_memory.h"

namespace memfit::host {

// v1 reports "no limit" as a huge page-aligned number (9223372036854771712
// on x86-64); any limit at or above 2^62 bytes is taken as none.
inline constexpr uint64_t kCgroupNoLimitBytes = 1ull << 62;

struct CgroupMembership {
  int version = 2;   // 1: the v1 memory controller's hierarchy; 2: the unified one
  std::string path;  // as the kernel names it: "/", "/user.slice/session-2.scope"
};

// /proc/self/cgroup has one line per hierarchy:
//   hierarchy-ID ":" controller-list ":" cgroup-path
// v1 hierarchies name their controllers ("4:memory:/docker/ab12",
// "7:cpu,cpuacct:/"); the v2 unified hierarchy is "0::/path". A v1 line
// with the memory controller wins (on hybrid systems memory is accounted
// there); else the v2 line; else nullopt (no cgroup, as on a non-Linux
// sysroot or a kernel without cgroups).
std::optional<CgroupMembership> parse_proc_self_cgroup(std::string_view text);

struct CgroupMount {
  std::string mount_point;  // "/sys/fs/cgroup"
  std::string root;         // the cgroup shown at mount_point: "/" on a host,
                            // "/docker/ab12" in a container without cgroupns
};

// /proc/self/mountinfo lines are
//   id parent major:minor root mount-point options [optional...] "-"
//   fstype source super-options
// with spaces in paths written "\040". The memory hierarchy's mount is the
// one with fstype "cgroup2" (v2), or fstype "cgroup" whose super options
// include "memory" (v1). nullopt when there is none.
std::optional<CgroupMount> find_cgroup_mount(std::string_view mountinfo, int version);

// Reads /proc/self/cgroup, /proc/self/mountinfo (when missing, the usual
// mount points /sys/fs/cgroup and /sys/fs/cgroup/memory are assumed) and
// the limit files of each level:
//   v2: memory.max ("max" = no limit), memory.current, memory.stat inactive_file
//   v1: memory.limit_in_bytes, memory.usage_in_bytes, memory.stat
//       total_inactive_file (inactive_file on kernels without it)
// Returns the level with the least headroom, or nullopt when the process
// has no cgroup or no level sets a limit. Problems (unreadable or
// malformed files) are appended to `warnings`; a level whose limit cannot
// be read is skipped, one whose usage cannot be read counts as empty.
std::optional<CgroupMemory> read_cgroup_memory(HostFiles& files,
                                               std::vector<std::string>& warnings);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_CGROUP_H_
