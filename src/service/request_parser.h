// The JSON bodies of POST /v1/estimate, POST /v1/fit and POST /v1/admit.
//
// A body is one JSON object of at most kMaxNesting levels. Every field is
// optional except `model` (and `prompt_tokens` for admit); null means
// absent; a field not listed here is refused, so a typo ("max_token") is an
// error rather than a silent default. Counts are JSON integers: 8192, never
// "8192" or 8192.0. Every failure is one line naming the field, the
// expectation and what was sent:
//   max_tokens: expected a positive integer, got "abc"
#ifndef MEMFIT_SERVICE_REQUEST_PARSER_H_
#define MEMFIT_SERVICE_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/estimate.h"
#include "memfit/result.h"

namespace memfit::service {

inline constexpr int kMaxNesting = 32;
// At most this many curve points in one /v1/fit request.
inline constexpr size_t kMaxCurvePoints = 256;

//   model          string, required
//   max_tokens     integer >= 1, default 8192
//   batch          integer >= 1, default 1
//   kv_cache_mode  "fp16" | "int8" (and the CLI's aliases: f16, bf16, float16,
//                  i8, q8, q8_0), default fp16
//   cache_type_k, cache_type_v   llama.cpp style, together; when they differ
//                  the cache is sized at fp16 with a warning
//   quant          "fp16" | "int8" | "int4": a label only
//   backend        "auto" | "rocm" | "metal" | "cuda" | "cpu", default auto
//   memory_limit   "48GB" (binary units, as --memory-limit) or bytes;
//                  0 / "none": the service's budget
struct EstimateRequest {
  std::string model;
  EstimateInputs inputs;
  std::optional<Backend> backend;              // nullopt: the service's platform
  std::optional<uint64_t> memory_limit_bytes;  // nullopt: the service's budget
  std::vector<std::string> warnings;           // appended to the report's warnings
};

//   model          string, required
//   batch, quant, backend, memory_limit   as for estimate
//   curve_tokens   up to kMaxCurvePoints integers 1..kMaxSolvedTokens (any
//                  order, repeats allowed), default none: the contexts at
//                  which to report the total for each KV mode
// The context and the KV mode are what /v1/fit varies, so max_tokens,
// kv_cache_mode and cache_type_k/v are refused as unknown fields.
struct FitRequest {
  std::string model;
  EstimateInputs inputs;  // max_tokens and kv_element are set per solve
  std::optional<Backend> backend;
  std::optional<uint64_t> memory_limit_bytes;
  std::vector<uint64_t> curve_tokens;
};

//   model                string, required
//   prompt_tokens        integer >= 0, required
//   cached_tokens        integer 0..prompt_tokens, default 0
//   current_usage_bytes  integer >= 0, default 0
//   hard_limit_bytes     integer >= 1; default: the service's budget
//   prefill_chunk        integer >= 0 (0: no chunking); default MEMFIT_PREFILL_CHUNK
//   request_id           1-128 of [A-Za-z0-9._:/+=-]; generated when absent
//   kv_cache_mode        as for estimate
struct AdmitRequest {
  std::string model;
  uint64_t prompt_tokens = 0;
  uint64_t cached_tokens = 0;
  uint64_t current_usage_bytes = 0;
  std::optional<uint64_t> hard_limit_bytes;
  std::optional<uint64_t> prefill_chunk;
  std::string request_id;
  KvElement kv_element = KvElement::kFp16;
};

Result<EstimateRequest> parse_estimate_request(std::string_view body);
Result<FitRequest> parse_fit_request(std::string_view body);
Result<AdmitRequest> parse_admit_request(std::string_view body);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_REQUEST_PARSER_H_
