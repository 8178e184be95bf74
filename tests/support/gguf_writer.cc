#include "support/gguf_writer.h"

#include <fmt/format.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

namespace memfit {
namespace {

uint64_t pad(uint64_t bytes, uint64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

std::string le(uint64_t value, int bytes) {
  std::string out(static_cast<size_t>(bytes), '\0');
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

// `code_point` in UTF-8 (below U+10000 here).
std::string utf8(uint32_t code_point) {
  std::string out;
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xe0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3f)));
  }
  return out;
}

// GPT-2's byte-level alphabet: the printable bytes '!'..'~', U+00A1..U+00AC
// and U+00AE..U+00FF stand for themselves; the other 68 bytes, in order,
// for U+0100, U+0101, ... ("\n", byte 10, is the 11th: U+010A, "Ċ").
std::vector<std::string> byte_level_symbols() {
  std::vector<std::string> symbols(256);
  uint32_t next_shifted = 0x100;
  for (uint32_t byte = 0; byte < 256; ++byte) {
    const bool printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) ||
                           (byte >= 0xae && byte <= 0xff);
    symbols[byte] = utf8(printable ? byte : next_shifted++);
  }
  return symbols;
}

// splitmix64 (Steele, Lea, Flood 2014): a fixed, portable sequence.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// A random finite f16 in (-0.5, 0.5): exponent field 1..13 (normal values
// 2^-14 .. 2^-2 x 1.9990), any mantissa, any sign.
uint16_t random_half(SplitMix64& rng) {
  const uint64_t r = rng.next();
  const uint16_t sign = static_cast<uint16_t>((r & 1) << 15);
  const uint16_t exponent = static_cast<uint16_t>(1 + (r >> 1) % 13);
  const uint16_t mantissa = static_cast<uint16_t>((r >> 8) & 0x3ff);
  return static_cast<uint16_t>(sign | (exponent << 10) | mantissa);
}

// Byte offsets of the f16 scales within one block (ggml-common.h).
std::vector<uint64_t> half_offsets(GgmlType type) {
  switch (type) {
    case GgmlType::kQ4_0:
    case GgmlType::kQ5_0:
    case GgmlType::kQ8_0:
      return {0};
    case GgmlType::kQ4_1:
    case GgmlType::kQ5_1:
    case GgmlType::kQ4_K:
    case GgmlType::kQ5_K:
      return {0, 2};
    case GgmlType::kQ2_K:
      return {80, 82};  // scales[16], qs[64], d, dmin
    case GgmlType::kQ3_K:
      return {108};  // hmask[32], qs[64], scales[12], d
    case GgmlType::kQ6_K:
      return {208};  // ql[128], qh[64], scales[16], d
    default:
      return {};
  }
}

// `bytes` of pseudo-random data for a tensor of `type` (see kRandom).
std::string random_tensor_data(uint32_t type_id, uint64_t bytes, SplitMix64& rng) {
  std::string out(bytes, '\0');
  const GgmlTypeTraits* traits = find_ggml_type(type_id);
  if (traits == nullptr) return out;
  auto put_half = [&](uint64_t at) {
    const uint16_t h = random_half(rng);
    out[at] = static_cast<char>(h & 0xff);
    out[at + 1] = static_cast<char>(h >> 8);
  };
  if (traits->type == GgmlType::kF32) {
    for (uint64_t at = 0; at + 4 <= bytes; at += 4) {
      // (-0.5, 0.5) in steps of 2^-24.
      const float value = static_cast<float>(static_cast<int64_t>(rng.next() >> 40) - (1 << 23)) /
                          static_cast<float>(1 << 24);
      const uint32_t bits = std::bit_cast<uint32_t>(value);
      for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>((bits >> (8 * i)) & 0xff);
    }
    return out;
  }
  if (traits->type == GgmlType::kF16) {
    for (uint64_t at = 0; at + 2 <= bytes; at += 2) put_half(at);
    return out;
  }
  const std::vector<uint64_t> halves = half_offsets(traits->type);
  if (halves.empty() || traits->block_bytes == 0) return out;
  for (uint64_t at = 0; at < bytes; at += 8) {
    const uint64_t r = rng.next();
    for (uint64_t i = 0; i < 8 && at + i < bytes; ++i) out[at + i] = static_cast<char>(r >> (8 * i));
  }
  for (uint64_t block = 0; block + traits->block_bytes <= bytes; block += traits->block_bytes) {
    for (uint64_t offset : halves) put_half(block + offset);
  }
  return out;
}

