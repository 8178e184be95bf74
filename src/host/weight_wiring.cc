// Design note: chunk boundaries sit on page boundaries counted from the
// page that holds the region's first byte, so unlocking one chunk never
// unlocks a page of the chunk before it (the OS widens every range to whole
// pages). Only the region's first and last pages may be shared with memory
// outside it.
#include "memfit/weight_wiring.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "host/host_os.h"
#include "host/unified_memory.h"

namespace memfit {
namespace {

double gib(uint64_t bytes) { return static_cast<double>(bytes) / (1ull << 30); }

struct Chunk {
  std::byte* begin;
  uint64_t length_bytes;
};

// The chunks of `region`, in order.
std::vector<Chunk> split_chunks(std::span<std::byte> region, uint64_t chunk_bytes,
                                uint64_t page_bytes) {
  std::vector<Chunk> chunks;
  if (region.empty()) return chunks;
  if (page_bytes == 0) page_bytes = 1;
  if (chunk_bytes < page_bytes) chunk_bytes = page_bytes;
  chunk_bytes = (chunk_bytes + page_bytes - 1) / page_bytes * page_bytes;
  const auto address = reinterpret_cast<uintptr_t>(region.data());
  const uint64_t offset_in_page = address % page_bytes;
  uint64_t start = 0;
  uint64_t boundary = chunk_bytes - offset_in_page;  // the first chunk's end, from region start
  while (start < region.size()) {
    const uint64_t end = std::min<uint64_t>(boundary, region.size());
    chunks.push_back({region.data() + start, end - start});
    start = end;
    boundary += chunk_bytes;
  }
  return chunks;
}

}  // namespace

WiringLimits default_wiring_limits(uint64_t ram_total_bytes) {
  WiringLimits limits;
  limits.ram_total_bytes = ram_total_bytes;
  limits.reserve_bytes = host::unified_memory_reserve_bytes(ram_total_bytes);
  return limits;
}

const char* wiring_stop_name(WiringStop stop) {
  switch (stop) {
    case WiringStop::kComplete:
      return "complete";
    case WiringStop::kWiredLimit:
      return "wired_limit";
    case WiringStop::kLockFailed:
      return "lock_failed";
    case WiringStop::kWiredTotalUnknown:
      return "wired_total_unknown";
  }
  return "unknown";
}

WiringReport wire_region(std::span<std::byte> region, const WiringLimits& limits,
                         MemoryLocker& locker, const SystemWiredBytes& system_wired_bytes) {
  WiringReport report;
  report.limit_bytes = limits.ram_total_bytes > limits.reserve_bytes
                           ? limits.ram_total_bytes - limits.reserve_bytes
                           : 0;
  const std::vector<Chunk> chunks = split_chunks(region, limits.chunk_bytes, locker.page_bytes());
  report.chunks_total = chunks.size();

  const auto summary = [&] {
    return fmt::format("wired {:.2f} GiB in {} of {} chunks", gib(report.wired_bytes),
                       report.chunks_wired, report.chunks_total);
  };
  // nullopt while wiring may go on; else why it must stop, with
  // report.stop set.
  const auto read_wired_total = [&]() -> Result<uint64_t> {
    return system_wired_bytes ? system_wired_bytes() : host::read_os_wired_bytes("/");
  };
  const auto check_wired_total = [&]() -> std::optional<std::string> {
    Result<uint64_t> wired = read_wired_total();
    if (!wired.ok()) {
      report.stop = WiringStop::kWiredTotalUnknown;
      return "the system's wired total is unknown: " + wired.error().message();
    }
    report.system_wired_bytes = *wired;
    if (*wired > report.limit_bytes) {
      report.stop = WiringStop::kWiredLimit;
      return fmt::format("the system's wired total {:.2f} GiB passed RAM - reserve = {:.2f} GiB",
                         gib(*wired), gib(report.limit_bytes));
    }
    return std::nullopt;
  };

  if (std::optional<std::string> reason = check_wired_total()) {
    report.detail = fmt::format("{}; stopped before the first chunk: {}", summary(), *reason);
    return report;
  }
  for (const Chunk& chunk : chunks) {
    const Status locked = locker.lock(chunk.begin, chunk.length_bytes);
    if (!locked.ok()) {
      report.stop = WiringStop::kLockFailed;
      report.detail = fmt::format("{}; stopped: chunk {} could not be locked: {}", summary(),
                                  report.chunks_wired + 1, locked.error().message());
      return report;
    }
    report.wired_bytes += chunk.length_bytes;
    ++report.chunks_wired;
    if (std::optional<std::string> reason = check_wired_total()) {
      locker.unlock(chunk.begin, chunk.length_bytes);
      report.wired_bytes -= chunk.length_bytes;
      --report.chunks_wired;
      report.detail = fmt::format("{}; stopped after chunk {}: {}; that chunk was unlocked",
                                  summary(), report.chunks_wired + 1, *reason);
      return report;
    }
  }
  report.stop = WiringStop::kComplete;
  report.detail = summary();
  return report;
}

void unwire_region(std::span<std::byte> region, const WiringReport& report, MemoryLocker& locker) {
  if (report.wired_bytes == 0) return;
  locker.unlock(region.data(), std::min<uint64_t>(report.wired_bytes, region.size()));
}

}  // namespace memfit
