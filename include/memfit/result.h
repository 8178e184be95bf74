// Result<T>: the one error channel of the memfit library.
//
// Every operation that can fail returns Result<T> (or Status for no value).
// An Error has a kind (ErrorKind) that front ends turn into exit statuses,
// HTTP statuses and C return codes.
// An Error's message is "context: detail"; each caller that adds what it was
// doing prefixes its own context with Error::within(), so a failure reads
// outward-in: "inspect ./m: reading shard 'a.safetensors': header length ...".
// Nothing in the library throws across its public boundary.
#ifndef MEMFIT_RESULT_H_
#define MEMFIT_RESULT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// What kind of failure an Error is. Front ends map the kind, never the
// message, to their own codes: the CLI's exit status (usage 2, others 1),
// the service's HTTP status, the C API's memfit_status.
enum class ErrorKind {
  kUsage,     // the request itself is wrong: a value out of range, an unknown
              // name, fields that contradict each other, a plan the engine refuses
  kInput,     // a model, file or header memfit cannot read or refuses
  kOverflow,  // the figures do not fit in 64 bits (absurd configs or requests)
  kHost,      // the machine cannot answer: the selected device does not exist
  kInternal,  // a bug, caught at a boundary
};
// "usage", "input", "overflow", "host", "internal".
constexpr std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUsage:
      return "usage";
    case ErrorKind::kInput:
      return "input";
    case ErrorKind::kOverflow:
      return "overflow";
    case ErrorKind::kHost:
      return "host";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "internal";
}

class Error {
 public:
  // An error of `kind`; kInput when not said, the kind of nearly every
  // failure below the request layer.
  explicit Error(std::string message, ErrorKind kind = ErrorKind::kInput)
      : message_(std::move(message)), kind_(kind) {}

  // A usage error about one request field, named as the JSON request
  // spells it ("cache_type_k"): the message is "<field>: <detail>", and a
  // front end with other names for its fields (the CLI's flags) prints
  // its own name before detail().
  static Error usage(std::string_view field, std::string_view detail) {
    Error e(std::string(field) + ": " + std::string(detail), ErrorKind::kUsage);
    e.field_ = std::string(field);
    return e;
  }
  // A usage error about the request as a whole.
  static Error usage(std::string message) { return Error(std::move(message), ErrorKind::kUsage); }
  static Error overflow(std::string message) {
    return Error(std::move(message), ErrorKind::kOverflow);
  }

  const std::string& message() const { return message_; }
  ErrorKind kind() const { return kind_; }
  // The request field a usage error is about; "" for any other error.
  const std::string& field() const { return field_; }
  // The message after "<field>: ", or the whole message when field() is "".
  std::string_view detail() const {
    return std::string_view(message_).substr(field_.empty() ? 0 : field_.size() + 2);
  }

  // Returns this error with "context: " in front of its message; the kind
  // is kept, the field is not (the message no longer starts with it).
  Error within(std::string_view context) const {
    return Error(std::string(context) + ": " + message_, kind_);
  }

 private:
  std::string message_;
  ErrorKind kind_;
  std::string field_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // Precondition: !ok().
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Ok costs no allocation and no string: Status is returned per tensor on
// the header-parsing path.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT

  static Status Ok() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  // Precondition: !ok().
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_RESULT_H_
