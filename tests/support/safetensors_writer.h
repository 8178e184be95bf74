// Writing small (or sparse, nominally huge) safetensors files for tests.
//
// Files are laid out as the reference writer lays them out: the 8-byte
// little-endian length N, compact JSON padded with spaces to a multiple of
// 8 bytes, then the tensors back to back in list order.
#ifndef MEMFIT_TESTS_SUPPORT_SAFETENSORS_WRITER_H_
#define MEMFIT_TESTS_SUPPORT_SAFETENSORS_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memfit {

struct TensorSpec {
  std::string name;
  std::string dtype;
  std::vector<uint64_t> shape;
  // Bytes of data; when unset, prod(shape) x the dtype's width (the dtype
  // must then have a known width).
  std::optional<uint64_t> data_bytes;
};

// The 8-byte little-endian length prefix.
std::string safetensors_length_prefix(uint64_t header_bytes);

// The JSON header for `tensors`, padded with spaces to a multiple of 8
// bytes. `metadata_json`, when not empty, is written as "__metadata__".
std::string safetensors_header_json(const std::vector<TensorSpec>& tensors,
                                    std::string_view metadata_json = "");

// Sum of the tensors' data bytes.
uint64_t safetensors_data_bytes(const std::vector<TensorSpec>& tensors);

// A whole file in memory: prefix, header, zeroed data.
std::string safetensors_file_bytes(const std::vector<TensorSpec>& tensors,
                                   std::string_view metadata_json = "");

enum class TensorData {
  kZeros,   // data region written as zero bytes
  kSparse,  // prefix and header written, then the file extended to its full
            // size without writing: a "100 GB" file costs a few blocks
};

// Writes a safetensors file at `path` (replacing it); returns its size in
// bytes. Aborts on I/O failure.
uint64_t write_safetensors_file(const std::string& path, const std::vector<TensorSpec>& tensors,
                                TensorData data = TensorData::kSparse,
                                std::string_view metadata_json = "");

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_SAFETENSORS_WRITER_H_
