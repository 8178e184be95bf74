// MemoryLocker over mlock(2) / munlock(2).
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "memfit/weight_wiring.h"

namespace memfit {
namespace {

class PosixMemoryLocker : public MemoryLocker {
 public:
  Status lock(std::byte* begin, uint64_t length_bytes) override {
    if (::mlock(begin, length_bytes) != 0)
      return Error(std::string("mlock: ") + std::strerror(errno));
    return Status::Ok();
  }
  void unlock(std::byte* begin, uint64_t length_bytes) override { ::munlock(begin, length_bytes); }
  uint64_t page_bytes() const override { return static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)); }
};

}  // namespace

std::unique_ptr<MemoryLocker> make_real_memory_locker() {
  return std::make_unique<PosixMemoryLocker>();
}

}  // namespace memfit
