// The one wording of a JSON parse failure, shared by the request body
// (request/json_fields.cc) and config.json (model/config/config_document.cc):
// nlohmann's message with its line and column, escaped as untrusted text.
#ifndef MEMFIT_BASE_JSON_PARSE_ERROR_H_
#define MEMFIT_BASE_JSON_PARSE_ERROR_H_

#include <string>

#include <nlohmann/json.hpp>

namespace memfit {

// e.what() without its "[json.exception.parse_error.101] " tag: "parse
// error at line 3, column 3: syntax error while parsing object key -
// invalid literal; last read: '...'; expected string literal" (or
// out_of_range.406's "number overflow parsing '1e999'"). The quoted input
// in it is escaped like any untrusted text (nlohmann leaves 0x7f and
// invalid UTF-8 as they are).
std::string json_parse_error_text(const nlohmann::json::exception& e);

}  // namespace memfit

#endif  // MEMFIT_BASE_JSON_PARSE_ERROR_H_
