// POSIX implementation of FileSystem: stat(2), pread(2), opendir(3).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "memfit/untrusted_text.h"
#include "memfit/file_system.h"

namespace memfit {
namespace {

Error posix_error(const std::string& path, int err) {
  return Error(quote_untrusted(path) + ": " + std::strerror(err));
}

class PosixFileSystem : public FileSystem {
 public:
  Result<FileStat> stat(const std::string& path) override {
    struct ::stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return FileStat{};
      return posix_error(path, errno);
    }
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
    uint64_t done = 0;
    while (done < length_bytes) {
      ssize_t n = ::pread(fd, destination + done, length_bytes - done,
                          static_cast<off_t>(offset_bytes + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return posix_error(path, err);
      }
      if (n == 0) {
        ::close(fd);
        return Error(quote_untrusted(path) + ": file ends at byte " +
                     std::to_string(offset_bytes + done) + ", expected " +
                     std::to_string(offset_bytes + length_bytes));
      }
      done += static_cast<uint64_t>(n);
    }
    ::close(fd);
    return Status::Ok();
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
