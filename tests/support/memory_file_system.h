// MemoryFileSystem: a FileSystem over files held in memory, for tests that
// read many variants of a file (every window size, every prefix) without
// touching the disk. Folders are implied by the files' paths.
#ifndef MEMFIT_TESTS_SUPPORT_MEMORY_FILE_SYSTEM_H_
#define MEMFIT_TESTS_SUPPORT_MEMORY_FILE_SYSTEM_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "memfit/file_system.h"

namespace memfit {

class MemoryFileSystem : public FileSystem {
 public:
  // Adds or replaces the file at `path` ("dir/name").
  void add_file(const std::string& path, std::string bytes) { files_[path] = std::move(bytes); }

  Result<FileStat> stat(const std::string& path) override;
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override;
  Result<std::vector<std::string>> list_dir(const std::string& path) override;

 private:
  std::map<std::string, std::string> files_;
};

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_MEMORY_FILE_SYSTEM_H_
