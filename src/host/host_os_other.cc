// The OS layer for systems memfit has no specific knowledge of (the BSDs,
// ...): sysconf for RAM, no cgroups, no locked total.
#include <unistd.h>

#include "host/host_os.h"
#include "memfit/process_gauges.h"

namespace memfit::host {

RamReading read_os_ram(const HostQueryOptions&) {
  RamReading ram;
  ram.os = "other";
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0) {
    ram.ram_total_bytes = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_bytes);
  }
  long available_pages = -1;
#ifdef _SC_AVPHYS_PAGES  // why: not every libc has it; this file is the fallback for all of them
  available_pages = ::sysconf(_SC_AVPHYS_PAGES);
#endif
  if (available_pages >= 0 && page_bytes > 0) {
    ram.available_now_bytes =
        static_cast<uint64_t>(available_pages) * static_cast<uint64_t>(page_bytes);
    ram.ram_budget_source = BudgetSource::kSysconf;
  } else {
    ram.warnings.push_back("free memory is unknown on this OS; the budget is all of RAM");
    ram.available_now_bytes = ram.ram_total_bytes;
    ram.ram_budget_source = ram.ram_total_bytes > 0 ? BudgetSource::kSysconf : BudgetSource::kUnavailable;
  }
  ram.ram_available_bytes = ram.available_now_bytes;
  ram.ram_budget_bytes = ram.available_now_bytes;
  return ram;
}

Result<uint64_t> read_os_wired_bytes(const std::string&) {
  return Error("this OS's locked total is not known to memfit");
}

std::vector<std::string> default_nvml_library_names() { return {"libnvidia-ml.so.1"}; }
std::vector<std::string> default_rocm_smi_library_names() { return {}; }

}  // namespace memfit::host

namespace memfit {

ProcessGauges read_process_gauges(const std::string&) { return {}; }

}  // namespace memfit
