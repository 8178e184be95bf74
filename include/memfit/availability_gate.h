// AvailabilityGate: the check a store that grows with requests makes before
// each growth step (docs/host.md).
//
// A growth of N bytes is allowed while N, plus what the gate has already
// granted since its last host query, fits in
//   ram_available_bytes - reserve_bytes
// of that query: growth never cuts into the reserve left to the OS. One
// host query is reused for kReuseMs; the grants made under it are counted
// so that a burst of steps inside the window cannot together overrun what
// one query saw.
//
// StoreGrowthPolicy applies the gate to a store with a byte budget: under
// its budget, an insertion that grows the store is skipped when the host
// cannot afford it; at its budget, insertions only replace entries (evict,
// then insert) and are never refused, since the store does not grow.
#ifndef MEMFIT_AVAILABILITY_GATE_H_
#define MEMFIT_AVAILABILITY_GATE_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

#include "memfit/host_memory.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

class AvailabilityGate {
 public:
  static constexpr uint64_t kReuseMs = 250;

  using HostQuery = std::function<HostMemoryStatus()>;
  using MonotonicClockMs = std::function<uint64_t()>;

  // `query` is called at most once per kReuseMs of `now_ms` (a monotonic
  // clock in milliseconds). Both must outlive the gate and may be called
  // from any thread that calls may_grow(), one at a time.
  AvailabilityGate(HostQuery query, MonotonicClockMs now_ms);

  // The real host (query_host_memory(options) with GPU probing off: the
  // gate guards host RAM) and std::chrono::steady_clock.
  explicit AvailabilityGate(HostQueryOptions options);

  // true, and the bytes are counted as granted, when `bytes` more fits
  // above the reserve; false otherwise (nothing is counted). Thread-safe.
  bool may_grow(uint64_t bytes);

 private:
  // Re-queries when the cached status is older than kReuseMs. Holds mu_.
  void refresh_locked();

  HostQuery query_;
  MonotonicClockMs now_ms_;
  std::mutex mu_;
  std::optional<uint64_t> queried_at_ms_;  // guarded by mu_
  uint64_t usable_bytes_ = 0;              // guarded by mu_: available - reserve
  uint64_t granted_bytes_ = 0;             // guarded by mu_: since queried_at_ms_
};

enum class StoreAction {
  kInsert,   // insert; the store grows and stays within its budget
  kReplace,  // evict at least evict_bytes first, then insert
  kSkip,     // do not store: the host cannot afford the growth, or the
             // entry alone exceeds the budget
};

struct StoreDecision {
  StoreAction action = StoreAction::kSkip;
  uint64_t evict_bytes = 0;  // kReplace only
};

class StoreGrowthPolicy {
 public:
  // `gate` must outlive the policy. Thread-compatible: the store calls
  // decide() under its own lock, with its own resident count.
  StoreGrowthPolicy(uint64_t budget_bytes, AvailabilityGate& gate)
      : budget_bytes_(budget_bytes), gate_(gate) {}

  // For an entry of `entry_bytes` offered to a store holding
  // `resident_bytes`:
  //   entry > budget                      kSkip
  //   resident + entry <= budget          kInsert if may_grow(entry), else kSkip
  //   resident + entry >  budget          kReplace with evict = resident + entry
  //                                       - budget; if the store is still below
  //                                       its budget it grows by budget - resident,
  //                                       and that growth must pass may_grow()
  //                                       (else kSkip)
  StoreDecision decide(uint64_t resident_bytes, uint64_t entry_bytes);

 private:
  uint64_t budget_bytes_;
  AvailabilityGate& gate_;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_AVAILABILITY_GATE_H_
