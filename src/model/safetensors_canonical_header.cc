// Design note. Headers as the reference writer (safetensors' Rust core)
// spells them are scanned byte by byte here, without simdjson: no
// structural index is built and no token is visited twice, which makes
// sizing a checkpoint's 139,583 tensors about twice as fast. The scan
// accepts only that spelling, a strict subset of JSON:
//
//   header   := '{' [entry (',' entry)*] '}' ' '*
//   entry    := string ':' (metadata  when the string is "__metadata__"
//                          | tensor)
//   metadata := '{' [string ':' string (',' string ':' string)*] '}'
//   tensor   := '{"dtype":' string ',"shape":[' [uint (',' uint)*] ']'
//               ',"data_offsets":[' uint ',' uint ']}'
//   string   := '"' (any byte but '"', '\' and 0x00-0x1F)* '"'
//   uint     := '0' | [1-9][0-9]*, below 2^64
//
// after checking that the whole text is valid UTF-8, as simdjson does. Any
// other text (whitespace, escapes, other field orders or fields), and every
// header with an error, goes to the general parser, which reads it from
// the start and words the error: so the outcome of a parse is the general
// parser's, always, and this file only makes it sooner.
//
// Strings are searched 8 bytes at a time. The text is followed by
// SIMDJSON_PADDING zero bytes (SafetensorsJsonParser::buffer_for), so
// reading up to 7 bytes past its end is safe, and a zero byte ends every
// token. Words are assembled little-endian whatever the machine.
#include <simdjson.h>

#include <bit>
#include <cstring>
#include <optional>
#include <string_view>

#include "model/safetensors_json_parser.h"

namespace memfit {
namespace {

constexpr uint64_t kOnes = ~uint64_t{0} / 255;  // 0x0101...01
constexpr uint64_t kHighBits = kOnes * 0x80;

// Bytes p[0..8) as a little-endian word: p[0] is the lowest byte.
uint64_t load_word(const char* p) {
  uint64_t word = 0;
  for (int i = 0; i < 8; ++i) word |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
  return word;
}

// The high bit of each byte of `word` that is below `n` (n <= 128). The
// lowest flag is exact; flags above it may be false, so callers use only
// the lowest.
constexpr uint64_t bytes_below(uint64_t word, uint8_t n) {
  return (word - kOnes * n) & ~word & kHighBits;
}

// The high bit of each byte of `word` equal to `c` (lowest flag exact).
constexpr uint64_t bytes_equal(uint64_t word, uint8_t c) {
  return bytes_below(word ^ (kOnes * c), 1);
}

// A cursor over [p, end) that consumes the grammar's tokens; each method
// returns false, consuming an unspecified amount, when the text is not
// that token.
class Scanner {
 public:
  Scanner(const char* begin, const char* end) : p_(begin), end_(end) {}

  bool literal(std::string_view text) {
    if (static_cast<size_t>(end_ - p_) < text.size() ||
        std::memcmp(p_, text.data(), text.size()) != 0) {
      return false;
    }
    p_ += text.size();
    return true;
  }

  bool string(std::string_view& out) {
    if (!literal("\"")) return false;
    const char* start = p_;
    for (;;) {
      if (p_ >= end_) return false;
      const uint64_t word = load_word(p_);
      const uint64_t special =
          bytes_equal(word, '"') | bytes_equal(word, '\\') | bytes_below(word, 0x20);
      if (special != 0) {
        p_ += std::countr_zero(special) / 8;
        break;
      }
      p_ += 8;
    }
    // A backslash or a control byte ends the fast path, as does a quote
    // found in the padding.
    if (p_ >= end_ || *p_ != '"') return false;
    out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // Up to 19 digits, which cannot overflow; a 20-digit number (up to
  // 2^64 - 1) is left to the general parser.
  bool uint(uint64_t& out) {
    const char* start = p_;
    uint64_t value = 0;
    // Stops at the padding's first byte at the latest (a zero).
    for (unsigned digit; (digit = static_cast<uint8_t>(*p_) - unsigned{'0'}) <= 9; ++p_) {
      value = value * 10 + digit;
    }
    const size_t digit_count = static_cast<size_t>(p_ - start);
    if (digit_count == 0 || digit_count > 19 || p_ > end_ || (digit_count > 1 && *start == '0')) {
      return false;
    }
    out = value;
    return true;
  }

  // True when only spaces are left.
  bool at_end_after_spaces() {
    while (p_ < end_ && *p_ == ' ') ++p_;
    return p_ == end_;
  }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<SafetensorsSummary> SafetensorsJsonParser::parse_canonical(
    size_t json_bytes, uint64_t data_region_bytes, std::vector<SafetensorsTensor>* tensors) {
  const char* text = buffer_.get();
  if (!simdjson::validate_utf8(text, json_bytes)) return std::nullopt;
  const size_t tensors_before = tensors != nullptr ? tensors->size() : 0;
  auto fall_back = [&]() -> std::optional<SafetensorsSummary> {
    if (tensors != nullptr) tensors->resize(tensors_before);
    ranges_.clear();
    names_.clear();
    return std::nullopt;
  };

  Scanner scan(text, text + json_bytes);
  CheckedBytes total_bytes;
  if (!scan.literal("{")) return fall_back();
  if (!scan.literal("}")) {
    for (;;) {
      std::string_view name;
      if (!scan.string(name) || !scan.literal(":")) return fall_back();
      if (name == "__metadata__") {
        if (!scan.literal("{")) return fall_back();
        if (!scan.literal("}")) {
          for (;;) {
            std::string_view key, value;
            if (!scan.string(key) || !scan.literal(":") || !scan.string(value)) return fall_back();
            if (scan.literal(",")) continue;
            if (scan.literal("}")) break;
            return fall_back();
          }
        }
      } else {
        TensorEntryFields fields;
        if (!scan.literal(R"({"dtype":)") || !scan.string(fields.dtype) ||
            !scan.literal(R"(,"shape":[)")) {
          return fall_back();
        }
        shape_.clear();
        if (!scan.literal("]")) {
          for (;;) {
            uint64_t dim = 0;
            if (!scan.uint(dim)) return fall_back();
            shape_.push_back(dim);
            if (scan.literal(",")) continue;
            if (scan.literal("]")) break;
            return fall_back();
          }
        }
        if (!scan.literal(R"(,"data_offsets":[)") || !scan.uint(fields.begin_byte) ||
            !scan.literal(",") || !scan.uint(fields.end_byte) || !scan.literal("]}")) {
          return fall_back();
        }
        if (!add_tensor(name, fields, data_region_bytes, tensors, total_bytes).ok()) {
          return fall_back();
        }
      }
      if (scan.literal(",")) continue;
      if (scan.literal("}")) break;
      return fall_back();
    }
  }
  if (!scan.at_end_after_spaces()) return fall_back();
  if (!check_overlaps().ok() || total_bytes.overflowed()) return fall_back();
  return SafetensorsSummary{*total_bytes.value(), ranges_.size()};
}

}  // namespace memfit
