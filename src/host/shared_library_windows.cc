// SharedLibrary over LoadLibrary.
#include <windows.h>

#include "host/shared_library.h"

namespace memfit::host {
namespace {

class WindowsSharedLibrary : public SharedLibrary {
 public:
  explicit WindowsSharedLibrary(HMODULE module) : module_(module) {}
  ~WindowsSharedLibrary() override { ::FreeLibrary(module_); }
  WindowsSharedLibrary(const WindowsSharedLibrary&) = delete;
  WindowsSharedLibrary& operator=(const WindowsSharedLibrary&) = delete;

  void* symbol(const char* name) override {
    return reinterpret_cast<void*>(::GetProcAddress(module_, name));
  }

 private:
  HMODULE module_;
};

}  // namespace

Result<std::unique_ptr<SharedLibrary>> load_shared_library(const std::string& path) {
  // No "cannot find nvml.dll" dialog box on machines without the driver.
  const UINT previous_mode = ::SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  HMODULE module = ::LoadLibraryA(path.c_str());
  const DWORD error = ::GetLastError();
  ::SetErrorMode(previous_mode);
  if (module == nullptr) {
    return Error(path + ": LoadLibrary failed with error " + std::to_string(error));
  }
  return std::unique_ptr<SharedLibrary>(std::make_unique<WindowsSharedLibrary>(module));
}

}  // namespace memfit::host
