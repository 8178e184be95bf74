// MemoryBudget: the bytes an estimate is compared with, and where they came
// from. The host layer makes it (to_memory_budget in host_memory.h); the
// estimator and every report read it.
#ifndef MEMFIT_MEMORY_BUDGET_H_
#define MEMFIT_MEMORY_BUDGET_H_

#include <cstdint>
#include <string_view>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Where a budget came from. The JSON reports spell it with to_string().
enum class BudgetSource {
  kExplicit,          // "explicit": a limit the user gave (flag, request, MEMFIT_MEMORY_LIMIT)
  kCgroup,            // "cgroup": the tightest cgroup level's headroom (Linux)
  kMeminfoAvailable,  // "meminfo_available": /proc/meminfo MemAvailable
  kMeminfoTotal,      // "meminfo_total": MemTotal, when MemAvailable is missing
  kUnifiedMemory,     // "unified_memory": Apple silicon's shared RAM
  kWindows,           // "windows": GlobalMemoryStatusEx
  kSysconf,           // "sysconf": other POSIX systems
  kGpu,               // "gpu": the selected GPU's free memory
  kUnavailable,       // "unavailable": nothing readable; the budget is 0
  kDeviceMissing,     // "device_missing": the selected GPU does not exist; the budget is 0
  kGpuTotalGiven,     // "gpu_total_given": vLLM priced for a GPU whose total the request gave
};
std::string_view to_string(BudgetSource source);

// What the machine can give. budget_bytes is compared with the total;
// ram_available_bytes with the Windows + ROCm host shadow.
struct MemoryBudget {
  uint64_t budget_bytes = 0;
  uint64_t ram_available_bytes = 0;
  BudgetSource source = BudgetSource::kUnavailable;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MEMORY_BUDGET_H_
