// MemoryLocker over VirtualLock / VirtualUnlock. Windows caps locked pages
// at the process's minimum working set; raising it
// (SetProcessWorkingSetSize) is left to the embedding runtime.
#include <windows.h>

#include "memfit/weight_wiring.h"

namespace memfit {
namespace {

class WindowsMemoryLocker : public MemoryLocker {
 public:
  Status lock(std::byte* begin, uint64_t length_bytes) override {
    if (!::VirtualLock(begin, static_cast<SIZE_T>(length_bytes))) {
      return Error("VirtualLock failed with error " + std::to_string(::GetLastError()));
    }
    return Status::Ok();
  }
  void unlock(std::byte* begin, uint64_t length_bytes) override {
    ::VirtualUnlock(begin, static_cast<SIZE_T>(length_bytes));
  }
  uint64_t page_bytes() const override {
    SYSTEM_INFO info{};
    ::GetSystemInfo(&info);
    return info.dwPageSize;
  }
};

}  // namespace

std::unique_ptr<MemoryLocker> make_real_memory_locker() {
  return std::make_unique<WindowsMemoryLocker>();
}

}  // namespace memfit
