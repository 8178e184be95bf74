// The JSON form of a request and of a failure: the body of POST
// /v1/estimate, the argument of memfit_estimate_request_json (C API) and of
// the Python module's estimate(), so that a new request field reaches every
// caller without a new ABI.
//
// A request is one JSON object; every field is optional except "model";
// null means absent; an unknown field is refused by name. Its fields are
// the request field table's (request_field.h: request_fields()), each
// declared once with its CLI flags: the common ones (model, engine
// "auto" | "mlxcel" | "llamacpp" | "mlx-lm" | "vllm", max_tokens, batch,
// the KV widths, the budget, the parallel plan) and each engine's own
// (llama.cpp's, mlx-lm's, vLLM's; given with another engine, a usage
// error). GET /v1/engines lists them with their types and defaults,
// schema/estimate-request.schema.json is their schema, and docs/service.md
// and docs/engine-*.md tabulate them. A value is read as its row says:
// counts are JSON integers (8192, never "8192" or 8192.0), sizes a string
// ("48GB") or bytes, switches true or false, the rest strings.
// Every failure is a kUsage Error about one field, one line:
//   max_tokens: expected a positive integer, got "abc"
#ifndef MEMFIT_REQUEST_JSON_H_
#define MEMFIT_REQUEST_JSON_H_

#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Parses one request body. Never throws; bodies nested deeper than 32
// levels are refused before they are parsed.
Result<EstimateRequest> parse_estimate_request_json(std::string_view body);

// A failure as every JSON front end shows it:
//   {"kind": "usage", "message": "...", "field": "max_tokens"}
// ("field" only for a usage error about one field).
nlohmann::ordered_json error_to_json(const Error& error);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_REQUEST_JSON_H_
