// HostFiles: the narrow interface through which the Linux host probe reads
// /proc and /sys, so tests can point it at a fake tree on disk.
#ifndef MEMFIT_SRC_HOST_HOST_FILES_H_
#define MEMFIT_SRC_HOST_HOST_FILES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "memfit/result.h"

namespace memfit::host {

// Kernel files under /proc and /sys are a few KiB; anything larger than
// this is not one of them and is refused rather than read.
inline constexpr uint64_t kMaxHostFileBytes = 1ull << 20;

class HostFiles {
 public:
  virtual ~HostFiles() = default;
  // The whole text of `path` (absolute, as on the host: "/proc/meminfo").
  // nullopt when it does not exist (absence is normal: no cgroup file at
  // the root, no MemAvailable before Linux 3.14); an Error when it exists
  // but cannot be read or exceeds kMaxHostFileBytes.
  virtual Result<std::optional<std::string>> read(const std::string& path) = 0;
};

// Reads `sysroot + path` from the real file system ("/" reads the host
// itself).
class SysrootFiles : public HostFiles {
 public:
  explicit SysrootFiles(std::string sysroot);
  Result<std::optional<std::string>> read(const std::string& path) override;

 private:
  std::string sysroot_;
};

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_HOST_FILES_H_
