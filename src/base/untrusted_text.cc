#include "memfit/untrusted_text.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace memfit {
namespace {

// Arrays and objects deeper than this are shown as [...] and {...}: the
// writer below recurses once per level.
constexpr int kMaxShownDepth = 8;

bool is_control_byte(unsigned char byte) { return byte < 0x20 || byte == 0x7f; }

// Length of the well-formed UTF-8 sequence at the start of `text`, or 0
// when it does not start with one (a stray continuation byte, a truncated
// or overlong sequence, a surrogate, a code point past U+10FFFF).
size_t utf8_sequence_bytes(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;  // bounds of the second byte (Unicode table 3-7)
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

void append_hex_byte(std::string& out, unsigned char byte) {
  out += fmt::format("\\x{:02x}", byte);
}

// Appends `text` escaped (see escape_untrusted); a single quote is escaped
// too when `escape_quote`.
void append_escaped(std::string& out, std::string_view text, size_t max_bytes, bool escape_quote) {
  out.reserve(out.size() + std::min(text.size(), max_bytes) + 8);
  size_t i = 0;
  while (i < text.size()) {
    const size_t length = utf8_sequence_bytes(text.substr(i));
    if (i + std::max<size_t>(length, 1) > max_bytes) break;  // no character is split
    const auto lead = static_cast<unsigned char>(text[i]);
    if (length == 0) {
      append_hex_byte(out, lead);  // not UTF-8: the byte itself, escaped
      ++i;
      continue;
    }
    if (length == 2 && lead == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      // U+0080..U+009F, the C1 controls (U+009B starts a terminal escape).
      append_hex_byte(out, lead);
      append_hex_byte(out, static_cast<unsigned char>(text[i + 1]));
      i += 2;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    switch (const char c = text[i++]) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '\'': out += escape_quote ? "\\'" : "'"; break;
      default:
        if (is_control_byte(static_cast<unsigned char>(c))) {
          append_hex_byte(out, static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  if (i < text.size()) out += "...";
}

// Compact JSON with ensure_ascii (no control or non-ASCII byte survives);
// stops adding elements once `out` is longer than `limit_bytes`.
void append_json(std::string& out, const nlohmann::json& value, size_t limit_bytes, int depth) {
  constexpr bool kEnsureAscii = true;
  const auto scalar = [](const nlohmann::json& v) {
    return v.dump(-1, ' ', kEnsureAscii, nlohmann::json::error_handler_t::replace);
  };
  if (value.is_array() || value.is_object()) {
    const bool array = value.is_array();
    if (depth >= kMaxShownDepth && !value.empty()) {
      out += array ? "[...]" : "{...}";
      return;
    }
    out += array ? '[' : '{';
    bool first = true;
    for (auto it = value.begin(); it != value.end() && out.size() <= limit_bytes; ++it) {
      if (!first) out += ',';
      first = false;
      if (!array) {
        out += scalar(nlohmann::json(it.key()));
        out += ':';
      }
      append_json(out, *it, limit_bytes, depth + 1);
    }
    out += array ? ']' : '}';
    return;
  }
  out += scalar(value);
}

}  // namespace

std::string escape_untrusted(std::string_view text, size_t max_bytes) {
  std::string out;
  append_escaped(out, text, max_bytes, /*escape_quote=*/false);
  return out;
}

std::string quote_untrusted(std::string_view text) {
  std::string out = "'";
  append_escaped(out, text, kMaxQuotedBytes, /*escape_quote=*/true);
  out.push_back('\'');
  return out;
}

std::string show_untrusted_json(const nlohmann::json& value, size_t max_bytes) {
  std::string out;
  append_json(out, value, max_bytes, 0);
  // ASCII only, so any cut is at a character boundary.
  if (out.size() > max_bytes) {
    out.resize(max_bytes);
    out += "...";
  }
  return out;
}

}  // namespace memfit
