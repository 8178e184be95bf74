// Weight wiring (opt-in, docs/host.md): lock evaluated weights into
// RAM so the OS cannot compress or swap them while the server idles.
//
// wire_region() locks a region chunk by chunk (1 GiB by default). Before
// the first chunk, and after each chunk is locked, it reads the system's
// wired (locked) total and compares it with RAM - reserve; the chunk that
// takes the total past that limit is unlocked again and wiring stops. The
// report says how much stayed wired and why wiring stopped, for the log
// and for the wired-weights gauge.
#ifndef MEMFIT_WEIGHT_WIRING_H_
#define MEMFIT_WEIGHT_WIRING_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Locks pages into RAM: mlock(2)/munlock(2) on POSIX, VirtualLock on
// Windows. The OS works in whole pages: a range is widened to the pages it
// touches, so pages shared with memory outside the region are locked and
// unlocked with it.
class MemoryLocker {
 public:
  virtual ~MemoryLocker() = default;
  // Fails with the OS's reason ("mlock: Cannot allocate memory" when
  // RLIMIT_MEMLOCK is reached).
  virtual Status lock(std::byte* begin, uint64_t length_bytes) = 0;
  virtual void unlock(std::byte* begin, uint64_t length_bytes) = 0;
  virtual uint64_t page_bytes() const = 0;
};

std::unique_ptr<MemoryLocker> make_real_memory_locker();

inline constexpr uint64_t kWireChunkBytes = 1ull << 30;

struct WiringLimits {
  uint64_t ram_total_bytes = 0;
  uint64_t reserve_bytes = 0;              // the wired total stays <= RAM - reserve
  uint64_t chunk_bytes = kWireChunkBytes;  // rounded up to whole pages
};

// RAM total and the reserve max(7 GiB, 15% of RAM), on every OS: locked
// pages cannot be reclaimed at all, so the OS keeps the macOS reserve even
// where the memory budget has none (docs/host.md).
WiringLimits default_wiring_limits(uint64_t ram_total_bytes);

enum class WiringStop {
  kComplete,           // every chunk is wired
  kWiredLimit,         // the wired total passed RAM - reserve; the chunk that
                       // took it there (if any) was unlocked
  kLockFailed,         // the OS refused to lock a chunk (RLIMIT_MEMLOCK, ...)
  kWiredTotalUnknown,  // the wired total could not be read; the chunk just
                       // locked (if any) was unlocked
};
// "complete", "wired_limit", "lock_failed", "wired_total_unknown".
const char* wiring_stop_name(WiringStop stop);

struct WiringReport {
  uint64_t wired_bytes = 0;  // a prefix of the region, whole chunks
  uint64_t chunks_wired = 0;
  uint64_t chunks_total = 0;
  WiringStop stop = WiringStop::kComplete;
  uint64_t limit_bytes = 0;         // RAM - reserve (0 when reserve >= RAM)
  uint64_t system_wired_bytes = 0;  // the last reading of the wired total
  std::string detail;               // one line for the log
};

// Returns the machine's wired total, or why it cannot.
using SystemWiredBytes = std::function<Result<uint64_t>()>;

// Wires `region` as described above. The region must stay mapped while any
// of it is wired; unwire_region() undoes the report. The locker and the
// reading function are used from the calling thread only. Without a
// reading function, the OS's own total is read: Linux /proc/meminfo
// Mlocked, macOS wired pages x page size; Windows and other systems report
// none, so wiring stops there before the first chunk (kWiredTotalUnknown).
WiringReport wire_region(std::span<std::byte> region, const WiringLimits& limits,
                         MemoryLocker& locker, const SystemWiredBytes& system_wired_bytes = {});

// Unlocks the wired prefix a report describes.
void unwire_region(std::span<std::byte> region, const WiringReport& report, MemoryLocker& locker);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_WEIGHT_WIRING_H_
