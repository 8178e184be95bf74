// The JSON bodies of POST /v1/fit and POST /v1/admit. (POST /v1/estimate
// takes the library's request, include/memfit/request_json.h.)
//
// Both read their fields as the library's request does (one JSON object,
// null means absent, an unknown field refused by name, counts as JSON
// integers) and fail with a kUsage Error about one field, one line:
//   curve_tokens: expected an array of at most 256 integers from 1 to ..., got "abc"
#ifndef MEMFIT_SERVICE_REQUEST_PARSER_H_
#define MEMFIT_SERVICE_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::service {

//   every field of an estimate request (request_json.h) but max_tokens and
//   kv_cache_mode, which /v1/fit varies (refused as unknown fields), and
//   the fields of the engines whose fit hook answers (engine.h), and
//   solve         a string: what the engine solves for, its names and
//                 default the engine's (docs/service.md, "POST /v1/fit")
//   curve_tokens  up to kMaxCurvePoints integers 1..kMaxSolvedTokens (any
//                 order, repeats allowed; engine.h), default none: the
//                 contexts (llamacpp: ctx_size values) at which to report
//                 the total for each KV mode or cache type
// Those two, as given, are the options of the engine's fit hook
// (CommandQuery::options), which reads them and refuses what its engine
// does not take (docs/engines.md, "Commands"): more than one rank under
// mlxcel, cache types under mlxcel, curve_tokens under vllm.
//
// With "command": "recommend-quant" (default "fit") the body is instead
// every field of an estimate request (max_tokens and kv_cache_mode
// included) and the engine's recommend-quant options
//   bits          up to 64 integers 1..16 (the CLI's --bits)
//   group_size    an integer >= 1 (the CLI's --group-size)
// each only when given; the engine's recommend_quant hook answers.
struct FitRequest {
  EngineCommand command = EngineCommand::kFit;
  EstimateRequest request;
  nlohmann::json options = nlohmann::json::object();
};

//   model                string, required
//   prompt_tokens        integer >= 0, required
//   cached_tokens        integer 0..prompt_tokens, default 0
//   current_usage_bytes  integer >= 0, default 0
//   hard_limit_bytes     integer >= 1; default: the budget fields', else the
//                        service's explicit limit, else none
//   memory_limit, device the budget, read as an estimate reads them
//                        (request_field.h's rows); the limit when
//                        hard_limit_bytes is not given (giving both is an
//                        error)
//   prefill_chunk        integer >= 0 (0: no chunking); default MEMFIT_PREFILL_CHUNK
//   request_id           1-128 of [A-Za-z0-9._:/+=-]; generated when absent
//   kv_cache_mode, cache_type_k, cache_type_v   as for an estimate
struct AdmitRequest {
  std::string model;
  uint64_t prompt_tokens = 0;
  uint64_t cached_tokens = 0;
  uint64_t current_usage_bytes = 0;
  std::optional<uint64_t> hard_limit_bytes;
  std::optional<uint64_t> memory_limit_bytes;  // the memory_limit field
  DeviceSelector device;                       // the device field (kAuto: not given)
  std::optional<uint64_t> prefill_chunk;
  std::string request_id;
  KvElement kv_element = KvElement::kFp16;
};

Result<FitRequest> parse_fit_request(std::string_view body);
Result<AdmitRequest> parse_admit_request(std::string_view body);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_REQUEST_PARSER_H_
