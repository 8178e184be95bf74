// Weight wiring: the chunk walk against a fake locker, then real mlock(2)
// in a child process under a small RLIMIT_MEMLOCK.
#include "memfit/weight_wiring.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef __linux__  // why: the real-mlock tests drop a Linux capability and fork
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memfit/process_gauges.h"
#endif

namespace memfit {
namespace {

constexpr uint64_t kPage = 4096;

// Records every lock and unlock as (offset from the region's start,
// length), and can refuse the Nth lock.
class FakeLocker : public MemoryLocker {
 public:
  explicit FakeLocker(std::byte* base) : base_(base) {}

  Status lock(std::byte* begin, uint64_t length_bytes) override {
    ++locks_;
    if (locks_ == fail_on_lock_) return Error("mlock: Cannot allocate memory");
    calls_.push_back({"lock", static_cast<uint64_t>(begin - base_), length_bytes});
    locked_bytes_ += length_bytes;
    return Status::Ok();
  }
  void unlock(std::byte* begin, uint64_t length_bytes) override {
    calls_.push_back({"unlock", static_cast<uint64_t>(begin - base_), length_bytes});
    locked_bytes_ -= length_bytes;
  }
  uint64_t page_bytes() const override { return kPage; }

  struct Call {
    std::string what;
    uint64_t offset;
    uint64_t length;
    bool operator==(const Call&) const = default;
  };
  const std::vector<Call>& calls() const { return calls_; }
  uint64_t locked_bytes() const { return locked_bytes_; }
  void fail_on_lock(int n) { fail_on_lock_ = n; }

