// JsonScan: the tokens of a strict subset of JSON, read straight from the
// text, for the fast paths that take a document in its writer's usual
// spelling without simdjson (model/safetensors/canonical_header.cc,
// model/safetensors/canonical_index.cc). Each fast path falls back to its
// simdjson parser on any text it does not take, so these methods need
// only say "this is that token" or "it is not": a false return consumes
// an unspecified amount and ends the fast path.
//
// Contract: the text [begin, end) is followed in memory by at least 16
// readable bytes (the callers' SIMDJSON_PADDING), so 16 bytes may be read
// at any position before `end`; no token is taken past `end`. UTF-8 validity
// is the caller's to check, once, on the whole text.
#ifndef MEMFIT_MODEL_SAFETENSORS_JSON_SCAN_H_
#define MEMFIT_MODEL_SAFETENSORS_JSON_SCAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace memfit {

class JsonScan {
 public:
  JsonScan(const char* begin, const char* end) : p_(begin), end_(end) {}

  // Exactly `text`.
  bool literal(std::string_view text) {
    if (static_cast<size_t>(end_ - p_) < text.size() ||
        std::memcmp(p_, text.data(), text.size()) != 0) {
      return false;
    }
    p_ += text.size();
    return true;
  }

  // A string without escapes; `out` views its bytes in the text. A
  // backslash or a control byte (0x00-0x1F) is not taken.
  bool string(std::string_view& out) {
    if (!literal("\"")) return false;
    const char* start = p_;
    for (;;) {
      if (p_ >= end_) return false;
      // 16 bytes at a time (tensor names run to ~60): a lane is all ones
      // where the byte ends the fast path's string.
      Lanes16 bytes;
      std::memcpy(&bytes, p_, sizeof bytes);
      const Words2 special = reinterpret_cast<Words2>((bytes == '"') | (bytes == '\\') |
                                                      (bytes < 0x20));
      if ((special[0] | special[1]) != 0) {
        p_ += special[0] != 0 ? first_lane(special[0]) : 8 + first_lane(special[1]);
        break;
      }
      p_ += 16;
    }
    if (p_ >= end_ || *p_ != '"') return false;  // an escape, a control byte or the end
    out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // The string `expected` (no escapes in it, as string() gives), spelt
  // exactly so: a cheap check for a value that repeats the last one.
  bool same_string(std::string_view expected) {
    if (static_cast<size_t>(end_ - p_) < expected.size() + 2 || p_[0] != '"' ||
        p_[expected.size() + 1] != '"' ||
        std::memcmp(p_ + 1, expected.data(), expected.size()) != 0) {
      return false;
    }
    p_ += expected.size() + 2;
    return true;
  }

  // A non-negative integer of at most 19 digits (which cannot overflow),
  // without leading zeros; longer ones (up to 2^64 - 1) are not taken.
  bool uint(uint64_t& out) {
    const char* start = p_;
    uint64_t value = 0;
    for (unsigned digit; p_ < end_ && (digit = static_cast<uint8_t>(*p_) - unsigned{'0'}) <= 9;
         ++p_) {
      value = value * 10 + digit;
    }
    const size_t digit_count = static_cast<size_t>(p_ - start);
    if (digit_count == 0 || digit_count > 19 || (digit_count > 1 && *start == '0')) return false;
    out = value;
    return true;
  }

  // Skips JSON whitespace: space, tab, line feed, carriage return.
  void skip_whitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  // Skips spaces only (the padding a safetensors writer appends).
  void skip_spaces() {
    while (p_ < end_ && *p_ == ' ') ++p_;
  }

  bool at_end() const { return p_ == end_; }

  // Whether the next byte is `c` (consumes nothing).
  bool next_is(char c) const { return p_ < end_ && *p_ == c; }

 private:
  // GCC and Clang vector extensions: SSE2 on x86-64, NEON on arm64, plain
  // words elsewhere.
  using Lanes16 = uint8_t __attribute__((vector_size(16)));
  using Words2 = uint64_t __attribute__((vector_size(16)));

  // The index of the first byte, in memory order, of the 8 in `word` (the
  // same bytes read as one integer) whose lane is all ones; word != 0.
  static int first_lane(uint64_t word) {
    if constexpr (std::endian::native == std::endian::little) {
      return std::countr_zero(word) / 8;
    } else {
      return std::countl_zero(word) / 8;
    }
  }

  const char* p_;
  const char* end_;
};

}  // namespace memfit

#endif  // MEMFIT_MODEL_SAFETENSORS_JSON_SCAN_H_
