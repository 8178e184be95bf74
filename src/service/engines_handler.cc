// GET /v1/engines: the engines a request may name and every request field,
// from the request field table (request_field.h), so the calculator page
// builds its forms from what the service reads. Answer:
//   {"engines": [{"name": "llamacpp", "summary": "...", "release": "...",
//                 "default_for": "GGUF models",
//                 "fields": [{"name": "ctx_size", "flags": ["-c", "--ctx-size"],
//                             "help": "...", "unit": "tokens", "type": "count",
//                             "choices": [], "default": "0", "min": 0, "max": null,
//                             "example": null, "required": false}, ...]}, ...],
//    "common_fields": [...]}
// (schema/engines.schema.json).
#include "request/field_table.h"
#include "service/api_error.h"
#include "service/service_state.h"

namespace memfit::service {

HttpResponse handle_engines() { return json_response(200, request::engines_to_json()); }

}  // namespace memfit::service
