#include "memfit/untrusted_text.h"

#include <fmt/format.h>

namespace memfit {

std::string quote_untrusted(std::string_view text) {
  size_t keep_bytes = text.size();
  bool cut = false;
  if (keep_bytes > kMaxQuotedBytes) {
    keep_bytes = kMaxQuotedBytes;
    // Back off continuation bytes (10xxxxxx) so no character is split.
    while (keep_bytes > 0 && (static_cast<unsigned char>(text[keep_bytes]) & 0xC0) == 0x80) {
      --keep_bytes;
    }
    cut = true;
  }
  std::string out;
  out.reserve(keep_bytes + 8);
  out.push_back('\'');
  for (char c : text.substr(0, keep_bytes)) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          out += fmt::format("\\x{:02x}", byte);
        } else {
          out.push_back(c);
        }
    }
  }
  if (cut) out += "...";
  out.push_back('\'');
  return out;
}

}  // namespace memfit
