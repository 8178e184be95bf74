// The host's memory read bandwidth (memfit/memory_bandwidth.h). Each thread
// sums its slice of the buffer's words; the sums keep the compiler from
// dropping the reads, and their total is the measurement's checksum.
#include "memfit/memory_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace memfit {
namespace {

uint64_t sum_words(std::span<const uint64_t> words) {
  uint64_t sum = 0;
  for (uint64_t w : words) sum += w;
  return sum;
}

}  // namespace

double RealSecondsClock::now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Result<BandwidthMeasurement> measure_read_bandwidth(std::span<const uint64_t> buffer,
                                                    uint64_t passes, uint64_t threads,
                                                    SecondsClock& clock) {
  if (buffer.empty() || passes == 0 || threads == 0) {
    return Error::usage("memory bandwidth: an empty buffer, no pass or no thread");
  }
  if (threads > buffer.size()) threads = buffer.size();
  const size_t slices = static_cast<size_t>(threads);
  const size_t slice = (buffer.size() + slices - 1) / slices;
  std::vector<uint64_t> sums(slices, 0);
  const double start = clock.now_seconds();
  for (uint64_t pass = 0; pass < passes; ++pass) {
    // std::thread joined by hand: the macOS libc++ memfit builds with has
    // no std::jthread.
    std::vector<std::thread> workers;
    workers.reserve(slices);
    bool started = true;
    for (size_t t = 0; t < slices && started; ++t) {
      const size_t first = std::min(buffer.size(), t * slice);
      const std::span<const uint64_t> words =
          buffer.subspan(first, std::min(slice, buffer.size() - first));
      try {
        workers.emplace_back([&sums, t, words] { sums[t] += sum_words(words); });
      } catch (const std::system_error&) {
        started = false;  // the threads already started are joined below
      }
    }
    for (std::thread& worker : workers) worker.join();
    if (!started) return Error("memory bandwidth: cannot start a thread", ErrorKind::kInternal);
  }
  const double seconds = clock.now_seconds() - start;
  if (!(seconds > 0)) return Error::usage("memory bandwidth: the clock did not advance");
  BandwidthMeasurement m;
  m.buffer_bytes = buffer.size() * sizeof(uint64_t);
  m.passes = passes;
  m.threads = threads;
  m.bytes_read = m.buffer_bytes * passes;
  m.seconds = seconds;
  m.gb_per_s = static_cast<double>(m.bytes_read) / seconds / 1e9;
  for (uint64_t s : sums) m.checksum += s;
  return m;
}

Result<BandwidthMeasurement> measure_host_bandwidth() {
  std::vector<uint64_t> buffer;
  try {
    buffer.resize(kHostBandwidthBufferBytes / sizeof(uint64_t));
  } catch (const std::bad_alloc&) {
    return Error("memory bandwidth: cannot allocate 512 MiB", ErrorKind::kInternal);
  }
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = i;
  const uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
  RealSecondsClock clock;
  return measure_read_bandwidth(buffer, kHostBandwidthPasses, threads, clock);
}

}  // namespace memfit
