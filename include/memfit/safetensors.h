// safetensors header parsing.
//
// File layout:
//   bytes [0, 8)        N, little-endian uint64: length of the JSON header
//   bytes [8, 8 + N)    JSON object: {"__metadata__": {...}?,
//                         "<tensor>": {"dtype": "BF16", "shape": [..],
//                                      "data_offsets": [begin, end]}, ...}
//   bytes [8 + N, ...)  tensor data; offsets are relative to 8 + N
//
// memfit reads only the first 8 + N bytes.
#ifndef MEMFIT_SAFETENSORS_H_
#define MEMFIT_SAFETENSORS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Largest header memfit accepts: 256 MiB.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 256ull << 20;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t data_bytes = 0;  // data_offsets[1] - data_offsets[0]
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;
  uint64_t data_bytes = 0;  // sum of every tensor's data_bytes
};

// Decodes and validates the 8-byte length prefix. `prefix8` holds the
// file's first bytes (at least 8; bytes past the 8th are ignored);
// `file_bytes` is the whole file's size. Fails on a file shorter than 8
// bytes, N == 0, 8 + N > file_bytes and N > kMaxSafetensorsHeaderBytes.
// Errors read "safetensors header: <detail>", without the path.
Result<uint64_t> parse_safetensors_length(std::string_view prefix8, uint64_t file_bytes);

// Parses the JSON header (the N bytes after the prefix). `data_region_bytes`
// is file_bytes - 8 - N: no tensor may end past it. Validates dtype widths
// against shapes where the width is known, and that offset ranges are
// ordered and do not overlap. "__metadata__" is skipped, whatever it holds.
// Trailing whitespace (writers pad N to a multiple of 8) is accepted.
// Errors read "safetensors header: <detail>", without the path.
Result<SafetensorsHeader> parse_safetensors_header(std::string_view json,
                                                   uint64_t data_region_bytes);

// Bytes per element of a safetensors dtype; 0 for sub-byte or unknown dtypes.
uint64_t safetensors_dtype_width(std::string_view dtype);

// What sizing needs from a header, without the per-tensor list.
struct SafetensorsSummary {
  uint64_t data_bytes = 0;    // sum of every tensor's data_bytes
  uint64_t tensor_count = 0;  // tensors in the header ("__metadata__" excluded)
};

// Reads safetensors headers, reusing one JSON parser and its buffers from
// file to file, so sizing a 163-shard checkpoint allocates a handful of
// times rather than once per tensor. The validation is the same as
// parse_safetensors_header's.
//
// read() and read_summary() open `path` (FileSystem::open_file: its kind
// and size), then read exactly bytes [0, 8) and [8, 8 + N) of it through
// `fs`: never tensor data. Their errors name the file:
// file system errors as the FileSystem words them, format errors as
// "reading '<path>': safetensors header: <detail>".
//
// Not thread-safe: use one reader per thread.
class SafetensorsHeaderReader {
 public:
  SafetensorsHeaderReader();
  ~SafetensorsHeaderReader();
  SafetensorsHeaderReader(const SafetensorsHeaderReader&) = delete;
  SafetensorsHeaderReader& operator=(const SafetensorsHeaderReader&) = delete;

  // The whole header, tensor list included.
  Result<SafetensorsHeader> read(FileSystem& fs, const std::string& path);
  // Totals only; allocates nothing per tensor.
  Result<SafetensorsSummary> read_summary(FileSystem& fs, const std::string& path);

  // As parse_safetensors_header / its summary, on bytes already in memory.
  Result<SafetensorsHeader> parse(std::string_view json, uint64_t data_region_bytes);
  Result<SafetensorsSummary> parse_summary(std::string_view json, uint64_t data_region_bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_SAFETENSORS_H_
