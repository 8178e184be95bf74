// JsonScan: the tokens of a strict subset of JSON, read straight from the
// text, for the fast paths that take a document in its writer's usual
// spelling without simdjson (safetensors_canonical_header.cc,
// safetensors_canonical_index.cc). Each fast path falls back to its
// simdjson parser on any text it does not take, so these methods need
// only say "this is that token" or "it is not": a false return consumes
// an unspecified amount and ends the fast path.
//
// Contract: the text [begin, end) is followed in memory by at least 8
// readable bytes (the callers' SIMDJSON_PADDING), so a word may be read at
// any position before `end`; no token is taken past `end`. UTF-8 validity
// is the caller's to check, once, on the whole text.
#ifndef MEMFIT_MODEL_JSON_SCAN_H_
#define MEMFIT_MODEL_JSON_SCAN_H_

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
      const uint64_t word = load_word(p_);
      const uint64_t special =
          bytes_equal(word, '"') | bytes_equal(word, '\\') | bytes_below(word, 0x20);
      if (special != 0) {
        p_ += std::countr_zero(special) / 8;
        break;
      }
      p_ += 8;
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
  static constexpr uint64_t kOnes = ~uint64_t{0} / 255;  // 0x0101...01
  static constexpr uint64_t kHighBits = kOnes * 0x80;

  // Bytes p[0..8) as a little-endian word (p[0] lowest), on any machine.
  static uint64_t load_word(const char* p) {
    uint64_t word = 0;
    for (int i = 0; i < 8; ++i) word |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
    return word;
  }
  // The high bit of each byte of `word` below `n` (n <= 128). The lowest
  // flag is exact; flags above it may be false, so only the lowest is used.
  static constexpr uint64_t bytes_below(uint64_t word, uint8_t n) {
    return (word - kOnes * n) & ~word & kHighBits;
  }
  // The high bit of each byte of `word` equal to `c` (lowest flag exact).
  static constexpr uint64_t bytes_equal(uint64_t word, uint8_t c) {
    return bytes_below(word ^ (kOnes * c), 1);
  }

  const char* p_;
  const char* end_;
};

}  // namespace memfit

#endif  // MEMFIT_MODEL_JSON_SCAN_H_
