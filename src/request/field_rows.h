// Row builders for the request field table (request_field.h): a row's
// `apply` and `given` made from where its value lives in EstimateRequest
// and the function that reads its text, so that each row of
// common_fields.cc and the engines' fields.cc is data. Private to the
// library.
#ifndef MEMFIT_REQUEST_FIELD_ROWS_H_
#define MEMFIT_REQUEST_FIELD_ROWS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/request.h"
#include "memfit/request_field.h"
#include "memfit/result.h"

namespace memfit::request {

// The member of `request` that `Path` names, member pointers from
// EstimateRequest down: slot_of<&EstimateRequest::vllm,
// &VllmRequest::block_size>(r) is r.vllm.block_size.
template <auto... Path>
constexpr auto& slot_of(auto& request) {
  return (request .* ... .* Path);
}

// Whether a slot holds a value the request gave: an optional with a
// value, a non-empty text or list.
template <typename T>
bool holds(const std::optional<T>& slot) {
  return slot.has_value();
}
inline bool holds(const std::string& slot) { return !slot.empty(); }
template <typename T>
bool holds(const std::vector<T>& slot) {
  return !slot.empty();
}

// `value` into `slot`, or its error.
template <typename Slot, typename T>
Status put(Slot& slot, Result<T> value) {
  if (!value) return value.error();
  slot = std::move(*value);
  return Status::Ok();
}
// A list's slot: `value` appended.
template <typename T>
Status put(std::vector<T>& slot, Result<T> value) {
  if (!value) return value.error();
  slot.push_back(std::move(*value));
  return Status::Ok();
}

// A text as it is: a name or a path.
inline Result<std::string> text_as_is(std::string_view text) { return std::string(text); }

// `row` reading its text with `Parse` (Result<T>(std::string_view), its
// error returned as it is) into the slot `Path` names. Its `given`, when
// the row has none, is whether that slot holds a value (holds above); a
// slot with a value by default (batch: 1) has the row give its own.
template <auto Parse, auto... Path>
constexpr RequestField parsed_field(RequestField row) {
  row.apply = [](EstimateRequest& r, std::string_view text) { return put(slot_of<Path...>(r), Parse(text)); };
  if constexpr (requires(const EstimateRequest& r) { holds(slot_of<Path...>(r)); }) {
    if (row.given == nullptr) row.given = [](const EstimateRequest& r) { return holds(slot_of<Path...>(r)); };
  }
  return row;
}

}  // namespace memfit::request

#endif  // MEMFIT_REQUEST_FIELD_ROWS_H_
