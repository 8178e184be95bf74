// The errors the two simdjson readers of safetensors JSON word alike:
// json_parser.cc (a file's header) and index.cc
// (model.safetensors.index.json). Private to the library.
#ifndef MEMFIT_MODEL_SAFETENSORS_JSON_ERRORS_H_
#define MEMFIT_MODEL_SAFETENSORS_JSON_ERRORS_H_

#include <simdjson.h>

#include <string_view>

#include "memfit/result.h"

namespace memfit {

// `detail` under the name of the document read: "safetensors header:
// <detail>".
Error json_document_error(std::string_view document, std::string_view detail);
// The document is not JSON where simdjson stopped: "<document>: invalid
// JSON: <simdjson's message for code>".
Error invalid_json_error(std::string_view document, simdjson::error_code code);
// Whether `code` says a value has the wrong type or range, as opposed to
// "this is not JSON".
bool is_type_error(simdjson::error_code code);

}  // namespace memfit

#endif  // MEMFIT_MODEL_SAFETENSORS_JSON_ERRORS_H_
