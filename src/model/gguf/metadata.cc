// GgufHeader's metadata getters. Each names the key and what it holds when
// the value is not of the kind asked:
//   gguf metadata: 'llama.block_count' is f32 1.5, not a non-negative integer
#include <fmt/format.h>

#include <limits>
#include <optional>

#include "memfit/gguf.h"
#include "memfit/untrusted_text.h"
#include "model/gguf/values.h"

namespace memfit {
namespace {

constexpr std::string_view kUnsigned = "a non-negative integer";
constexpr std::string_view kSigned = "an integer that fits int64";
constexpr std::string_view kNumber = "a number";

std::optional<uint64_t> as_uint64(const GgufValue& value) {
  if (const auto* number = std::get_if<uint64_t>(&value.data)) return *number;
  if (const auto* number = std::get_if<int64_t>(&value.data); number != nullptr && *number >= 0) {
    return static_cast<uint64_t>(*number);
  }
  return std::nullopt;
}

std::optional<int64_t> as_int64(const GgufValue& value) {
  if (const auto* number = std::get_if<int64_t>(&value.data)) return *number;
  if (const auto* number = std::get_if<uint64_t>(&value.data);
      number != nullptr && *number <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(*number);
  }
  return std::nullopt;
}

std::optional<double> as_float(const GgufValue& value) {
  if (const auto* number = std::get_if<double>(&value.data)) return *number;
  if (const auto* number = std::get_if<uint64_t>(&value.data)) {
    return static_cast<double>(*number);
  }
  if (const auto* number = std::get_if<int64_t>(&value.data)) {
    return static_cast<double>(*number);
  }
  return std::nullopt;
}

Error metadata_error(std::string_view key, std::string_view detail) {
  return Error(fmt::format("gguf metadata: {} {}", quote_untrusted(key), detail));
}

Error missing(std::string_view key) { return metadata_error(key, "is missing"); }

Error not_a(std::string_view key, const GgufValue& value, std::string_view wanted) {
  return metadata_error(key, fmt::format("is {}, not {}", describe_gguf_value(value), wanted));
}

template <typename T, typename Convert>
Result<T> get_scalar(const GgufHeader& header, std::string_view key, Convert convert,
                     std::string_view wanted) {
  const GgufValue* value = header.find(key);
  if (value == nullptr) return missing(key);
  if (std::optional<T> converted = convert(*value)) return *converted;
  return not_a(key, *value, wanted);
}

// The array at `key`, kept, of element types `accepts` says yes to.
template <typename Accepts>
Result<const GgufArray*> kept_array(const GgufHeader& header, std::string_view key, Accepts accepts,
                                    std::string_view wanted) {
  const GgufValue* value = header.find(key);
  if (value == nullptr) return missing(key);
  const auto* array = std::get_if<GgufArray>(&value->data);
  if (array == nullptr || !accepts(array->element_type)) return not_a(key, *value, wanted);
  if (!array->kept) {
    const uint64_t limit = array->element_type == GgufValueType::kString
                               ? kMaxGgufKeptStringElements
                               : kMaxGgufKeptNumberElements;
    return metadata_error(key, fmt::format("is {}, longer than memfit keeps ({} elements)",
                                           describe_gguf_value(*value), limit));
  }
  return array;
}

bool is_number_type(GgufValueType type) {
  return type != GgufValueType::kString && type != GgufValueType::kArray &&
         type != GgufValueType::kBool;
}

// `wanted` is what each element must be, `wanted_array` the whole.
template <typename T, typename Convert>
Result<std::vector<T>> get_number_array(const GgufHeader& header, std::string_view key,
                                        Convert convert, std::string_view wanted,
                                        std::string_view wanted_array) {
  Result<const GgufArray*> array = kept_array(header, key, is_number_type, wanted_array);
  if (!array.ok()) return array.error();
  const GgufArray& numbers = **array;
  const uint64_t width = gguf_fixed_width(static_cast<uint32_t>(numbers.element_type));
  std::vector<T> out;
  out.reserve(numbers.count);  // at most kMaxGgufKeptNumberElements, held in number_bytes
  for (uint64_t i = 0; i < numbers.count; ++i) {
    const GgufValue element = decode_gguf_fixed(
        numbers.element_type, std::string_view(numbers.number_bytes).substr(i * width, width));
    std::optional<T> converted = convert(element);
    if (!converted) {
      return metadata_error(
          key, fmt::format("element {} is {}, not {}", i, describe_gguf_value(element), wanted));
    }
    out.push_back(*converted);
  }
  return out;
}

}  // namespace

const GgufValue* GgufHeader::find(std::string_view key) const {
  for (const GgufKeyValue& entry : metadata) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

Result<uint64_t> GgufHeader::get_uint64(std::string_view key) const {
  return get_scalar<uint64_t>(*this, key, as_uint64, kUnsigned);
}

Result<int64_t> GgufHeader::get_int64(std::string_view key) const {
  return get_scalar<int64_t>(*this, key, as_int64, kSigned);
}

Result<double> GgufHeader::get_float(std::string_view key) const {
  return get_scalar<double>(*this, key, as_float, kNumber);
}

Result<bool> GgufHeader::get_bool(std::string_view key) const {
  return get_scalar<bool>(
      *this, key,
      [](const GgufValue& value) -> std::optional<bool> {
        if (const auto* flag = std::get_if<bool>(&value.data)) return *flag;
        return std::nullopt;
      },
      "a bool");
}

Result<std::string_view> GgufHeader::get_string(std::string_view key) const {
  return get_scalar<std::string_view>(
      *this, key,
      [](const GgufValue& value) -> std::optional<std::string_view> {
        if (const auto* text = std::get_if<std::string>(&value.data)) return *text;
        return std::nullopt;
      },
      "a string");
}

Result<uint64_t> GgufHeader::get_array_count(std::string_view key) const {
  return get_scalar<uint64_t>(
      *this, key,
      [](const GgufValue& value) -> std::optional<uint64_t> {
        if (const auto* array = std::get_if<GgufArray>(&value.data)) return array->count;
        return std::nullopt;
      },
      "an array");
}

Result<std::vector<uint64_t>> GgufHeader::get_uint64_array(std::string_view key) const {
  return get_number_array<uint64_t>(*this, key, as_uint64, kUnsigned,
                                    "an array of non-negative integers");
}

Result<std::vector<int64_t>> GgufHeader::get_int64_array(std::string_view key) const {
  return get_number_array<int64_t>(*this, key, as_int64, kSigned,
                                   "an array of integers that fit int64");
}

Result<std::vector<double>> GgufHeader::get_float_array(std::string_view key) const {
  return get_number_array<double>(*this, key, as_float, kNumber, "an array of numbers");
}

Result<std::vector<std::string>> GgufHeader::get_string_array(std::string_view key) const {
  Result<const GgufArray*> array = kept_array(
      *this, key, [](GgufValueType type) { return type == GgufValueType::kString; },
      "an array of strings");
  if (!array.ok()) return array.error();
  return (*array)->strings;
}

}  // namespace memfit
