#include "host/unified_memory.h"

#include <algorithm>

#include "memfit/checked_math.h"

namespace memfit::host {

uint64_t unified_available_now_bytes(const VmPageCounts& pages, uint64_t page_bytes) {
  const uint64_t free_not_speculative =
      pages.free > pages.speculative ? pages.free - pages.speculative : 0;
  const CheckedBytes reclaimable_file =
      std::min((CheckedBytes(pages.inactive) + pages.speculative).saturated(), pages.file_backed);
  const CheckedBytes available_pages =
      CheckedBytes(free_not_speculative) + pages.purgeable + reclaimable_file;
  return (available_pages * page_bytes).saturated();
}

uint64_t unified_memory_reserve_bytes(uint64_t ram_total_bytes) {
  constexpr uint64_t kMinReserveBytes = 7ull << 30;
  // ceil(ram x 15 / 100) without overflowing the product.
  const uint64_t hundredths = ram_total_bytes / 100;
  const uint64_t rest = ram_total_bytes % 100;
  const uint64_t fifteen_percent = hundredths * 15 + (rest * 15 + 99) / 100;
  return std::max(kMinReserveBytes, fifteen_percent);
}

}  // namespace memfit::host
