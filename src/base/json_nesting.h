// The nesting depth of JSON text, measured before it is parsed.
//
// nlohmann::json builds a value per array or object level: a 16 MiB text
// of '[' would cost ~16 million nested containers (about a gigabyte) before
// the parser reports it unclosed. Parsers of untrusted JSON refuse text
// deeper than their limit first; real configs and request bodies nest a
// handful of levels.
#ifndef MEMFIT_BASE_JSON_NESTING_H_
#define MEMFIT_BASE_JSON_NESTING_H_

#include <string_view>

namespace memfit {

// The deepest nesting of arrays and objects in `text`, counting brackets
// outside strings (a backslash escapes the next character inside one).
// Stops early and returns a value above `limit` once the depth passes it.
// Unbalanced or invalid text is measured all the same: the parser judges it.
int json_nesting_depth(std::string_view text, int limit);

}  // namespace memfit

#endif  // MEMFIT_BASE_JSON_NESTING_H_
