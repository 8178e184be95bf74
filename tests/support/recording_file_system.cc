#include "support/recording_file_system.h"

namespace memfit {

Result<FileStat> RecordingFileSystem::stat(const std::string& path) {
  stats_.push_back(path);
  return inner_.stat(path);
}

Result<std::string> RecordingFileSystem::read_range(const std::string& path, uint64_t offset_bytes,
                                                    uint64_t length_bytes) {
  reads_.push_back(FileRead{path, offset_bytes, length_bytes});
  return inner_.read_range(path, offset_bytes, length_bytes);
}

Result<std::vector<std::string>> RecordingFileSystem::list_dir(const std::string& path) {
  listed_dirs_.push_back(path);
  return inner_.list_dir(path);
}

uint64_t RecordingFileSystem::bytes_read() const {
  uint64_t total_bytes = 0;
  for (const FileRead& read : reads_) total_bytes += read.length_bytes;
  return total_bytes;
}

}  // namespace memfit
