// The OS layer of the host query: one host_os_<os>.cc per OS, chosen by the
// build (linux, macos, windows, other). Everything above it (the budget
// choice, GPUs, JSON) is OS-independent and lives in plain .cc files.
#ifndef MEMFIT_SRC_HOST_HOST_OS_H_
#define MEMFIT_SRC_HOST_HOST_OS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/host_memory.h"
#include "memfit/result.h"

namespace memfit::host {

// What the OS layer measured about host RAM, before a device or an
// explicit limit is chosen.
struct RamReading {
  std::string os;  // "linux", "macos", "windows", "other"
  uint64_t ram_total_bytes = 0;
  uint64_t available_now_bytes = 0;  // machine-wide
  uint64_t ram_available_bytes = 0;  // this process: available now, cgroup-clamped
  uint64_t reserve_bytes = 0;
  uint64_t ram_budget_bytes = 0;  // the budget when the device is the CPU
  BudgetSource ram_budget_source = BudgetSource::kUnavailable;
  std::optional<CgroupMemory> cgroup;
  uint64_t metal_working_set_bytes = 0;
  std::vector<std::string> warnings;
};

// Reads this OS's RAM figures. Linux reads under options.sysroot; the
// others ignore it. Never fails: problems become warnings and zeros.
RamReading read_os_ram(const HostQueryOptions& options);

// The system-wide locked (wired) total: Linux /proc/meminfo Mlocked under
// `sysroot`, macOS wire_count x page size. An Error where the OS does not
// say (Windows, others).
Result<uint64_t> read_os_wired_bytes(const std::string& sysroot);

// The names tried, in order, when no GPU library path is given.
std::vector<std::string> default_nvml_library_names();
std::vector<std::string> default_rocm_smi_library_names();

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_HOST_OS_H_