// llama.cpp's token types.
constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;

}  // namespace

std::string gguf_le16(uint16_t value) { return le(value, 2); }
std::string gguf_le32(uint32_t value) { return le(value, 4); }
std::string gguf_le64(uint64_t value) { return le(value, 8); }
std::string gguf_string(std::string_view text) {
  return gguf_le64(text.size()) + std::string(text);
}
std::string gguf_array_prefix(uint32_t element_type, uint64_t count) {
  return gguf_le32(element_type) + gguf_le64(count);
}

GgufWriter& GgufWriter::version(uint32_t version) {
  version_ = version;
  return *this;
}

GgufWriter& GgufWriter::add_raw(std::string_view key, uint32_t type, std::string_view value_bytes) {
  entries_ += gguf_string(key) + gguf_le32(type) + std::string(value_bytes);
  ++entry_count_;
  return *this;
}

GgufWriter& GgufWriter::add_u8(std::string_view key, uint8_t value) {
  return add_raw(key, gguf_type::kU8, le(value, 1));
}
GgufWriter& GgufWriter::add_i8(std::string_view key, int8_t value) {
  return add_raw(key, gguf_type::kI8, le(static_cast<uint8_t>(value), 1));
}
GgufWriter& GgufWriter::add_u16(std::string_view key, uint16_t value) {
  return add_raw(key, gguf_type::kU16, gguf_le16(value));
}
GgufWriter& GgufWriter::add_i16(std::string_view key, int16_t value) {
  return add_raw(key, gguf_type::kI16, gguf_le16(static_cast<uint16_t>(value)));
}
GgufWriter& GgufWriter::add_u32(std::string_view key, uint32_t value) {
  return add_raw(key, gguf_type::kU32, gguf_le32(value));
}
GgufWriter& GgufWriter::add_i32(std::string_view key, int32_t value) {
  return add_raw(key, gguf_type::kI32, gguf_le32(static_cast<uint32_t>(value)));
}
GgufWriter& GgufWriter::add_f32(std::string_view key, float value) {
  return add_raw(key, gguf_type::kF32, gguf_le32(std::bit_cast<uint32_t>(value)));
}
GgufWriter& GgufWriter::add_bool(std::string_view key, bool value) {
  return add_raw(key, gguf_type::kBool, le(value ? 1 : 0, 1));
}
GgufWriter& GgufWriter::add_string(std::string_view key, std::string_view value) {
  return add_raw(key, gguf_type::kStr, gguf_string(value));
}
GgufWriter& GgufWriter::add_u64(std::string_view key, uint64_t value) {
  return add_raw(key, gguf_type::kU64, gguf_le64(value));
}
GgufWriter& GgufWriter::add_i64(std::string_view key, int64_t value) {
  return add_raw(key, gguf_type::kI64, gguf_le64(static_cast<uint64_t>(value)));
}
GgufWriter& GgufWriter::add_f64(std::string_view key, double value) {
  return add_raw(key, gguf_type::kF64, gguf_le64(std::bit_cast<uint64_t>(value)));
}

