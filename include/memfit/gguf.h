// GGUF headers: metadata and tensor infos, never tensor data.
//
// File layout, every number little-endian; a string is a uint64 byte count
// then that many bytes (no NUL):
//   magic        4 bytes, "GGUF"
//   version      uint32: 2 or 3 (they differ only in big-endian support,
//                which memfit refuses; 1 is refused, as llama.cpp does)
//   n_tensors    uint64
//   n_kv         uint64
//   n_kv x       key (string), value type (uint32), value; an array is its
//                element type (uint32), count (uint64), then the elements
//   n_tensors x  name (string), n_dims (uint32, at most 4), n_dims x uint64
//                dims (ne[0], the row, first), ggml type (uint32), offset
//                (uint64, from the start of the data section)
//   padding      to general.alignment (a uint32 key, default 32)
//   data         the tensors, each at its offset
//
// memfit applies ggml's own rules (ggml/src/gguf.cpp), so a header it
// accepts is one llama.cpp accepts: keys non-empty and unique, tensor names
// unique, dims non-negative with fewer than 2^63 elements, each row a whole
// number of its type's blocks, and tensors laid out in order, each at the
// previous one's end padded to the alignment. On top, each tensor must lie
// within the file (llama.cpp checks that when it loads). docs/gguf.md lists
// every rule and its error.
#ifndef MEMFIT_GGUF_H_
#define MEMFIT_GGUF_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/ggml_types.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Largest header memfit reads: 256 MiB, as for safetensors. Real headers
// are a few MiB (a 150,000-token vocabulary is most of it).
inline constexpr uint64_t kMaxGgufHeaderBytes = 256ull << 20;
// Counts past these are refused before anything is stored: real files
// hold tens of keys and at most a few thousand tensors.
inline constexpr uint64_t kMaxGgufMetadataEntries = 1ull << 16;
inline constexpr uint64_t kMaxGgufTensors = 1ull << 20;
// Arrays of numbers or bools up to this many elements keep their elements
// (per-layer head counts, rope sections); longer ones (token scores and
// types) keep their element type and count only.
inline constexpr uint64_t kMaxGgufKeptNumberElements = 1ull << 16;
// The same for arrays of strings (tags, languages; not the vocabulary).
inline constexpr uint64_t kMaxGgufKeptStringElements = 1024;
// Arrays of arrays nest at most this deep (llama.cpp refuses any nesting;
// the format allows it). Their elements are never kept.
inline constexpr uint32_t kMaxGgufArrayDepth = 8;
inline constexpr uint64_t kGgufDefaultAlignmentBytes = 32;
// The first read of a file; it doubles until the header is in.
inline constexpr uint64_t kGgufInitialWindowBytes = 1ull << 20;

// GGUF's value types, by the id the file stores.
enum class GgufValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

// ggml's short names: "u8", "i8", "u16", "i16", "u32", "i32", "f32",
// "bool", "str", "arr", "u64", "i64", "f64".
std::string_view gguf_value_type_name(GgufValueType type);

struct GgufArray {
  GgufValueType element_type = GgufValueType::kUint8;
  uint64_t count = 0;  // elements in the file
  // Whether every element is held below (see the kMaxGgufKept* limits).
  bool kept = false;
  // A kept array of numbers or bools: count x the element's width in
  // bytes, little-endian, as the file stores them. The getters of
  // GgufHeader decode them.
  std::string number_bytes;
  std::vector<std::string> strings;  // a kept array of strings
};

struct GgufValue {
  GgufValueType type = GgufValueType::kUint8;
  // By type: u8..u64 as uint64_t, i8..i64 as int64_t, f32 and f64 as
  // double, bool, str as std::string, arr as GgufArray.
  std::variant<uint64_t, int64_t, double, bool, std::string, GgufArray> data;
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

struct GgufTensorInfo {
  std::string name;
  uint32_t n_dims = 0;                       // 0..4
  std::array<uint64_t, 4> dims{1, 1, 1, 1};  // ne[0..3]; 1 past n_dims
  GgmlType type = GgmlType::kF32;
  uint64_t offset_bytes = 0;  // from the start of the data section
  uint64_t data_bytes = 0;    // exact, from type and dims

  std::span<const uint64_t> shape() const { return {dims.data(), n_dims}; }
};

struct GgufHeader {
  uint32_t version = 3;
  uint64_t file_bytes = 0;
  uint64_t alignment_bytes = kGgufDefaultAlignmentBytes;  // a power of two
  std::vector<GgufKeyValue> metadata;                     // in file order; keys unique
  std::vector<GgufTensorInfo> tensors;                    // in file order; names unique
  // Bytes from the magic to the end of the last tensor info.
  uint64_t header_bytes = 0;
  // Where tensor data starts: header_bytes rounded up to the alignment
  // (header_bytes itself when there is no tensor). Within the file.
  uint64_t data_offset_bytes = 0;
  // Each tensor's bytes rounded up to the alignment, summed: ggml's size of
  // the data section. The last tensor's padding may lie past the file's end.
  uint64_t data_section_bytes = 0;
  // Each tensor's exact bytes, summed: the weights.
  uint64_t tensor_bytes = 0;

  // The value of `key`, or nullptr when absent.
  const GgufValue* find(std::string_view key) const;

  // Typed getters. Each fails, with "gguf metadata: '<key>' ..." naming the
  // key and what it holds, when the key is absent or its value is not of
  // the kind asked. A string_view points into this header.
  // An integer type (u8..u64, i8..i64) holding a value >= 0.
  Result<uint64_t> get_uint64(std::string_view key) const;
  // An integer type holding a value that fits int64_t.
  Result<int64_t> get_int64(std::string_view key) const;
  // f32, f64, or an integer type (converted).
  Result<double> get_float(std::string_view key) const;
  Result<bool> get_bool(std::string_view key) const;
  Result<std::string_view> get_string(std::string_view key) const;
  // An array's element count, whatever its elements and whether kept.
  Result<uint64_t> get_array_count(std::string_view key) const;
  // A kept array, every element as get_uint64 / get_int64 / get_float
  // would take it.
  Result<std::vector<uint64_t>> get_uint64_array(std::string_view key) const;
  Result<std::vector<int64_t>> get_int64_array(std::string_view key) const;
  Result<std::vector<double>> get_float_array(std::string_view key) const;
  // A kept array of strings.
  Result<std::vector<std::string>> get_string_array(std::string_view key) const;
};

// Parses a GGUF header from `bytes`, the first bytes of a file of
// `file_bytes` bytes: the whole file, or a prefix that holds the whole
// header. Fails on anything the layout above or its rules forbid, and when
// the header runs past `bytes`. Nothing is allocated from a count or length
// the file states before the bytes behind it have been checked to exist.
// Errors read "gguf header: <detail>", one line, untrusted text escaped.
Result<GgufHeader> parse_gguf_header(std::string_view bytes, uint64_t file_bytes);

// Reads `path`'s header through `fs` (one FileSystem::open_file, then
// reads of its first bytes): a window of `initial_window_bytes`, doubled,
// or grown to what the header needs, until the header is in; never more
// than the file, nor than kMaxGgufHeaderBytes. The last window may reach
// past the header into the first tensor's data (it is not parsed), but
// never further than max(initial_window_bytes, twice the header). The
// result and errors are parse_gguf_header's on the whole file, whatever the
// window. Errors name the file: file system errors as the FileSystem words
// them, format errors as "reading '<path>': gguf header: <detail>".
Result<GgufHeader> read_gguf_header(FileSystem& fs, const std::string& path,
                                    uint64_t initial_window_bytes = kGgufInitialWindowBytes);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_GGUF_H_
