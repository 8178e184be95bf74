// POSIX implementation of FileSystem: stat(2), open(2), pread(2), mmap(2),
// opendir(3), realpath(3).
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

// Mappings of at least this many bytes start on a multiple of it, as the
// kernel places a file mapping of its own accord: a page cache holding
// 2 MiB folios (Linux 6 on ext4, xfs, tmpfs, for files written in large
// chunks) can then map each with one entry, ~10 faults for a 13.5 MB index
// instead of ~200 (0.4 ms instead of 0.9 ms here).
constexpr size_t kLargeMappingAlignBytes = size_t{2} << 20;

// An anonymous, readable, zero-filled range of `range_bytes` (a multiple of
// the page size) that starts on a multiple of `align_bytes` (a power of two,
// at least a page); nullptr with errno set on failure.
char* reserve_aligned(size_t range_bytes, size_t align_bytes, size_t page_bytes) {
  const size_t slack_bytes = align_bytes - page_bytes;
  void* raw =
      ::mmap(nullptr, range_bytes + slack_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t raw_start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t raw_end = raw_start + range_bytes + slack_bytes;
  const uintptr_t start = (raw_start + align_bytes - 1) & ~(uintptr_t{align_bytes} - 1);
  if (start > raw_start) ::munmap(raw, start - raw_start);
  if (raw_end > start + range_bytes) {
    ::munmap(reinterpret_cast<void*>(start + range_bytes), raw_end - (start + range_bytes));
  }
  return reinterpret_cast<char*>(start);
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

  // Layout of the address range returned, in pages:
  //   [file pages: the text, then zeros to the page's end][anonymous zero pages]
  // The text's pages are the page cache's own (mapped read-only, private),
  // so nothing is copied or allocated for them. An anonymous reservation
  // of text + padding is made first (2 MiB-aligned for a large file) and
  // the file is mapped over its start, so the padding is readable even
  // when the text ends at a page boundary.
  // What cannot be mapped that way (an empty file, a prefix, a file that is
  // not regular, a file system without mmap) is read into a buffer instead.
  Result<FileBytes> read_file_padded(const std::string& path, uint64_t length_bytes,
                                     size_t padding_bytes) override {
    if (length_bytes == 0) return FileSystem::read_file_padded(path, length_bytes, padding_bytes);
    const size_t page_bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    if (length_bytes > std::numeric_limits<size_t>::max() - padding_bytes - page_bytes -
                           kLargeMappingAlignBytes) {
      return Error(quote_untrusted(path) + ": " + std::to_string(length_bytes) +
                   " bytes do not fit in memory");
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return posix_error(path, errno);
    struct ::stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return posix_error(path, err);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return FileSystem::read_file_padded(path, length_bytes, padding_bytes);
    }
    if (static_cast<uint64_t>(st.st_size) < length_bytes) {
      ::close(fd);
      return Error(quote_untrusted(path) + ": file ends at byte " + std::to_string(st.st_size) +
                   ", expected " + std::to_string(length_bytes));
    }
    if (static_cast<uint64_t>(st.st_size) > length_bytes) {
      // A prefix: the rest of its last page would show the file's next
      // bytes, not the zeros promised.
      ::close(fd);
      return FileSystem::read_file_padded(path, length_bytes, padding_bytes);
    }
    const size_t text_bytes = static_cast<size_t>(length_bytes);
    const size_t range_bytes =
        (text_bytes + padding_bytes + page_bytes - 1) / page_bytes * page_bytes;
    const size_t align_bytes =
        text_bytes >= kLargeMappingAlignBytes ? kLargeMappingAlignBytes : page_bytes;
    char* range = reserve_aligned(range_bytes, std::max(align_bytes, page_bytes), page_bytes);
    if (range == nullptr) {
      int err = errno;
      ::close(fd);
      return posix_error(path, err);
    }
    void* text = ::mmap(range, text_bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    ::close(fd);  // the mapping keeps the file open
    if (text == MAP_FAILED) {
      ::munmap(range, range_bytes);
      return FileSystem::read_file_padded(path, length_bytes, padding_bytes);
    }
    std::shared_ptr<const void> owner(range, [range_bytes](const void* start) {
      ::munmap(const_cast<void*>(start), range_bytes);
    });
    return FileBytes(static_cast<const char*>(range), length_bytes, std::move(owner));
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
