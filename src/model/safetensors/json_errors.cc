// The safetensors JSON readers' shared errors (model/safetensors/json_errors.h).
#include "model/safetensors/json_errors.h"

#include <fmt/format.h>

namespace memfit {

Error json_document_error(std::string_view document, std::string_view detail) {
  return Error(fmt::format("{}: {}", document, detail));
}

Error invalid_json_error(std::string_view document, simdjson::error_code code) {
  return json_document_error(document, fmt::format("invalid JSON: {}", simdjson::error_message(code)));
}

bool is_type_error(simdjson::error_code code) {
  return code == simdjson::INCORRECT_TYPE || code == simdjson::NUMBER_ERROR ||
         code == simdjson::NUMBER_OUT_OF_RANGE;
}

}  // namespace memfit
