// Untrusted text inside messages: the one way any area of memfit puts a
// name, a path, a key or a value it read from outside (a config.json, a
// weight file's header, an HTTP request, a command line) into an error
// message, a warning or a log line.
//
// Such text may hold a newline (a forged log line), a terminal escape
// sequence, invalid UTF-8 or a megabyte of text. Whatever these functions
// return is valid UTF-8 holding no control character (C0 < 0x20, 0x7f, C1
// U+0080..U+009F) and is bounded in length, so a message built from it
// stays one line a client cannot forge.
#ifndef MEMFIT_UNTRUSTED_TEXT_H_
#define MEMFIT_UNTRUSTED_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Longest piece of untrusted text kept in a message, in bytes (before
// escaping).
inline constexpr size_t kMaxQuotedBytes = 200;

// `text` in single quotes: escape_untrusted(text), with a quote inside
// escaped too. 'model-00001-of-00002.safetensors', 'a\nb', 'x\x1b[31m'.
std::string quote_untrusted(std::string_view text);

// `text` with each control character written as \n, \t, \r or \xNN (a C1
// control as its two bytes, \xc2\x9b), each byte that is not part of
// well-formed UTF-8 as \xNN, and each backslash doubled; text longer than
// `max_bytes` is cut at a character boundary and ends in "...". For
// untrusted text inside a message some other code already delimits (a
// parser's own error text).
std::string escape_untrusted(std::string_view text, size_t max_bytes = kMaxQuotedBytes);

// A JSON value read from untrusted input, as compact JSON text: strings in
// double quotes, every control and non-ASCII character escaped as \uXXXX.
// At most `max_bytes` of it, then "..."; arrays and objects nested deeper
// than a few levels are shown as [...] or {...}, so the cost is bounded
// however large or deep the value is.
//   5   "abc"   [1, 2]   {"a":"b\u000a"}   [[[[...]]]]
std::string show_untrusted_json(const nlohmann::json& value, size_t max_bytes = kMaxQuotedBytes);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_UNTRUSTED_TEXT_H_