GgufWriter& GgufWriter::add_u32_array(std::string_view key, const std::vector<uint32_t>& values) {
  std::string bytes = gguf_array_prefix(gguf_type::kU32, values.size());
  for (uint32_t value : values) bytes += gguf_le32(value);
  return add_raw(key, gguf_type::kArr, bytes);
}
GgufWriter& GgufWriter::add_i32_array(std::string_view key, const std::vector<int32_t>& values) {
  std::string bytes = gguf_array_prefix(gguf_type::kI32, values.size());
  for (int32_t value : values) bytes += gguf_le32(static_cast<uint32_t>(value));
  return add_raw(key, gguf_type::kArr, bytes);
}
GgufWriter& GgufWriter::add_f32_array(std::string_view key, const std::vector<float>& values) {
  std::string bytes = gguf_array_prefix(gguf_type::kF32, values.size());
  for (float value : values) bytes += gguf_le32(std::bit_cast<uint32_t>(value));
  return add_raw(key, gguf_type::kArr, bytes);
}
GgufWriter& GgufWriter::add_string_array(std::string_view key,
                                         const std::vector<std::string>& values) {
  std::string bytes = gguf_array_prefix(gguf_type::kStr, values.size());
  for (const std::string& value : values) bytes += gguf_string(value);
  return add_raw(key, gguf_type::kArr, bytes);
}

GgufWriter& GgufWriter::alignment(uint32_t alignment_bytes) {
  alignment_bytes_ = alignment_bytes;
  return add_u32("general.alignment", alignment_bytes);
}

GgufWriter& GgufWriter::add_tokenizer(GgufTokenizer tokenizer, uint32_t extra_tokens) {
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  if (tokenizer == GgufTokenizer::kLlama) {
    tokens = {"<unk>", "<s>", "</s>"};
    types = {kUnknown, kControl, kControl};
    for (int byte = 0; byte < 256; ++byte) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", byte);
      tokens.emplace_back(name);
      types.push_back(kByte);
    }
    for (uint32_t i = 0; i < extra_tokens; ++i) {
      tokens.push_back(fmt::format("\xe2\x96\x81t{}", i));  // "▁t<i>"
      types.push_back(kNormal);
    }
    std::vector<float> scores(tokens.size(), 0.0f);
    for (uint32_t i = 0; i < extra_tokens; ++i) scores[259 + i] = -static_cast<float>(i);
    return add_string("tokenizer.ggml.model", "llama")
        .add_string_array("tokenizer.ggml.tokens", tokens)
        .add_f32_array("tokenizer.ggml.scores", scores)
        .add_i32_array("tokenizer.ggml.token_type", types)
        .add_u32("tokenizer.ggml.unknown_token_id", 0)
        .add_u32("tokenizer.ggml.bos_token_id", 1)
        .add_u32("tokenizer.ggml.eos_token_id", 2);
  }
  tokens = byte_level_symbols();
  types.assign(tokens.size(), kNormal);
  for (uint32_t i = 0; i < extra_tokens; ++i) {
    tokens.push_back(fmt::format("t{}", i));
    types.push_back(kNormal);
  }
  const uint32_t end_of_text = static_cast<uint32_t>(tokens.size());
  tokens.emplace_back("<|endoftext|>");
  types.push_back(kControl);
  return add_string("tokenizer.ggml.model", "gpt2")
      .add_string("tokenizer.ggml.pre", "default")
      .add_string_array("tokenizer.ggml.tokens", tokens)
      .add_i32_array("tokenizer.ggml.token_type", types)
      .add_string_array("tokenizer.ggml.merges", {})
      .add_u32("tokenizer.ggml.bos_token_id", end_of_text)
      .add_u32("tokenizer.ggml.eos_token_id", end_of_text);
}

GgufWriter& GgufWriter::add_tensor(GgufTensorSpec tensor) {
  tensors_.push_back(std::move(tensor));
  return *this;
}

GgufWriter& GgufWriter::add_tensor(std::string_view name, GgmlType type,
                                   std::vector<uint64_t> dims) {
  return add_tensor(GgufTensorSpec{std::string(name), static_cast<uint32_t>(type), std::move(dims),
                                   std::nullopt, std::nullopt});
}

