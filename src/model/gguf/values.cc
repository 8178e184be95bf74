// GGUF's fixed-size values: type names, widths and decoding
// (model/gguf/values.h).
#include "model/gguf/values.h"

#include <fmt/format.h>

#include <bit>

#include "memfit/untrusted_text.h"

namespace memfit {

std::string_view gguf_value_type_name(GgufValueType type) {
  switch (type) {
    case GgufValueType::kUint8:
      return "u8";
    case GgufValueType::kInt8:
      return "i8";
    case GgufValueType::kUint16:
      return "u16";
    case GgufValueType::kInt16:
      return "i16";
    case GgufValueType::kUint32:
      return "u32";
    case GgufValueType::kInt32:
      return "i32";
    case GgufValueType::kFloat32:
      return "f32";
    case GgufValueType::kBool:
      return "bool";
    case GgufValueType::kString:
      return "str";
    case GgufValueType::kArray:
      return "arr";
    case GgufValueType::kUint64:
      return "u64";
    case GgufValueType::kInt64:
      return "i64";
    case GgufValueType::kFloat64:
      return "f64";
  }
  return "?";
}

uint64_t gguf_fixed_width(uint32_t type) {
  switch (static_cast<GgufValueType>(type)) {
    case GgufValueType::kUint8:
    case GgufValueType::kInt8:
    case GgufValueType::kBool:
      return 1;
    case GgufValueType::kUint16:
    case GgufValueType::kInt16:
      return 2;
    case GgufValueType::kUint32:
    case GgufValueType::kInt32:
    case GgufValueType::kFloat32:
      return 4;
    case GgufValueType::kUint64:
    case GgufValueType::kInt64:
    case GgufValueType::kFloat64:
      return 8;
    case GgufValueType::kString:
    case GgufValueType::kArray:
      return 0;
  }
  return 0;  // an id past the last type
}

uint64_t decode_gguf_le(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size() && i < 8; ++i) {
    value |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  }
  return value;
}

GgufValue decode_gguf_fixed(GgufValueType type, std::string_view bytes) {
  const uint64_t bits = decode_gguf_le(bytes);
  GgufValue value;
  value.type = type;
  switch (type) {
    case GgufValueType::kInt8:
      value.data = int64_t{static_cast<int8_t>(bits)};
      break;
    case GgufValueType::kInt16:
      value.data = int64_t{static_cast<int16_t>(bits)};
      break;
    case GgufValueType::kInt32:
      value.data = int64_t{static_cast<int32_t>(bits)};
      break;
    case GgufValueType::kInt64:
      value.data = static_cast<int64_t>(bits);
      break;
    case GgufValueType::kFloat32:
      value.data = double{std::bit_cast<float>(static_cast<uint32_t>(bits))};
      break;
    case GgufValueType::kFloat64:
      value.data = std::bit_cast<double>(bits);
      break;
    case GgufValueType::kBool:
      value.data = bits != 0;  // ggml reads any non-zero byte as true
      break;
    default:  // the unsigned types
      value.data = bits;
      break;
  }
  return value;
}

std::string describe_gguf_value(const GgufValue& value) {
  const std::string_view type = gguf_value_type_name(value.type);
  if (const auto* number = std::get_if<uint64_t>(&value.data)) {
    return fmt::format("{} {}", type, *number);
  }
  if (const auto* number = std::get_if<int64_t>(&value.data)) {
    return fmt::format("{} {}", type, *number);
  }
  if (const auto* number = std::get_if<double>(&value.data)) {
    return fmt::format("{} {}", type, *number);
  }
  if (const auto* flag = std::get_if<bool>(&value.data)) {
    return fmt::format("{} {}", type, *flag ? "true" : "false");
  }
  if (const auto* text = std::get_if<std::string>(&value.data)) {
    return fmt::format("{} {}", type, quote_untrusted(*text));
  }
  const auto& array = std::get<GgufArray>(value.data);
  return fmt::format("an array of {} {}", array.count, gguf_value_type_name(array.element_type));
}

}  // namespace memfit
