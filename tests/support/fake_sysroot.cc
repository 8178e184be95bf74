#include "support/fake_sysroot.h"

namespace memfit::testing {
namespace {

std::string level_dir(std::string_view mount, std::string_view cgroup_path) {
  std::string dir(mount);
  if (cgroup_path != "/") dir += cgroup_path;
  return dir;
}

}  // namespace

void FakeSysroot::write(std::string_view host_path, std::string_view text) const {
  dir_.write_file(host_path.substr(1), text);
}

void FakeSysroot::meminfo(uint64_t total_kib, std::optional<uint64_t> available_kib,
                          uint64_t mlocked_kib) const {
  std::string text =
      "MemTotal:       " + std::to_string(total_kib) + " kB\n" + "MemFree:          123456 kB\n";
  if (available_kib) text += "MemAvailable:   " + std::to_string(*available_kib) + " kB\n";
  text += "Buffers:           65536 kB\n";
  text += "Mlocked:        " + std::to_string(mlocked_kib) + " kB\n";
  text += "HugePages_Total:       0\n";
  write("/proc/meminfo", text);
}

void FakeSysroot::self_cgroup_v2(std::string_view cgroup_path) const {
  write("/proc/self/cgroup", "0::" + std::string(cgroup_path) + "\n");
}

void FakeSysroot::cgroup_v2_level(std::string_view cgroup_path, std::string_view memory_max,
                                  uint64_t current_bytes, uint64_t inactive_file_bytes) const {
  const std::string dir = level_dir("/sys/fs/cgroup", cgroup_path);
  write(dir + "/memory.max", std::string(memory_max) + "\n");
  write(dir + "/memory.current", std::to_string(current_bytes) + "\n");
  write(dir + "/memory.stat", "anon 1048576\nfile 2097152\nactive_file 4096\ninactive_file " +
                                  std::to_string(inactive_file_bytes) + "\nslab 8192\n");
}

void FakeSysroot::cgroup_v1_level(std::string_view cgroup_path, uint64_t limit_bytes,
                                  uint64_t usage_bytes, uint64_t total_inactive_file_bytes) const {
  const std::string dir = level_dir("/sys/fs/cgroup/memory", cgroup_path);
  write(dir + "/memory.limit_in_bytes", std::to_string(limit_bytes) + "\n");
  write(dir + "/memory.usage_in_bytes", std::to_string(usage_bytes) + "\n");
  write(dir + "/memory.stat",
        "cache 4096\nrss 8192\ninactive_file 12345\nactive_file 4096\n"
        "hierarchical_memory_limit " +
            std::to_string(limit_bytes) + "\ntotal_inactive_file " +
            std::to_string(total_inactive_file_bytes) + "\n");
}

}  // namespace memfit::testing