 private:
  std::byte* base_;
  std::vector<Call> calls_;
  uint64_t locked_bytes_ = 0;
  int locks_ = 0;
  int fail_on_lock_ = 0;
};

// A page-aligned buffer of ten pages.
struct Region {
  Region() : memory(static_cast<std::byte*>(std::aligned_alloc(kPage, 10 * kPage))) {}
  ~Region() { std::free(memory); }
  std::span<std::byte> all() { return {memory, 10 * kPage}; }
  std::byte* memory;
};

// Chunks of two pages (8192 bytes) over ten pages: five chunks. The wired
// limit is RAM - reserve = 100000 - 80000 = 20000 bytes.
WiringLimits small_limits() {
  WiringLimits limits;
  limits.ram_total_bytes = 100000;
  limits.reserve_bytes = 80000;
  limits.chunk_bytes = 2 * kPage;
  return limits;
}

TEST(HostWeightWiring, WiresEveryChunkBelowTheLimit) {
  Region region;
  FakeLocker locker(region.memory);
  WiringLimits limits = small_limits();
  limits.reserve_bytes = 0;  // limit 100000 > the 40960-byte region
  WiringReport report = wire_region(region.all(), limits, locker,
                                    [&]() -> Result<uint64_t> { return locker.locked_bytes(); });
  EXPECT_EQ(report.stop, WiringStop::kComplete);
  EXPECT_EQ(report.wired_bytes, 40960u);
  EXPECT_EQ(report.chunks_wired, 5u);
  EXPECT_EQ(report.chunks_total, 5u);
  EXPECT_EQ(report.limit_bytes, 100000u);
  EXPECT_EQ(report.system_wired_bytes, 40960u);
  EXPECT_EQ(report.detail, "wired 0.00 GiB in 5 of 5 chunks");
  const std::vector<FakeLocker::Call> expected = {{"lock", 0, 8192},
                                                  {"lock", 8192, 8192},
                                                  {"lock", 16384, 8192},
                                                  {"lock", 24576, 8192},
                                                  {"lock", 32768, 8192}};
  EXPECT_EQ(locker.calls(), expected);
}

TEST(HostWeightWiring, UnlocksTheChunkThatCrossesTheLimitAndStops) {
  Region region;
  FakeLocker locker(region.memory);
  // Other processes hold 4096 bytes wired. Before the first chunk: 4096 <=
  // 20000. After chunk 1: 4096 + 8192 = 12288 <= 20000. After chunk 2:
  // 20480 > 20000: chunk 2 is unlocked and wiring stops with one chunk.
  WiringReport report =
      wire_region(region.all(), small_limits(), locker,
                  [&]() -> Result<uint64_t> { return 4096 + locker.locked_bytes(); });
  EXPECT_EQ(report.stop, WiringStop::kWiredLimit);
  EXPECT_EQ(report.wired_bytes, 8192u);
  EXPECT_EQ(report.chunks_wired, 1u);
  EXPECT_EQ(report.limit_bytes, 20000u);
  EXPECT_EQ(report.system_wired_bytes, 20480u);
  const std::vector<FakeLocker::Call> expected = {
      {"lock", 0, 8192}, {"lock", 8192, 8192}, {"unlock", 8192, 8192}};
  EXPECT_EQ(locker.calls(), expected);
  EXPECT_EQ(report.detail,
            "wired 0.00 GiB in 1 of 5 chunks; stopped after chunk 2: the system's wired total "
            "0.00 GiB passed RAM - reserve = 0.00 GiB; that chunk was unlocked");
  EXPECT_STREQ(wiring_stop_name(report.stop), "wired_limit");
}

TEST(HostWeightWiring, AlreadyPastTheLimitWiresNothing) {
  Region region;
  FakeLocker locker(region.memory);
  WiringReport report = wire_region(region.all(), small_limits(), locker,
                                    []() -> Result<uint64_t> { return uint64_t{20001}; });
  EXPECT_EQ(report.stop, WiringStop::kWiredLimit);
  EXPECT_EQ(report.wired_bytes, 0u);
  EXPECT_TRUE(locker.calls().empty());
  EXPECT_EQ(report.detail,
            "wired 0.00 GiB in 0 of 5 chunks; stopped before the first chunk: the system's wired "
            "total 0.00 GiB passed RAM - reserve = 0.00 GiB");
}

TEST(HostWeightWiring, LockFailureStopsWithTheOsReason) {
  Region region;
  FakeLocker locker(region.memory);
  locker.fail_on_lock(3);
  WiringLimits limits = small_limits();
  limits.reserve_bytes = 0;
  WiringReport report =
      wire_region(region.all(), limits, locker, []() -> Result<uint64_t> { return uint64_t{0}; });
  EXPECT_EQ(report.stop, WiringStop::kLockFailed);
  EXPECT_EQ(report.wired_bytes, 16384u);  // chunks 1 and 2
  EXPECT_EQ(report.detail,
            "wired 0.00 GiB in 2 of 5 chunks; stopped: chunk 3 could not be locked: mlock: Cannot "
            "allocate memory");
}

TEST(HostWeightWiring, UnknownWiredTotalUndoesTheLastChunk) {
  Region region;
  FakeLocker locker(region.memory);
  int readings = 0;
  WiringReport report =
      wire_region(region.all(), small_limits(), locker, [&]() -> Result<uint64_t> {
        if (++readings == 3) return Error("/proc/meminfo: no Mlocked line");
        return uint64_t{0};
      });
  // Readings: before chunk 1, after chunk 1, after chunk 2 (fails).
  EXPECT_EQ(report.stop, WiringStop::kWiredTotalUnknown);
  EXPECT_EQ(report.wired_bytes, 8192u);
  EXPECT_EQ(locker.locked_bytes(), 8192u);
  EXPECT_EQ(report.detail,
            "wired 0.00 GiB in 1 of 5 chunks; stopped after chunk 2: the system's wired total is "
            "unknown: /proc/meminfo: no Mlocked line; that chunk was unlocked");
}

// Without a reading function the OS's own total is read. A limit of
// UINT64_MAX - 0 is above any real total, so on Linux (/proc/meminfo
// Mlocked) and macOS all five chunks wire: 5 x 8192 = 40960 bytes. Other
// systems report no total: nothing is wired.
TEST(HostWeightWiring, WithoutAReadingTheSystemsTotalIsRead) {
  Region region;
  FakeLocker locker(region.memory);
  WiringLimits limits = small_limits();
  limits.ram_total_bytes = UINT64_MAX;
  limits.reserve_bytes = 0;
  WiringReport report = wire_region(region.all(), limits, locker);
#if defined(__linux__) || defined(__APPLE__)
  EXPECT_EQ(report.stop, WiringStop::kComplete) << report.detail;
  EXPECT_EQ(report.wired_bytes, 40960u);
  EXPECT_EQ(report.chunks_wired, 5u);
#else
  EXPECT_EQ(report.stop, WiringStop::kWiredTotalUnknown);
  EXPECT_EQ(report.wired_bytes, 0u);
#endif
}

TEST(HostWeightWiring, ChunkBoundariesSitOnPages) {
  Region region;
  FakeLocker locker(region.memory);
  WiringLimits limits = small_limits();
  limits.reserve_bytes = 0;
  limits.chunk_bytes = 5000;  // rounded up to two pages, 8192
  // 20000 bytes starting 1000 bytes into the first page: chunks end on the
  // page boundaries 8192 and 16384 (region offsets 7192 and 15192), so no
  // page belongs to two chunks: lengths 7192, 8192, 4616.
  std::span<std::byte> unaligned = region.all().subspan(1000, 20000);
  WiringReport report =
      wire_region(unaligned, limits, locker, []() -> Result<uint64_t> { return uint64_t{0}; });
  EXPECT_EQ(report.chunks_total, 3u);
  EXPECT_EQ(report.wired_bytes, 20000u);
  const std::vector<FakeLocker::Call> expected = {
      {"lock", 1000, 7192}, {"lock", 8192, 8192}, {"lock", 16384, 4616}};
  EXPECT_EQ(locker.calls(), expected);
}

TEST(HostWeightWiring, UnwireUnlocksTheWiredPrefix) {
  Region region;
  FakeLocker locker(region.memory);
  WiringReport report;
  report.wired_bytes = 16384;
  unwire_region(region.all(), report, locker);
  const std::vector<FakeLocker::Call> expected = {{"unlock", 0, 16384}};
  EXPECT_EQ(locker.calls(), expected);
}

TEST(HostWeightWiring, EmptyRegionIsComplete) {
  Region region;
  FakeLocker locker(region.memory);
  WiringReport report =
      wire_region({}, small_limits(), locker, []() -> Result<uint64_t> { return uint64_t{0}; });
  EXPECT_EQ(report.stop, WiringStop::kComplete);
  EXPECT_EQ(report.chunks_total, 0u);
}

TEST(HostWeightWiring, DefaultLimitsUseTheMacReserveAndGibChunks) {
  // 64 GiB: reserve = ceil(68719476736 x 0.15) = 10307921511.
  WiringLimits limits = default_wiring_limits(68719476736);
  EXPECT_EQ(limits.ram_total_bytes, 68719476736u);
  EXPECT_EQ(limits.reserve_bytes, 10307921511u);
  EXPECT_EQ(limits.chunk_bytes, 1073741824u);
}

#ifdef __linux__
// This process's locked bytes (VmLck), the "system" total of these tests:
// the child is the only locker they control.
Result<uint64_t> own_locked_bytes() {
  std::optional<uint64_t> locked = read_process_gauges("/").wired_bytes;
  if (!locked) return Error("/proc/self/status: no VmLck");
  return *locked;
}

// AddressSanitizer replaces mlock() with a no-op; these tests then have
// nothing to measure.
bool mlock_takes_effect() {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* memory = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return false;
  const bool locked = ::mlock(memory, page) == 0 && own_locked_bytes().ok() &&
                      own_locked_bytes().value() >= page;
  ::munlock(memory, page);
  ::munmap(memory, page);
  return locked;
}

// Runs `body` in a forked child without CAP_IPC_LOCK (root would otherwise
// bypass RLIMIT_MEMLOCK) and under an RLIMIT_MEMLOCK of `memlock_bytes`;
// returns what the child wrote to its pipe.
template <typename Body>
std::string run_in_child(uint64_t memlock_bytes, Body body) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct caps[2]{};
    if (::syscall(SYS_capget, &header, caps) == 0) {
      caps[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
      ::syscall(SYS_capset, &header, caps);
    }
    rlimit limit{memlock_bytes, memlock_bytes};
    std::string out = ::setrlimit(RLIMIT_MEMLOCK, &limit) != 0 ? "setrlimit failed"
                      : !mlock_takes_effect()                  ? "mlock is a no-op"
                                                               : body();
    (void)!::write(fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}


TEST(HostWeightWiring, RealMlockStopsAtRlimitMemlock) {
  // RLIMIT_MEMLOCK 64 KiB, chunks of 16 KiB over 256 KiB: four chunks
  // (65536 bytes) lock, the fifth would take 80 KiB and mlock refuses it.
  const std::string out = run_in_child(65536, [] {
    const size_t length = 256 * 1024;
    void* memory =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return std::string("mmap failed");
    std::memset(memory, 1, length);
    std::unique_ptr<MemoryLocker> locker = make_real_memory_locker();
    WiringLimits limits;
    limits.ram_total_bytes = UINT64_MAX;
    limits.chunk_bytes = 16384;
    WiringReport report =
        wire_region({static_cast<std::byte*>(memory), length}, limits, *locker, own_locked_bytes);
    const uint64_t locked_after = own_locked_bytes().value();
    return std::string(wiring_stop_name(report.stop)) + " " + std::to_string(report.wired_bytes) +
           " " + std::to_string(report.chunks_wired) + " " + std::to_string(locked_after) + " | " +
           report.detail;
  });
  if (out == "setrlimit failed") GTEST_SKIP() << "RLIMIT_MEMLOCK cannot be set to 64 KiB here";
  if (out == "mlock is a no-op") GTEST_SKIP() << "mlock() does nothing here (AddressSanitizer?)";
  EXPECT_EQ(out,
            "lock_failed 65536 4 65536 | wired 0.00 GiB in 4 of 16 chunks; stopped: chunk 5 could "
            "not be locked: mlock: Cannot allocate memory");
}

TEST(HostWeightWiring, RealMlockUnlocksTheChunkThatCrossesTheLimit) {
  // RLIMIT_MEMLOCK 64 KiB leaves room for the three chunks locked at the
  // peak. Limit RAM - reserve = 40960 bytes of locked memory; chunks of 16 KiB:
  // after chunk 2 the process holds 32768 locked, after chunk 3 49152 >
  // 40960, so chunk 3 is unlocked and VmLck reads 32768 again.
  const std::string out = run_in_child(65536, [] {
    const size_t length = 64 * 1024;
    void* memory =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return std::string("mmap failed");
    std::unique_ptr<MemoryLocker> locker = make_real_memory_locker();
    WiringLimits limits;
    limits.ram_total_bytes = 40960;
    limits.reserve_bytes = 0;
    limits.chunk_bytes = 16384;
    WiringReport report =
        wire_region({static_cast<std::byte*>(memory), length}, limits, *locker, own_locked_bytes);
    const uint64_t locked_after = own_locked_bytes().value();
    unwire_region({static_cast<std::byte*>(memory), length}, report, *locker);
    const uint64_t locked_unwired = own_locked_bytes().value();
    return std::string(wiring_stop_name(report.stop)) + " " + std::to_string(report.wired_bytes) +
           " " + std::to_string(report.system_wired_bytes) + " " + std::to_string(locked_after) +
           " " + std::to_string(locked_unwired);
  });
  if (out == "setrlimit failed") GTEST_SKIP() << "RLIMIT_MEMLOCK cannot be set to 64 KiB here";
  if (out == "mlock is a no-op") GTEST_SKIP() << "mlock() does nothing here (AddressSanitizer?)";
  EXPECT_EQ(out, "wired_limit 32768 49152 32768 0");
}
#endif

}  // namespace
}  // namespace memfit