uint64_t GgufWriter::tensor_bytes(const GgufTensorSpec& tensor) const {
  if (tensor.data_bytes) return *tensor.data_bytes;
  const GgmlTypeTraits* traits = find_ggml_type(tensor.type);
  Result<uint64_t> bytes = traits == nullptr ? Result<uint64_t>(Error("unknown type"))
                                             : ggml_tensor_bytes(traits->type, tensor.dims);
  if (!bytes.ok()) {
    std::fprintf(stderr, "GgufWriter: tensor %s needs data_bytes: %s\n", tensor.name.c_str(),
                 bytes.error().message().c_str());
    std::abort();
  }
  return *bytes;
}

std::string GgufWriter::header() const {
  std::string out = "GGUF" + gguf_le32(version_) + gguf_le64(tensors_.size()) +
                    gguf_le64(entry_count_) + entries_;
  uint64_t offset = 0;
  for (const GgufTensorSpec& tensor : tensors_) {
    out += gguf_string(tensor.name) + gguf_le32(static_cast<uint32_t>(tensor.dims.size()));
    for (uint64_t dim : tensor.dims) out += gguf_le64(dim);
    const uint64_t at = tensor.offset_bytes.value_or(offset);
    out += gguf_le32(tensor.type) + gguf_le64(at);
    offset = pad(at + tensor_bytes(tensor), alignment_bytes_);
  }
  if (!tensors_.empty()) out.append(pad(out.size(), alignment_bytes_) - out.size(), '\0');
  return out;
}

uint64_t GgufWriter::data_section_bytes() const {
  uint64_t offset = 0;
  for (const GgufTensorSpec& tensor : tensors_) {
    offset = pad(tensor.offset_bytes.value_or(offset) + tensor_bytes(tensor), alignment_bytes_);
  }
  return offset;
}

uint64_t GgufWriter::file_bytes() const { return header().size() + data_section_bytes(); }

std::string GgufWriter::bytes() const {
  std::string out = header();
  out.append(data_section_bytes(), '\0');
  return out;
}

uint64_t GgufWriter::write(const std::string& path, GgufTensorData data) const {
  const std::string head = header();
  const uint64_t data_bytes = data_section_bytes();
  const uint64_t total_bytes = head.size() + data_bytes;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(head.data(), static_cast<std::streamsize>(head.size()));
    if (data == GgufTensorData::kRandom) {
      SplitMix64 rng{0x6d656d666974ULL};  // "memfit"
      uint64_t offset = 0;
      for (const GgufTensorSpec& tensor : tensors_) {
        const uint64_t at = tensor.offset_bytes.value_or(offset);
        const uint64_t bytes = tensor_bytes(tensor);
        if (at < offset) {
          std::fprintf(stderr, "GgufWriter: random data needs increasing offsets\n");
          std::abort();
        }
        const std::string gap(at - offset, '\0');
        out.write(gap.data(), static_cast<std::streamsize>(gap.size()));
        const std::string data_bytes_of_tensor = random_tensor_data(tensor.type, bytes, rng);
        out.write(data_bytes_of_tensor.data(), static_cast<std::streamsize>(bytes));
        offset = pad(at + bytes, alignment_bytes_);
        const std::string tail(offset - at - bytes, '\0');
        out.write(tail.data(), static_cast<std::streamsize>(tail.size()));
      }
    }
    if (data == GgufTensorData::kZeros) {
      const std::string zeros(64 * 1024, '\0');
      for (uint64_t left = data_bytes; left > 0;) {
        const uint64_t chunk = left < zeros.size() ? left : zeros.size();
        out.write(zeros.data(), static_cast<std::streamsize>(chunk));
        left -= chunk;
      }
    }
    if (!out) {
      std::perror(("GgufWriter::write: " + path).c_str());
      std::abort();
    }
  }
  // Extending with resize_file leaves a hole: no data blocks are written.
  if (data == GgufTensorData::kSparse) std::filesystem::resize_file(path, total_bytes);
  return total_bytes;
}

}  // namespace memfit
