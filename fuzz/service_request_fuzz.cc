// libFuzzer target for the HTTP service's request bodies (POST /v1/estimate,
// /v1/fit, /v1/admit): the input is one body, given to all three parsers.
// Errors must be one line; a parsed request must hold what the parser
// promises (src/service/request_parser.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "service/request_parser.h"

namespace {

template <typename T>
bool one_line_error(const memfit::Result<T>& r) {
  return r.ok() || r.error().message().find('\n') == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace service = memfit::service;
  const std::string_view body(reinterpret_cast<const char*>(data), size);

  auto estimate = service::parse_estimate_request(body);
  if (!one_line_error(estimate)) __builtin_trap();
  if (estimate.ok() && (estimate->inputs.max_tokens == 0 || estimate->inputs.batch == 0)) {
    __builtin_trap();
  }

  auto fit = service::parse_fit_request(body);
  if (!one_line_error(fit)) __builtin_trap();
  if (fit.ok() && (fit->inputs.batch == 0 || fit->curve_tokens.size() > service::kMaxCurvePoints)) {
    __builtin_trap();
  }

  auto admit = service::parse_admit_request(body);
  if (!one_line_error(admit)) __builtin_trap();
  // request_id: empty when absent (the service generates one), else 1-128 bytes.
  if (admit.ok() && (admit->cached_tokens > admit->prompt_tokens ||
                     admit->request_id.size() > 128)) {
    __builtin_trap();
  }
  return 0;
}
