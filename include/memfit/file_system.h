// FileSystem: the narrow interface through which memfit reads model files.
//
// memfit reads configs whole and weight files only by header ranges; every
// read goes through this interface so tests can count what was read and
// fuzzers can skip the disk. Implementations are thread-compatible (one
// instance may be used from one thread at a time) unless
// allows_concurrent_calls() says otherwise.
#ifndef MEMFIT_FILE_SYSTEM_H_
#define MEMFIT_FILE_SYSTEM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class FileKind { kMissing, kRegular, kDirectory, kOther };

// A file's first bytes held in memory, followed by padding: readable bytes
// past the end for parsers that read ahead (simdjson). A copy in a buffer
// of its own, never a mapping of the file (which another process could
// truncate under it), released when the last copy is destroyed.
class FileBytes {
 public:
  FileBytes() = default;
  // `data` holds `size_bytes` bytes then the padding; `owner` keeps them
  // alive.
  FileBytes(const char* data, uint64_t size_bytes, std::shared_ptr<const void> owner)
      : data_(data), size_bytes_(size_bytes), owner_(std::move(owner)) {}

  std::string_view view() const { return {data_, static_cast<size_t>(size_bytes_)}; }

 private:
  const char* data_ = nullptr;
  uint64_t size_bytes_ = 0;
  std::shared_ptr<const void> owner_;
};

struct FileStat {
  FileKind kind = FileKind::kMissing;
  uint64_t size_bytes = 0;  // meaningful for kRegular only
};

// A file opened for several reads: its path is looked up once. Closed on
// destruction. Thread-compatible.
class OpenFile {
 public:
  virtual ~OpenFile() = default;

  // The file's kind and size, as FileSystem::stat gives them, when opened.
  virtual FileStat stat() const = 0;

  // As FileSystem::read_range_into, on this file. Only for a file whose
  // stat() is kRegular.
  virtual Status read_range_into(uint64_t offset_bytes, uint64_t length_bytes,
                                 char* destination) = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Follows symlinks. A missing path is kMissing, not an error; other
  // failures (permission denied on a parent, ...) are errors.
  virtual Result<FileStat> stat(const std::string& path) = 0;

  // Reads exactly `length_bytes` starting at `offset_bytes`. Fails when the
  // file is shorter. Callers bound `length_bytes` before calling: it is
  // allocated up front.
  virtual Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                         uint64_t length_bytes) = 0;

  // The same read into `destination`, which holds at least `length_bytes`:
  // a header goes straight into the parser's padded buffer, with no
  // zero-filled intermediate string. The default copies from read_range.
  virtual Status read_range_into(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes, char* destination);

  // Bytes [0, length_bytes) of a file, followed by `padding_bytes` readable
  // bytes (zero), for a document parsed whole where it lies. Fails as
  // read_range does: when the file is shorter, or becomes shorter during
  // the read. Callers bound `length_bytes`: it is allocated. The bytes are
  // read into a buffer, never mapped: if another process truncated a
  // mapped file, touching a page past its new end would raise SIGBUS and
  // end the process memfit runs in. The default reads through
  // read_range_into; the real POSIX file system opens the file once and
  // checks its size before allocating.
  virtual Result<FileBytes> read_file_padded(const std::string& path, uint64_t length_bytes,
                                             size_t padding_bytes);

  // Opens `path` for reading. A path that is missing or not a regular file
  // is an OpenFile of that kind (as stat() would say), not an error; other
  // failures are errors. The default's OpenFile calls stat() and
  // read_range_into() with the path; the real POSIX file system opens the
  // file once (open, fstat, pread): a safetensors header is then read
  // with one path lookup instead of three.
  virtual Result<std::unique_ptr<OpenFile>> open_file(const std::string& path);

  // Names (not paths) of the entries of a directory, sorted, without "." and "..".
  virtual Result<std::vector<std::string>> list_dir(const std::string& path) = 0;

  // The path of the file `path` names with every symbolic link, "." and
  // ".." resolved (absolute on the real file system: realpath(3)); nullopt
  // when it does not exist (a dangling link included). Other failures are
  // errors. The default, for a file system without links: `path` as given
  // when stat() finds it.
  virtual Result<std::optional<std::string>> real_path(const std::string& path);

  // True when several threads may call this instance at once (the real
  // file system holds no state); false by default.
  virtual bool allows_concurrent_calls() const { return false; }
};

// The process's real file system (POSIX or Win32, chosen by the build).
std::unique_ptr<FileSystem> make_real_file_system();

// Joins a directory and a file name with one separator.
std::string join_path(const std::string& dir, const std::string& name);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_FILE_SYSTEM_H_
