// Result<T>: the one error channel of the memfit library.
//
// Every operation that can fail returns Result<T> (or Status for no value).
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

namespace memfit {

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}

  const std::string& message() const { return message_; }

  // Returns this error with "context: " in front of its message.
  Error within(std::string_view context) const {
    return Error(std::string(context) + ": " + message_);
  }

 private:
  std::string message_;
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

#endif  // MEMFIT_RESULT_H_
