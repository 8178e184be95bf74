// ProcessGauges: this process's memory as the OS accounts it, for the
// service's /metrics and the "footprint after load" log line.
//
//   gauge            Linux (/proc/self/status)  macOS (task_info)      Windows
//   footprint_bytes  VmRSS                      phys_footprint         WorkingSetSize
//   swapped_bytes    VmSwap                     compressed (compressor
//                                               or swap)               -
//   wired_bytes      VmLck (mlock'd)            -                      -
//
// A gauge the OS does not report is nullopt, never 0. Weights wired by
// wire_weights() are reported by its WiringReport, and allocator counters
// by the embedding runtime.
#ifndef MEMFIT_PROCESS_GAUGES_H_
#define MEMFIT_PROCESS_GAUGES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct ProcessGauges {
  std::optional<uint64_t> footprint_bytes;
  std::optional<uint64_t> swapped_bytes;
  std::optional<uint64_t> wired_bytes;
};

// Reads the gauges of the calling process. On Linux /proc/self/status is
// read under `sysroot` ("/" for the real one). Never fails: what cannot be
// read stays nullopt. Thread-safe.
ProcessGauges read_process_gauges(const std::string& sysroot = "/");

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_PROCESS_GAUGES_H_
