#include "memfit/availability_gate.h"

#include <chrono>

namespace memfit {
namespace {

AvailabilityGate::HostQuery host_ram_query(HostQueryOptions options) {
  options.probe_gpus = false;  // the gate guards host RAM; GPU libraries are slow to load
  return [options] { return query_host_memory(options); };
}

uint64_t steady_now_ms() {
  const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count());
}

}  // namespace

AvailabilityGate::AvailabilityGate(HostQuery query, MonotonicClockMs now_ms)
    : query_(std::move(query)), now_ms_(std::move(now_ms)) {}

AvailabilityGate::AvailabilityGate(HostQueryOptions options)
    : AvailabilityGate(host_ram_query(std::move(options)), steady_now_ms) {}

void AvailabilityGate::refresh_locked() {
  const uint64_t now = now_ms_();
  if (queried_at_ms_ && now >= *queried_at_ms_ && now - *queried_at_ms_ < kReuseMs) return;
  const HostMemoryStatus status = query_();
  usable_bytes_ = status.ram_available_bytes > status.reserve_bytes
                      ? status.ram_available_bytes - status.reserve_bytes
                      : 0;
  granted_bytes_ = 0;
  queried_at_ms_ = now;
}

bool AvailabilityGate::may_grow(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  refresh_locked();
  const uint64_t headroom = usable_bytes_ > granted_bytes_ ? usable_bytes_ - granted_bytes_ : 0;
  if (bytes > headroom) return false;
  granted_bytes_ += bytes;
  return true;
}

StoreDecision StoreGrowthPolicy::decide(uint64_t resident_bytes, uint64_t entry_bytes) {
  if (entry_bytes > budget_bytes_) return {StoreAction::kSkip, 0};
  // entry <= budget, so resident + entry cannot overflow unless resident is
  // absurd; compare without adding.
  if (resident_bytes <= budget_bytes_ - entry_bytes) {
    if (!gate_.may_grow(entry_bytes)) return {StoreAction::kSkip, 0};
    return {StoreAction::kInsert, 0};
  }
  const uint64_t evict_bytes = resident_bytes - (budget_bytes_ - entry_bytes);
  const uint64_t growth_bytes = resident_bytes < budget_bytes_ ? budget_bytes_ - resident_bytes : 0;
  if (growth_bytes > 0 && !gate_.may_grow(growth_bytes)) return {StoreAction::kSkip, 0};
  return {StoreAction::kReplace, evict_bytes};
}

}  // namespace memfit
