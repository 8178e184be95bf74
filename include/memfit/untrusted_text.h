// Untrusted text (tensor names, file names, model names, request fields and
// values) inside one-line messages: errors, warnings, logs, JSON errors.
//
// Such text comes from files and clients memfit does not trust: it may hold
// a newline (a forged log line), a terminal escape sequence, or a megabyte
// of text. quote_untrusted() is the one way any of it enters a message.
#ifndef MEMFIT_UNTRUSTED_TEXT_H_
#define MEMFIT_UNTRUSTED_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace memfit {

// Longest piece of untrusted text kept in a message, in bytes.
inline constexpr size_t kMaxQuotedBytes = 200;

// `text` in single quotes. Control bytes (< 0x20, 0x7f) become \n, \t, \r or
// \xNN; a backslash or quote inside is escaped; text longer than
// kMaxQuotedBytes is cut at a UTF-8 character boundary and ends in "...".
std::string quote_untrusted(std::string_view text);

}  // namespace memfit

#endif  // MEMFIT_UNTRUSTED_TEXT_H_
