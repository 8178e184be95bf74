// The OS-independent half of the host query: from what the OS layer read
// and the GPUs found, the budget, its source and the device.
#ifndef MEMFIT_SRC_HOST_HOST_STATUS_H_
#define MEMFIT_SRC_HOST_HOST_STATUS_H_

#include <vector>

#include "host/host_files.h"
#include "host/host_os.h"
#include "memfit/cpu_features.h"
#include "memfit/host_memory.h"

namespace memfit::host {

// The budget, in order of precedence:
//   1. options.explicit_limit_bytes: source "explicit".
//   2. the selected GPU's free memory: source "gpu", device "cuda:N" or
//      "rocm:N". auto selects the first GPU in `gpus` (NVIDIA before AMD),
//      or the CPU when there is none.
//   3. the CPU: ram.ram_budget_bytes and ram.ram_budget_source, device "cpu".
// A named GPU that is not in `gpus` sets device_error, budget 0 and source
// "device_missing"; with an explicit limit it is only a warning (the user
// may be planning for another machine).
HostMemoryStatus compose_host_status(RamReading ram, std::vector<GpuMemory> gpus,
                                     const HostQueryOptions& options);

// The CPU's features from /proc/cpuinfo through `files`; Arch::kUnknown
// when the file is absent (macOS, Windows), unreadable or names neither
// flag line. Never fails.
CpuFeatures read_cpu_features(HostFiles& files);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_HOST_STATUS_H_
