// The last line of defence for "nothing throws across a public function".
//
// Every expected failure of a public function is a returned Error, and each
// access to untrusted JSON is checked for its type first. A public function
// that parses untrusted bytes still runs its body through
// without_exceptions(), so that a check someone forgot (nlohmann's
// type_error, an allocation failure) reaches the caller as an Error instead
// of terminating the process that embeds memfit:
//
//   internal error in parse_model_config: [json.exception.type_error.302] ...
//
// Such an error is a bug in memfit: the fuzz targets fail on any message
// that starts with kInternalErrorPrefix.
#ifndef MEMFIT_BASE_EXCEPTION_BOUNDARY_H_
#define MEMFIT_BASE_EXCEPTION_BOUNDARY_H_

#include <exception>
#include <string_view>
#include <utility>

#include "memfit/result.h"

namespace memfit {

inline constexpr std::string_view kInternalErrorPrefix = "internal error";

// "internal error in <function>: <what>", what() escaped (it may quote
// untrusted input).
Error internal_error(std::string_view function, std::string_view what);

// fn() (returning Result<T> or Status), or the internal_error of whatever
// it throws.
template <typename Fn>
auto without_exceptions(std::string_view function, Fn&& fn) -> decltype(fn()) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    return internal_error(function, e.what());
  } catch (...) {
    return internal_error(function, "an exception that is not a std::exception");
  }
}

}  // namespace memfit

#endif  // MEMFIT_BASE_EXCEPTION_BOUNDARY_H_
