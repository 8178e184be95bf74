// ApiError: a failed request as the HTTP service answers it, and the JSON
// responses every handler builds.
//
// Error body: {"error": {"code": "<code>", "message": "<one line>", ...}}
// where "..." are the error's extra fields (estimated_bytes, request_id).
//
//   status  code                      when
//   400     bad_request               malformed JSON, a wrong type or value
//   400     invalid_model_path        "..", an empty or control-character name
//   400     prefill_memory_exceeded   /v1/admit refused the request
//   403     model_outside_roots       an absolute path or symlink leaving the roots
//   404     model_not_found           nothing by that name under any root
//   404     not_found                 an unknown path
//   405     method_not_allowed        a known path with the wrong method
//   413     payload_too_large         a body over the limit
//   422     model_unreadable          the model's config or headers are refused
//   422     estimate_failed           the estimate overflows (absurd inputs)
//   500     internal_error            a bug: caught at the handler boundary
#ifndef MEMFIT_SERVICE_API_ERROR_H_
#define MEMFIT_SERVICE_API_ERROR_H_

#include <string>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "memfit/service.h"

namespace memfit::service {

using Json = nlohmann::ordered_json;

struct ApiError {
  int status = 400;
  std::string code;
  std::string message;
  Json extra = Json::object();  // more fields of the error object
};

// Result<T> carries a message only; a request's failure also carries its
// HTTP status and machine-readable code, hence this second result type,
// used only inside the service.
template <typename T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  // Precondition: ok().
  T& value() { return std::get<0>(state_); }
  T* operator->() { return &value(); }
  T& operator*() { return value(); }
  // Precondition: !ok().
  const ApiError& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, ApiError> state_;
};

// `body` serialised (invalid UTF-8 replaced, never thrown on) as
// application/json with a trailing newline.
HttpResponse json_response(int status, const Json& body);
HttpResponse error_response(const ApiError& error);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_API_ERROR_H_
