// SharedLibrary: a library loaded at run time (dlopen / LoadLibrary), so
// memfit has no build-time or link-time dependency on GPU vendors.
#ifndef MEMFIT_SRC_HOST_SHARED_LIBRARY_H_
#define MEMFIT_SRC_HOST_SHARED_LIBRARY_H_

#include <memory>
#include <string>

#include "memfit/result.h"

namespace memfit::host {

class SharedLibrary {
 public:
  // Unloads the library (dlclose / FreeLibrary): every symbol taken from it
  // must be dead by then.
  virtual ~SharedLibrary() = default;
  // The address of an exported symbol; nullptr when it is not exported.
  virtual void* symbol(const char* name) = 0;
};

// Loads a library by path or by bare name (the platform's search rules).
// Fails with the loader's message when it cannot be loaded.
Result<std::unique_ptr<SharedLibrary>> load_shared_library(const std::string& path);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_SHARED_LIBRARY_H_
