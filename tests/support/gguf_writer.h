// Writing GGUF v3 files for tests: small, or sparse and nominally huge.
//
// Files are laid out as llama.cpp's gguf-py writer lays them out: the
// preamble, the metadata in the order added, the tensor infos in the order
// added, zero padding to the alignment, then each tensor's data followed
// by zero padding to the alignment. The bytes are encoded here, byte by
// byte, independently of the library's parser (only a tensor's default
// size comes from the library's ggml type table; the tests of that table
// assert hand-worked sizes).
#ifndef MEMFIT_TESTS_SUPPORT_GGUF_WRITER_H_
#define MEMFIT_TESTS_SUPPORT_GGUF_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/ggml_types.h"

namespace memfit {

// Encoders of GGUF's little-endian pieces, for hand-made (and broken) bytes.
std::string gguf_le16(uint16_t value);
std::string gguf_le32(uint32_t value);
std::string gguf_le64(uint64_t value);
std::string gguf_string(std::string_view text);  // uint64 length, then the bytes
// An array value's prefix: element type id, then the count.
std::string gguf_array_prefix(uint32_t element_type, uint64_t count);

// GGUF's value type ids, for add_raw and gguf_array_prefix.
namespace gguf_type {
inline constexpr uint32_t kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6,
                          kBool = 7, kStr = 8, kArr = 9, kU64 = 10, kI64 = 11, kF64 = 12;
}  // namespace gguf_type

struct GgufTensorSpec {
  std::string name;
  uint32_t type = 0;  // ggml type id
  std::vector<uint64_t> dims;
  // Bytes of data; when unset, ggml's exact bytes for type and dims.
  std::optional<uint64_t> data_bytes;
  // Offset written in the tensor info; when unset, the previous tensor's
  // end padded to the alignment (0 for the first).
  std::optional<uint64_t> offset_bytes;
};

enum class GgufTensorData {
  kZeros,   // the data section written as zero bytes
  kSparse,  // header written, then the file extended to its full size
            // without writing: a "100 GB" file costs a few blocks
  // Deterministic pseudo-random data (splitmix64, fixed seed; the same
  // bytes on every run): f32 and f16 elements are finite values in
  // (-0.5, 0.5); block-quantized tensors get random quants with every f16
  // scale of the block set to a finite value (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
  // Q2_K..Q6_K); any other type is written as zeros. The values mean
  // nothing: a loader sees ordinary weights, not a hole or a constant.
  kRandom,
};

// A minimal tokenizer block, for files llama.cpp's loader should accept.
enum class GgufTokenizer {
  // tokenizer.ggml.model "llama" (SentencePiece): "<unk>", "<s>", "</s>",
  // the 256 byte tokens "<0x00>".."<0xFF>", then extra normal tokens;
  // scores (f32), token types (i32) and the unk/bos/eos ids.
  kLlama,
  // tokenizer.ggml.model "gpt2" (byte-level BPE): the 256 byte-level
  // symbols (GPT-2's byte-to-unicode map, so "\n" is "Ċ"), then extra
  // tokens; token types, an empty merges list, pre "default", bos/eos ids.
  kGpt2,
};

class GgufWriter {
 public:
  GgufWriter& version(uint32_t version);  // default 3

  // Metadata, written in the order added.
  GgufWriter& add_u8(std::string_view key, uint8_t value);
  GgufWriter& add_i8(std::string_view key, int8_t value);
  GgufWriter& add_u16(std::string_view key, uint16_t value);
  GgufWriter& add_i16(std::string_view key, int16_t value);
  GgufWriter& add_u32(std::string_view key, uint32_t value);
  GgufWriter& add_i32(std::string_view key, int32_t value);
  GgufWriter& add_f32(std::string_view key, float value);
  GgufWriter& add_bool(std::string_view key, bool value);
  GgufWriter& add_string(std::string_view key, std::string_view value);
  GgufWriter& add_u64(std::string_view key, uint64_t value);
  GgufWriter& add_i64(std::string_view key, int64_t value);
  GgufWriter& add_f64(std::string_view key, double value);
  GgufWriter& add_u32_array(std::string_view key, const std::vector<uint32_t>& values);
  GgufWriter& add_i32_array(std::string_view key, const std::vector<int32_t>& values);
  GgufWriter& add_f32_array(std::string_view key, const std::vector<float>& values);
  GgufWriter& add_string_array(std::string_view key, const std::vector<std::string>& values);
  // A value given as its encoded bytes after the type id (any type, even
  // an unknown one; nested arrays; broken values).
  GgufWriter& add_raw(std::string_view key, uint32_t type, std::string_view value_bytes);
  // general.alignment (u32), also used to lay the file out.
  GgufWriter& alignment(uint32_t alignment_bytes);
  GgufWriter& add_tokenizer(GgufTokenizer tokenizer, uint32_t extra_tokens = 0);

  GgufWriter& add_tensor(GgufTensorSpec tensor);
  GgufWriter& add_tensor(std::string_view name, GgmlType type, std::vector<uint64_t> dims);

  // The preamble, metadata and tensor infos, then padding to the alignment
  // when there is a tensor: where the data section starts.
  std::string header() const;
  // The data section: each tensor padded to the alignment (from the last
  // tensor's offset when offsets were given).
  uint64_t data_section_bytes() const;
  // header().size() + data_section_bytes().
  uint64_t file_bytes() const;
  // The whole file in memory, the data zero.
  std::string bytes() const;
  // Writes the file at `path` (replacing it); returns its size. Aborts on
  // I/O failure.
  uint64_t write(const std::string& path, GgufTensorData data = GgufTensorData::kSparse) const;

 private:
  uint64_t tensor_bytes(const GgufTensorSpec& tensor) const;

  uint32_t version_ = 3;
  uint64_t alignment_bytes_ = 32;
  uint64_t entry_count_ = 0;
  std::string entries_;  // the encoded metadata
  std::vector<GgufTensorSpec> tensors_;
};

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_GGUF_WRITER_H_
