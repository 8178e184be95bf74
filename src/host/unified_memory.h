// Apple unified memory: what macOS can give now, and what memfit leaves it
// (docs/host.md). Pure functions; the syscalls that feed them
// are in host_os_macos.cc.
#ifndef MEMFIT_SRC_HOST_UNIFIED_MEMORY_H_
#define MEMFIT_SRC_HOST_UNIFIED_MEMORY_H_

#include <cstdint>

namespace memfit::host {

// Page counts of host_statistics64(HOST_VM_INFO64), in pages.
struct VmPageCounts {
  uint64_t free = 0;         // free_count; includes the speculative pages
  uint64_t speculative = 0;  // speculative_count: read-ahead file pages
  uint64_t purgeable = 0;    // purgeable_count: volatile caches any app may drop
  uint64_t inactive = 0;     // inactive_count: file-backed and anonymous
  uint64_t file_backed = 0;  // external_page_count: pages backed by a file
};

// available now = (free - speculative + purgeable
//                  + min(inactive + speculative, file_backed)) x page_bytes
// Other programs' inactive anonymous pages are left out: macOS gives them
// back only by compressing or swapping. free - speculative is taken as 0
// if the counters, read at slightly different times, say otherwise.
// Saturates at UINT64_MAX.
uint64_t unified_available_now_bytes(const VmPageCounts& pages, uint64_t page_bytes);

// The OS reserve on a Mac: max(7 GiB, 15% of RAM), the 15% rounded up.
uint64_t unified_memory_reserve_bytes(uint64_t ram_total_bytes);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_UNIFIED_MEMORY_H_
