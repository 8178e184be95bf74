// HostMemoryStatus: what this machine holds and what it can give now.
//
// Total RAM is what a machine can hold, not what it can give. The status
// carries both, the reserve memfit leaves to the OS, and the budget an
// estimate is compared with, naming where that budget came from.
//
// Sources (docs/host.md has the full story):
//   Linux    /proc/meminfo MemAvailable (MemTotal when missing), clamped by
//            the process's cgroup: min over the levels from its cgroup up to
//            the root of limit - (usage - inactive_file).
//   macOS    hw.memsize, Metal's recommended working set, host_statistics64.
//   Windows  GlobalMemoryStatusEx.
//   GPUs     NVML (NVIDIA) and ROCm SMI (AMD), loaded at run time; an absent
//            library means no GPUs of that vendor.
// Every path is read under HostQueryOptions::sysroot so tests can point the
// query at a fake tree.
#ifndef MEMFIT_HOST_MEMORY_H_
#define MEMFIT_HOST_MEMORY_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memfit/cpu_features.h"
#include "memfit/environment.h"
#include "memfit/memory_budget.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct CgroupMemory {
  int version = 2;                   // 1 or 2
  uint64_t limit_bytes = 0;          // tightest limit on the path to the root
  uint64_t usage_bytes = 0;          // memory.current / memory.usage_in_bytes at that level
  uint64_t inactive_file_bytes = 0;  // reclaimable page cache at that level
  std::string path;                  // the cgroup whose headroom is tightest, as the
                                     // kernel names it ("/", "/kubepods/pod1")
  // limit - (usage - inactive_file), 0 when usage is past the limit.
  uint64_t headroom_bytes() const;
};

enum class GpuVendor { kNvidia, kAmd };
// "nvidia" or "amd".
const char* gpu_vendor_name(GpuVendor vendor);

struct GpuMemory {
  int index = 0;  // the vendor library's index: cuda:N / rocm:N
  GpuVendor vendor = GpuVendor::kNvidia;
  std::string name;
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;
};

// Which device's free memory is the budget.
struct DeviceSelector {
  enum class Kind { kAuto, kCpu, kCuda, kRocm };
  Kind kind = Kind::kAuto;
  int index = 0;
};
// Parses "auto", "cpu", "cuda", "cuda:N", "rocm", "rocm:N" (N a decimal
// index; "cuda" is "cuda:0"). Fails (kUsage) with "'x': expected ...".
Result<DeviceSelector> parse_device_selector(const std::string& text);
// The canonical spelling: "auto", "cpu", "cuda:N", "rocm:N".
std::string device_selector_name(const DeviceSelector& device);

struct HostMemoryStatus {
  std::string os;  // "linux", "macos", "windows", "other"
  uint64_t ram_total_bytes = 0;
  uint64_t available_now_bytes = 0;  // what the OS can give now, machine-wide
                                     // (MemAvailable, the macOS formula, ullAvailPhys)
  uint64_t ram_available_bytes = 0;  // what this process can take now: available
                                     // now clamped by the cgroup headroom
  uint64_t reserve_bytes = 0;        // left to the OS: max(7 GiB, 15% RAM) on macOS,
                                     // 0 on Linux and Windows (see docs/host.md)
  uint64_t budget_bytes = 0;
  BudgetSource budget_source = BudgetSource::kUnavailable;
  std::string device;                       // whose memory is the budget: "cpu" (host RAM or
                                            // unified memory), "cuda:N", "rocm:N"
  std::optional<std::string> device_error;  // set when the selected GPU does not
                                            // exist and no explicit limit was given
  std::optional<CgroupMemory> cgroup;       // null when no level has a memory limit
  std::vector<GpuMemory> gpus;              // NVIDIA first, then AMD
  uint64_t metal_working_set_bytes = 0;     // macOS only; 0 elsewhere or unknown
  CpuFeatures cpu;                          // Arch::kUnknown where not read
  std::vector<std::string> warnings;
  // "" when this is this machine as it stands; else the request field that
  // describes the machine priced ("gpu", "mac", "memory_limit"), whose
  // free memory now is not this machine's: available_now_warning is then
  // silent (docs/hardware.md).
  std::string described_by;
};

struct HostQueryOptions {
  std::optional<uint64_t> explicit_limit_bytes;  // wins over everything when set
  DeviceSelector device;
  std::string sysroot = "/";  // MEMFIT_SYSROOT: prefix for /proc, /sys
  // MEMFIT_NVML_LIBRARY / MEMFIT_ROCM_SMI_LIBRARY. Empty: the vendors' usual
  // names are tried and absence is silent; a named library that cannot be
  // loaded is a warning.
  std::string nvml_library;
  std::string rocm_smi_library;
  bool probe_gpus = true;  // false: skip both libraries
};

// The options the environment sets: MEMFIT_SYSROOT (unset or empty: "/"),
// MEMFIT_NVML_LIBRARY, MEMFIT_ROCM_SMI_LIBRARY. The explicit limit
// (MEMFIT_MEMORY_LIMIT, read by mlxcel_settings_from_environment) and the device
// are left for the caller to set.
HostQueryOptions host_query_options_from_environment(const Environment& env);

// Queries the real machine (the OS-specific implementation is chosen by
// the build). Never fails: what cannot be read is reported as 0 with a
// warning. Thread-safe (no shared state), but the GPU libraries are
// loaded, initialised and shut down on each call: call it once per
// decision, or through AvailabilityGate, not in a tight loop.
HostMemoryStatus query_host_memory(const HostQueryOptions& options);

// Makes `limit_bytes` the budget, source kExplicit. A selected device that
// does not exist is then no longer an error: its message moves from
// device_error to warnings. query_host_memory applies
// options.explicit_limit_bytes this way; a caller with a limit of its own
// (one request's) applies it to a status it already holds.
void apply_explicit_limit(HostMemoryStatus& status, uint64_t limit_bytes);

// The budget an estimate is compared with: budget_bytes and source from
// the status, ram_available_bytes for the host-shadow comparison.
MemoryBudget to_memory_budget(const HostMemoryStatus& status);

// The JSON object of `memfit host --json` (docs/host.md lists the fields).
// GPU names are the vendor library's bytes: dump with
// nlohmann::json::error_handler_t::replace in case they are not UTF-8.
nlohmann::json host_status_to_json(const HostMemoryStatus& status);

// The available-now warning (docs/host.md, "The available-now warning").
// `load_bytes` is weights + KV + activation.
// Returns a line starting "WARNING: memory available now" when load_bytes
// exceeds ram_available_bytes - reserve_bytes, else nullopt. It never
// changes whether a model fits. nullopt when the budget is a GPU's memory
// (the load is not in host RAM), when nothing could be read, or when the
// status describes another machine (described_by).
std::optional<std::string> available_now_warning(const HostMemoryStatus& status,
                                                 uint64_t load_bytes);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HOST_MEMORY_H_
