// Reading a JSON request object field by field (the library's request and
// the service's other bodies share it). Private to the library and the
// service.
//
// A body is one JSON object of at most kMaxNesting levels. null reads as
// absent; a field never read is refused by no_others(), so a typo
// ("max_token") is an error rather than a silent default. Counts are JSON
// integers: 8192, never "8192" or 8192.0. Every failure is a kUsage Error
// about one field, its text one line naming the expectation and what was
// sent (untrusted text quoted):
//   max_tokens: expected a positive integer, got "abc"
#ifndef MEMFIT_REQUEST_JSON_FIELDS_H_
#define MEMFIT_REQUEST_JSON_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/request_field.h"
#include "memfit/result.h"

namespace memfit::request {

using Json = nlohmann::json;

inline constexpr int kMaxNesting = 32;

// Parses `body` as one JSON object. Fails (kUsage) on a body nested deeper
// than kMaxNesting, invalid JSON (a number past a double included) and a
// root that is not an object. Never throws.
Result<Json> parse_object(std::string_view body);

// `value` as the error messages show it: show_untrusted_json, cut after 40
// bytes.
std::string shown(const Json& value);

// "<key>: expected <what>, got <value>".
Error expected(std::string_view key, std::string_view what, const Json& value);

// A request field's JSON value as the texts its row applies
// (request_field.h: JsonForm): an integer as its digits, true / false, a
// number as JSON writes it, a string as it is; a list's array one text per
// element. A value of another kind is "<name>: expected <what>, got
// <value>", and so is a count out of the row's range.
Result<std::vector<std::string>> field_texts(const RequestField& field, const Json& value);

// Reads the fields of one request object; null reads as absent. `object`
// must outlive the reader.
class Fields {
 public:
  explicit Fields(const Json& object) : object_(object) {}

  // The field's value, nullptr when absent or null; marks it read.
  const Json* find(std::string_view key);
  Result<std::optional<std::string>> string(std::string_view key);
  // An integer >= `min`.
  Result<std::optional<uint64_t>> count(std::string_view key, uint64_t min);
  // An array of at most `max_items` integers, each from `min` to `max`.
  Result<std::optional<std::vector<uint64_t>>> counts(std::string_view key, uint64_t min,
                                                      uint64_t max, size_t max_items);
  // true or false.
  Result<std::optional<bool>> boolean(std::string_view key);
  // Fails naming the first field that was never read (quoted).
  Status no_others() const;

 private:
  const Json& object_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace memfit::request

#endif  // MEMFIT_REQUEST_JSON_FIELDS_H_
