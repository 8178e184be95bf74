// The host's memory read bandwidth, measured: `memfit hardware --measure`
// (docs/hardware.md, "The host CPU"). A buffer of a few hundred MB is read
// a few times by every core and the bytes are divided by the time taken.
// The speed estimate (memfit/speed.h) reads it as the host's bandwidth:
// the layers and experts left on the CPU are read from host memory.
#ifndef MEMFIT_MEMORY_BANDWIDTH_H_
#define MEMFIT_MEMORY_BANDWIDTH_H_

#include <cstdint>
#include <span>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// A monotonic clock in seconds, passed in so a test drives the time.
class SecondsClock {
 public:
  virtual ~SecondsClock() = default;
  virtual double now_seconds() = 0;
};

// std::chrono::steady_clock.
class RealSecondsClock final : public SecondsClock {
 public:
  double now_seconds() override;
};

struct BandwidthMeasurement {
  uint64_t buffer_bytes = 0;
  uint64_t passes = 0;
  uint64_t threads = 0;
  uint64_t bytes_read = 0;  // buffer_bytes x passes
  double seconds = 0;       // the clock's time over all passes
  double gb_per_s = 0;      // bytes_read / seconds / 10^9
  uint64_t checksum = 0;    // the words summed (wrapping), so no read is optimised away
};

// Reads every 64-bit word of `buffer` `passes` times, split into `threads`
// contiguous slices read in parallel, and times the passes with `clock`
// (read once before the first and once after the last). kUsage when the
// buffer is empty, passes or threads is 0, or the clock did not advance.
Result<BandwidthMeasurement> measure_read_bandwidth(std::span<const uint64_t> buffer,
                                                    uint64_t passes, uint64_t threads,
                                                    SecondsClock& clock);

// The host's: a 512 MiB buffer, written once (so its pages are real), read
// 4 times by as many threads as the host has hardware threads, timed by
// the real clock. kInternal when the buffer cannot be allocated.
inline constexpr uint64_t kHostBandwidthBufferBytes = 512ull << 20;
inline constexpr uint64_t kHostBandwidthPasses = 4;
Result<BandwidthMeasurement> measure_host_bandwidth();

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MEMORY_BANDWIDTH_H_
