#include "support/memory_file_system.h"

#include <set>

namespace memfit {

Result<FileStat> MemoryFileSystem::stat(const std::string& path) {
  if (auto file = files_.find(path); file != files_.end()) {
    return FileStat{FileKind::kRegular, file->second.size()};
  }
  const std::string folder = path.ends_with('/') ? path : path + "/";
  auto next = files_.lower_bound(folder);
  if (next != files_.end() && next->first.starts_with(folder)) {
    return FileStat{FileKind::kDirectory, 0};
  }
  return FileStat{FileKind::kMissing, 0};
}

Result<std::string> MemoryFileSystem::read_range(const std::string& path, uint64_t offset_bytes,
                                                 uint64_t length_bytes) {
  auto file = files_.find(path);
  if (file == files_.end()) return Error(path + ": no such file");
  const std::string& bytes = file->second;
  if (offset_bytes > bytes.size() || length_bytes > bytes.size() - offset_bytes) {
    return Error(path + ": read past the end of the file");
  }
  return bytes.substr(offset_bytes, length_bytes);
}

Result<std::vector<std::string>> MemoryFileSystem::list_dir(const std::string& path) {
  const std::string folder = path.ends_with('/') ? path : path + "/";
  std::set<std::string> names;
  for (const auto& [file, bytes] : files_) {
    if (!file.starts_with(folder)) continue;
    const std::string rest = file.substr(folder.size());
    names.insert(rest.substr(0, rest.find('/')));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace memfit
