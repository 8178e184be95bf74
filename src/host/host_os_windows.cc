// The Windows OS layer: GlobalMemoryStatusEx and GetProcessMemoryInfo.
#include <windows.h>
// psapi.h needs windows.h first. With PSAPI_VERSION 2 (the default for
// Windows 7 and later) GetProcessMemoryInfo is K32GetProcessMemoryInfo in
// kernel32, so no psapi.lib is linked.
#include <psapi.h>

#include "host/host_os.h"
#include "memfit/process_gauges.h"

namespace memfit::host {

RamReading read_os_ram(const HostQueryOptions&) {
  RamReading ram;
  ram.os = "windows";
  MEMORYSTATUSEX status{};
  status.dwLength = sizeof status;
  if (!::GlobalMemoryStatusEx(&status)) {
    ram.warnings.push_back("GlobalMemoryStatusEx failed with error " +
                           std::to_string(::GetLastError()) + "; host RAM is unknown");
    ram.ram_budget_source = BudgetSource::kUnavailable;
    return ram;
  }
  ram.ram_total_bytes = status.ullTotalPhys;
  // ullAvailPhys counts free, zeroed and standby (cache) pages: what can be
  // handed out without paging anything in use.
  ram.available_now_bytes = status.ullAvailPhys;
  ram.ram_available_bytes = status.ullAvailPhys;
  ram.ram_budget_bytes = status.ullAvailPhys;
  ram.ram_budget_source = BudgetSource::kWindows;
  return ram;
}

Result<uint64_t> read_os_wired_bytes(const std::string&) {
  return Error("Windows does not report a system-wide locked total");
}

std::vector<std::string> default_nvml_library_names() {
  // The driver installs nvml.dll into System32; older drivers kept it
  // beside nvidia-smi only.
  return {"nvml.dll", "C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvml.dll"};
}

std::vector<std::string> default_rocm_smi_library_names() { return {}; }

}  // namespace memfit::host

namespace memfit {

ProcessGauges read_process_gauges(const std::string&) {
  ProcessGauges gauges;
  PROCESS_MEMORY_COUNTERS counters{};
  counters.cb = sizeof counters;
  if (::GetProcessMemoryInfo(::GetCurrentProcess(), &counters, sizeof counters)) {
    gauges.footprint_bytes = counters.WorkingSetSize;
  }
  return gauges;
}

}  // namespace memfit
