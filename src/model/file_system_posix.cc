// POSIX implementation of FileSystem: stat(2), open(2), pread(2),
// opendir(3), realpath(3). No file is mapped (read_file_padded says why).
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "memfit/untrusted_text.h"
#include "memfit/file_system.h"

namespace memfit {
namespace {

Error posix_error(const std::string& path, int err) {
  return Error(quote_untrusted(path) + ": " + std::strerror(err));
}

FileStat file_stat(const struct ::stat& st) {
  FileStat out;
  if (S_ISREG(st.st_mode)) {
    out.kind = FileKind::kRegular;
    out.size_bytes = static_cast<uint64_t>(st.st_size);
  } else if (S_ISDIR(st.st_mode)) {
    out.kind = FileKind::kDirectory;
  } else {
    out.kind = FileKind::kOther;
  }
  return out;
}

// Reads exactly `length_bytes` at `offset_bytes` of the open `fd`.
Status pread_exactly(int fd, const std::string& path, uint64_t offset_bytes,
                     uint64_t length_bytes, char* destination) {
  uint64_t done = 0;
  while (done < length_bytes) {
    ssize_t n = ::pread(fd, destination + done, length_bytes - done,
                        static_cast<off_t>(offset_bytes + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return posix_error(path, errno);
    }
    if (n == 0) {
      return Error(quote_untrusted(path) + ": file ends at byte " +
                   std::to_string(offset_bytes + done) + ", expected " +
                   std::to_string(offset_bytes + length_bytes));
    }
    done += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// A file descriptor open for reading (or none, for a path that is missing
// or not a regular file), closed on destruction.
class PosixOpenFile : public OpenFile {
 public:
  PosixOpenFile(int fd, std::string path, FileStat stat)
      : fd_(fd), path_(std::move(path)), stat_(stat) {}
  ~PosixOpenFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  PosixOpenFile(const PosixOpenFile&) = delete;
  PosixOpenFile& operator=(const PosixOpenFile&) = delete;

  FileStat stat() const override { return stat_; }
  Status read_range_into(uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override {
    if (fd_ < 0) return Error(quote_untrusted(path_) + ": not a regular file");
    return pread_exactly(fd_, path_, offset_bytes, length_bytes, destination);
  }

 private:
  int fd_;
  std::string path_;
  FileStat stat_;
};

// A buffer of at least this many bytes is advised to use huge pages where
// the kernel offers them (Linux transparent huge pages): a fresh 13.5 MB
// buffer then cost ~225 page faults here instead of ~3,300, which in a
// short-lived process cost more than the read itself (docs/performance.md).
// A buffer the allocator reuses costs none.
constexpr size_t kLargeBufferBytes = size_t{2} << 20;

// `bytes` writable bytes (not zeroed); nullptr when memory is short.
std::unique_ptr<char[]> allocate_buffer(size_t bytes) {
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[bytes]);
#ifdef MADV_HUGEPAGE
  if (buffer != nullptr && bytes >= kLargeBufferBytes) {
    // The whole pages inside the buffer; advice: a failure changes nothing.
    const uintptr_t page_bytes = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t start = reinterpret_cast<uintptr_t>(buffer.get());
    const uintptr_t first = (start + page_bytes - 1) / page_bytes * page_bytes;
    const uintptr_t end = (start + bytes) / page_bytes * page_bytes;
    if (end > first) (void)::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
  }
#endif
  return buffer;
}

class PosixFileSystem : public FileSystem {
 public:
  Result<FileStat> stat(const std::string& path) override {
    struct ::stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return FileStat{};
      return posix_error(path, errno);
    }
    return file_stat(st);
  }

  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override {
    std::string buffer;
    buffer.resize(length_bytes);
    if (Status status = read_range_into(path, offset_bytes, length_bytes, buffer.data());
        !status.ok()) {
      return status.error();
    }
    return buffer;
  }

  Status read_range_into(const std::string& path, uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return posix_error(path, errno);
    Status read = pread_exactly(fd, path, offset_bytes, length_bytes, destination);
    ::close(fd);
    return read;
  }

  // open(2) then fstat(2), rather than stat(2) then open(2): one path
  // lookup. O_NONBLOCK so that a FIFO does not block the open (regular
  // files ignore it); O_NOCTTY so that a terminal does not become ours.
  Result<std::unique_ptr<OpenFile>> open_file(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return std::unique_ptr<OpenFile>(std::make_unique<PosixOpenFile>(-1, path, FileStat{}));
      }
      return posix_error(path, errno);
    }
    struct ::stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return posix_error(path, err);
    }
    const FileStat stat = file_stat(st);
    if (stat.kind != FileKind::kRegular) {
      ::close(fd);
      fd = -1;
    }
    return std::unique_ptr<OpenFile>(std::make_unique<PosixOpenFile>(fd, path, stat));
  }

  // Read, never mapped: a mapped page past the end of a file that another
  // process truncates raises SIGBUS when touched, which would kill the
  // process memfit runs in. One open(2): fstat(2) checks the size before
  // anything is allocated (a file shorter than asked fails there), then
  // pread(2) fills a buffer of exactly length + padding bytes, so a file
  // that shrinks during the read fails as read_range does.
  Result<FileBytes> read_file_padded(const std::string& path, uint64_t length_bytes,
                                     size_t padding_bytes) override {
    if (length_bytes > std::numeric_limits<size_t>::max() - padding_bytes) {
      return Error(quote_untrusted(path) + ": " + std::to_string(length_bytes) +
                   " bytes do not fit in memory");
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return posix_error(path, errno);
    struct ::stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return posix_error(path, err);
    }
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) < length_bytes) {
      ::close(fd);
      return Error(quote_untrusted(path) + ": file ends at byte " + std::to_string(st.st_size) +
                   ", expected " + std::to_string(length_bytes));
    }
    const size_t text_bytes = static_cast<size_t>(length_bytes);
    // Not zero-filled: the read overwrites the text, the padding is set below.
    std::unique_ptr<char[]> buffer = allocate_buffer(text_bytes + padding_bytes);
    if (buffer == nullptr) {
      ::close(fd);
      return Error(quote_untrusted(path) + ": " + std::to_string(length_bytes) +
                   " bytes do not fit in memory");
    }
    Status read = pread_exactly(fd, path, 0, length_bytes, buffer.get());
    ::close(fd);
    if (!read.ok()) return read.error();
    std::memset(buffer.get() + text_bytes, 0, padding_bytes);
    const char* data = buffer.get();
    return FileBytes(data, length_bytes, std::shared_ptr<const char[]>(std::move(buffer)));
  }

  Result<std::vector<std::string>> list_dir(const std::string& path) override {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return posix_error(path, errno);
    std::vector<std::string> names;
    while (struct dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      names.push_back(std::move(name));
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<std::optional<std::string>> real_path(const std::string& path) override {
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
      return posix_error(path, errno);
    }
    std::string out = resolved;
    std::free(resolved);
    return std::optional<std::string>(std::move(out));
  }

  bool allows_concurrent_calls() const override { return true; }
};

}  // namespace

std::unique_ptr<FileSystem> make_real_file_system() { return std::make_unique<PosixFileSystem>(); }

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace memfit
