// The portable part of FileSystem: what an implementation need not override.
#include <cstring>

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

}  // namespace memfit
