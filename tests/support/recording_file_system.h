// RecordingFileSystem: a FileSystem that forwards to another one and
// records every read, so tests can assert what was (not) read: "only the
// 8-byte prefix and the header, never tensor data".
#ifndef MEMFIT_TESTS_SUPPORT_RECORDING_FILE_SYSTEM_H_
#define MEMFIT_TESTS_SUPPORT_RECORDING_FILE_SYSTEM_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "memfit/file_system.h"

namespace memfit {

// One read_range call, recorded whether or not it succeeded.
struct FileRead {
  std::string path;
  uint64_t offset_bytes = 0;
  uint64_t length_bytes = 0;

  friend bool operator==(const FileRead&, const FileRead&) = default;
  friend void PrintTo(const FileRead& read, std::ostream* out) {  // for GoogleTest
    *out << "{" << read.path << ", " << read.offset_bytes << ", " << read.length_bytes << "}";
  }
};

class RecordingFileSystem : public FileSystem {
 public:
  // `inner` must outlive this object.
  explicit RecordingFileSystem(FileSystem& inner) : inner_(inner) {}

  Result<FileStat> stat(const std::string& path) override;
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override;
  Result<std::vector<std::string>> list_dir(const std::string& path) override;

  const std::vector<FileRead>& reads() const { return reads_; }
  const std::vector<std::string>& stats() const { return stats_; }
  const std::vector<std::string>& listed_dirs() const { return listed_dirs_; }
  // Sum of length_bytes over reads().
  uint64_t bytes_read() const;

 private:
  FileSystem& inner_;
  std::vector<FileRead> reads_;
  std::vector<std::string> stats_;
  std::vector<std::string> listed_dirs_;
};

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_RECORDING_FILE_SYSTEM_H_
