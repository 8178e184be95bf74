// SharedLibrary over dlopen(3).
#include <dlfcn.h>

#include "host/shared_library.h"

namespace memfit::host {
namespace {

class PosixSharedLibrary : public SharedLibrary {
 public:
  explicit PosixSharedLibrary(void* handle) : handle_(handle) {}
  ~PosixSharedLibrary() override { ::dlclose(handle_); }
  PosixSharedLibrary(const PosixSharedLibrary&) = delete;
  PosixSharedLibrary& operator=(const PosixSharedLibrary&) = delete;

  void* symbol(const char* name) override { return ::dlsym(handle_, name); }

 private:
  void* handle_;
};

}  // namespace

Result<std::unique_ptr<SharedLibrary>> load_shared_library(const std::string& path) {
  // RTLD_LOCAL: the vendor's symbols must not satisfy anyone else's.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* message = ::dlerror();
    return Error(message != nullptr ? std::string(message) : path + ": cannot be loaded");
  }
  return std::unique_ptr<SharedLibrary>(std::make_unique<PosixSharedLibrary>(handle));
}

}  // namespace memfit::host
