// The portable part of FileSystem: what an implementation need not override.
#include <cstring>
#include <limits>
#include <memory>

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

}  // namespace memfit
