// FakeSysroot: a Linux /proc and /sys tree in a temporary directory, for
// tests that point the host query (MEMFIT_SYSROOT) at a machine of their
// own making; RecordingHostFiles: the paths a probe asks a HostFiles for.
#ifndef MEMFIT_TESTS_SUPPORT_FAKE_SYSROOT_H_
#define MEMFIT_TESTS_SUPPORT_FAKE_SYSROOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/host_files.h"
#include "support/temp_dir.h"

namespace memfit::testing {

class FakeSysroot {
 public:
  const std::string& path() const { return dir_.path(); }

  // Writes `text` at `host_path` ("/proc/meminfo") inside the tree.
  void write(std::string_view host_path, std::string_view text) const;

  // /proc/meminfo with MemTotal, MemAvailable (left out when nullopt) and
  // Mlocked, in kB (KiB) as the kernel writes them.
  void meminfo(uint64_t total_kib, std::optional<uint64_t> available_kib,
               uint64_t mlocked_kib = 0) const;

  // /proc/self/cgroup naming one unified (v2) cgroup: "0::<cgroup_path>".
  void self_cgroup_v2(std::string_view cgroup_path) const;

  // One v2 level under /sys/fs/cgroup<cgroup_path>/: memory.max ("max" or
  // a number), memory.current and memory.stat's inactive_file.
  void cgroup_v2_level(std::string_view cgroup_path, std::string_view memory_max,
                       uint64_t current_bytes, uint64_t inactive_file_bytes) const;

  // One v1 level under /sys/fs/cgroup/memory<cgroup_path>/:
  // memory.limit_in_bytes, memory.usage_in_bytes and memory.stat with
  // total_inactive_file (and a different local inactive_file, which must
  // not be used).
  void cgroup_v1_level(std::string_view cgroup_path, uint64_t limit_bytes, uint64_t usage_bytes,
                       uint64_t total_inactive_file_bytes) const;

 private:
  TempDir dir_;
};

// Reads through `files` and records every path asked for, in order.
class RecordingHostFiles : public host::HostFiles {
 public:
  explicit RecordingHostFiles(host::HostFiles& files) : files_(files) {}
  Result<std::optional<std::string>> read(const std::string& path) override {
    paths_read_.push_back(path);
    return files_.read(path);
  }
  const std::vector<std::string>& paths_read() const { return paths_read_; }

 private:
  host::HostFiles& files_;
  std::vector<std::string> paths_read_;
};

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_FAKE_SYSROOT_H_
