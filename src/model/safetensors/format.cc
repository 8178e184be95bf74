// The fixed parts of the safetensors format: the length prefix and the
// element width of each dtype.
//
// File layout (see include/memfit/safetensors.h):
//   bytes [0, 8)        N, little-endian uint64
//   bytes [8, 8 + N)    JSON header, N bytes (writers pad it with spaces)
//   bytes [8 + N, end)  tensor data region
#include <fmt/format.h>

#include "memfit/safetensors.h"

namespace memfit {
namespace {

constexpr uint64_t kLengthPrefixBytes = 8;

Error length_error(std::string detail) {
  return Error(fmt::format("safetensors header: {}", detail));
}

}  // namespace

Result<uint64_t> parse_safetensors_length(std::string_view prefix8, uint64_t file_bytes) {
  if (file_bytes < kLengthPrefixBytes) {
    return length_error(
        fmt::format("file is {} bytes, shorter than the 8-byte length prefix", file_bytes));
  }
  if (prefix8.size() < kLengthPrefixBytes) {
    return length_error(fmt::format("length prefix is {} bytes, expected 8", prefix8.size()));
  }
  uint64_t header_bytes = 0;
  for (size_t i = 0; i < kLengthPrefixBytes; ++i) {
    header_bytes |= uint64_t{static_cast<unsigned char>(prefix8[i])} << (8 * i);
  }
  if (header_bytes == 0) {
    return length_error("length is 0 bytes; even an empty header is '{}'");
  }
  // Checked before the size cap so a truncated file reads as truncated.
  if (header_bytes > file_bytes - kLengthPrefixBytes) {
    return length_error(fmt::format("length {} bytes runs past the end of the {}-byte file",
                                    header_bytes, file_bytes));
  }
  if (header_bytes > kMaxSafetensorsHeaderBytes) {
    return length_error(fmt::format("length {} bytes exceeds the {}-byte (256 MiB) limit",
                                    header_bytes, kMaxSafetensorsHeaderBytes));
  }
  return header_bytes;
}

// The dtypes of the safetensors spec with a whole-byte width. Sub-byte
// types (F4, F6_E2M3, F6_E3M2, ...) and anything unknown are 0: their
// data_offsets are trusted as they are. Dispatched on length first: this
// runs once per tensor, 140,000 times for a large MoE checkpoint.
uint64_t safetensors_dtype_width(std::string_view dtype) {
  switch (dtype.size()) {
    case 2:
      return dtype == "I8" || dtype == "U8" ? 1 : 0;
    case 3:
      if (dtype == "F16" || dtype == "I16" || dtype == "U16") return 2;
      if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
      if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
      return 0;
    case 4:
      if (dtype == "BF16") return 2;
      return dtype == "BOOL" ? 1 : 0;
    case 7:
      return dtype == "F8_E4M3" || dtype == "F8_E5M2" || dtype == "F8_E8M0" ? 1 : 0;
    default:
      return 0;
  }
}

}  // namespace memfit
