// The portable part of FileSystem: what an implementation need not override.
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "memfit/file_system.h"

namespace memfit {

Status FileSystem::read_range_into(const std::string& path, uint64_t offset_bytes,
                                   uint64_t length_bytes, char* destination) {
  Result<std::string> read = read_range(path, offset_bytes, length_bytes);
  if (!read.ok()) return read.error();
  // read_range returns exactly length_bytes on success.
  if (length_bytes != 0) std::memcpy(destination, read->data(), read->size());
  return Status::Ok();
}

namespace {

// The default OpenFile: the path, and the file system's own calls.
class PathFile : public OpenFile {
 public:
  PathFile(FileSystem& fs, std::string path, FileStat stat)
      : fs_(fs), path_(std::move(path)), stat_(stat) {}

  FileStat stat() const override { return stat_; }
  Status read_range_into(uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override {
    return fs_.read_range_into(path_, offset_bytes, length_bytes, destination);
  }

 private:
  FileSystem& fs_;
  std::string path_;
  FileStat stat_;
};

}  // namespace

Result<std::unique_ptr<OpenFile>> FileSystem::open_file(const std::string& path) {
  Result<FileStat> stat = this->stat(path);
  if (!stat.ok()) return stat.error();
  return std::unique_ptr<OpenFile>(std::make_unique<PathFile>(*this, path, *stat));
}

Result<FileBytes> FileSystem::read_file_padded(const std::string& path, uint64_t length_bytes,
                                              size_t padding_bytes) {
  if (length_bytes > std::numeric_limits<size_t>::max() - padding_bytes) {
    return Error(path + ": " + std::to_string(length_bytes) + " bytes do not fit in memory");
  }
  const size_t text_bytes = static_cast<size_t>(length_bytes);
  // Not zero-filled: the read overwrites the text, the padding is set below.
  auto buffer = std::make_unique_for_overwrite<char[]>(text_bytes + padding_bytes);
  if (Status read = read_range_into(path, 0, length_bytes, buffer.get()); !read.ok()) {
    return read.error();
  }
  std::memset(buffer.get() + text_bytes, 0, padding_bytes);
  const char* data = buffer.get();
  return FileBytes(data, length_bytes, std::shared_ptr<const char[]>(std::move(buffer)));
}

Result<std::optional<std::string>> FileSystem::real_path(const std::string& path) {
  Result<FileStat> stat = this->stat(path);
  if (!stat.ok()) return stat.error();
  if (stat->kind == FileKind::kMissing) return std::optional<std::string>();
  return std::optional<std::string>(path);
}

}  // namespace memfit
