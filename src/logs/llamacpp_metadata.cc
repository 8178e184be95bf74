// llama.cpp's metadata dump, read back into GGUF key/values. The loader
// prints each entry as (src/llama-model-loader.cpp, llama_model_loader's
// constructor):
//   "%s: - kv %3d: %42s %-16s = %s"   index, key, type, value
// where the type is a GGUF type name, or "arr[<element type>,<count>]";
// the value is gguf_kv_to_str's: a number as std::to_string prints it (f32
// with six decimals), a string as is, an array "[a, b, ...]" (strings
// quoted, '\' and '"' escaped); any value longer than 40 characters is cut
// to its first 37 and "...", then newlines are written "\n". Then
//   "%s: - type %4s: %4d tensors"     per ggml type
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "logs/llamacpp_lines.h"

namespace memfit::logs {
namespace {

constexpr size_t kPrintedValueLimit = 40;  // MAX_VALUE_LEN

std::optional<GgufValueType> value_type(std::string_view name) {
  for (uint32_t id = 0; id <= static_cast<uint32_t>(GgufValueType::kFloat64); ++id) {
    const auto type = static_cast<GgufValueType>(id);
    if (gguf_value_type_name(type) == name) return type;
  }
  return std::nullopt;
}

uint32_t width_bytes(GgufValueType type) {
  switch (type) {
    case GgufValueType::kUint8: case GgufValueType::kInt8: case GgufValueType::kBool: return 1;
    case GgufValueType::kUint16: case GgufValueType::kInt16: return 2;
    case GgufValueType::kUint32: case GgufValueType::kInt32: case GgufValueType::kFloat32: return 4;
    default: return 8;
  }
}

bool is_cut(std::string_view value) {
  return value.size() >= kPrintedValueLimit && value.ends_with("...");
}

// One number or bool as std::to_string / gguf_data_to_str print it.
std::optional<GgufValue> scalar_value(GgufValueType type, std::string_view text) {
  text = trim(text);
  GgufValue v;
  v.type = type;
  const bool negative = text.starts_with('-');
  const std::string_view magnitude = negative ? text.substr(1) : text;
  switch (type) {
    case GgufValueType::kBool:
      if (text != "true" && text != "false") return std::nullopt;
      v.data = text == "true";
      return v;
    case GgufValueType::kFloat32: case GgufValueType::kFloat64: {
      Result<PrintedDecimal> number = parse_printed_decimal(magnitude);
      if (!number) return std::nullopt;
      v.data = (negative ? -1.0 : 1.0) * to_double(*number);
      return v;
    }
    case GgufValueType::kInt8: case GgufValueType::kInt16: case GgufValueType::kInt32:
    case GgufValueType::kInt64: {
      const std::optional<uint64_t> count = parse_count(magnitude);
      if (!count || *count > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
      v.data = negative ? -static_cast<int64_t>(*count) : static_cast<int64_t>(*count);
      return v;
    }
    default: {
      const std::optional<uint64_t> count = negative ? std::nullopt : parse_count(text);
      if (!count) return std::nullopt;
      v.data = *count;
      return v;
    }
  }
}

}  // namespace

void append_gguf_number(const GgufValue& v, std::string& bytes) {
  uint64_t raw = 0;
  if (const auto* u = std::get_if<uint64_t>(&v.data)) raw = *u;
  if (const auto* i = std::get_if<int64_t>(&v.data)) raw = static_cast<uint64_t>(*i);
  if (const auto* b = std::get_if<bool>(&v.data)) raw = *b ? 1 : 0;
  if (const auto* d = std::get_if<double>(&v.data)) {
    raw = v.type == GgufValueType::kFloat32 ? std::bit_cast<uint32_t>(static_cast<float>(*d))
                                            : std::bit_cast<uint64_t>(*d);
  }
  for (uint32_t i = 0; i < width_bytes(v.type); ++i) bytes.push_back(static_cast<char>(raw >> (8 * i)));
}

namespace {

// The next quoted string of an array's text, unescaped; advances `text`.
std::optional<std::string> next_quoted(std::string_view& text) {
  if (!text.starts_with('"')) return std::nullopt;
  std::string out;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out.push_back(text[++i]);
    } else if (text[i] == '"') {
      text.remove_prefix(i + 1);
      return out;
    } else {
      out.push_back(text[i]);
    }
  }
  return std::nullopt;
}

// The elements of a whole printed array into `array` (kept), or false
// when they do not read as `count` elements of its type.
bool read_elements(std::string_view body, GgufArray& array) {
  std::string bytes;
  std::vector<std::string> strings;
  uint64_t seen = 0;
  while (!body.empty()) {
    if (array.element_type == GgufValueType::kString) {
      std::optional<std::string> s = next_quoted(body);
      if (!s) return false;
      strings.push_back(std::move(*s));
    } else {
      const size_t comma = body.find(',');
      std::optional<GgufValue> v = scalar_value(array.element_type, body.substr(0, comma));
      if (!v) return false;
      append_gguf_number(*v, bytes);
      body = comma == std::string_view::npos ? std::string_view() : body.substr(comma);
    }
    ++seen;
    if (body.starts_with(", ")) body.remove_prefix(2);
    else if (!body.empty()) return false;
  }
  if (seen != array.count) return false;
  array.number_bytes = std::move(bytes);
  array.strings = std::move(strings);
  array.kept = true;
  return true;
}

// "arr[i32,36]" with its printed value.
std::optional<GgufValue> array_value(std::string_view type, std::string_view value, bool& cut) {
  const std::string_view inner = type.substr(4, type.size() - 5);  // "i32,36"
  const size_t comma = inner.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const std::optional<GgufValueType> element = value_type(inner.substr(0, comma));
  const std::optional<uint64_t> count = parse_count(inner.substr(comma + 1));
  if (!element || !count) return std::nullopt;
  GgufArray array;
  array.element_type = *element;
  array.count = *count;
  const uint64_t keep_limit = *element == GgufValueType::kString ? kMaxGgufKeptStringElements
                                                                 : kMaxGgufKeptNumberElements;
  const bool whole = !is_cut(value) && value.starts_with('[') && value.ends_with(']');
  cut = !whole;
  if (whole && *count <= keep_limit && *element != GgufValueType::kArray) {
    if (!read_elements(value.substr(1, value.size() - 2), array)) {
      array = GgufArray{*element, *count, false, {}, {}};
      cut = true;
    }
  }
  return GgufValue{GgufValueType::kArray, std::move(array)};
}

void read_kv(std::string_view rest, LogBuilder& out) {
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos || !leading_count(rest.substr(0, colon))) return;
  rest = trim(rest.substr(colon + 1));
  const size_t key_end = rest.find(' ');
  if (key_end == std::string_view::npos) return;
  const std::string_view key = rest.substr(0, key_end);
  rest = trim(rest.substr(key_end));
  const size_t type_end = rest.find(' ');
  const std::string_view type = rest.substr(0, type_end);
  rest = type_end == std::string_view::npos ? std::string_view() : trim(rest.substr(type_end));
  if (!rest.starts_with('=')) return;
  std::string_view value = rest.substr(1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  value = trim(value);

  bool cut = false;
  std::optional<GgufValue> parsed;
  if (type.starts_with("arr[") && type.ends_with(']')) {
    parsed = array_value(type, value, cut);
  } else if (const std::optional<GgufValueType> t = value_type(type)) {
    if (*t == GgufValueType::kString) {
      parsed = GgufValue{GgufValueType::kString, std::string(value)};
      cut = is_cut(value);
    } else {
      parsed = scalar_value(*t, value);
      if (!parsed) {  // a float std::to_string wrote past 19 digits: unread
        cut = true;
        parsed = GgufValue{*t, uint64_t{0}};
      }
    }
  }
  LogModel& model = out.model();
  if (!parsed || model.metadata.size() >= kMaxLogMetadataEntries) return;
  for (const GgufKeyValue& kv : model.metadata) {
    if (kv.key == key) return;  // printed twice: the first stands
  }
  model.metadata.push_back(GgufKeyValue{std::string(key), std::move(*parsed)});
  if (cut) model.cut_keys.emplace_back(key);
}

void read_loaded(std::string_view rest, LogModel& model) {
  model.metadata_count = leading_count(rest);
  if (std::optional<std::string_view> tensors = after(rest, "pairs and ")) {
    model.tensor_count = leading_count(*tensors);
  }
  if (std::optional<std::string_view> from = after(rest, " tensors from ")) {
    model.name = std::string(trim(from->substr(0, from->rfind(" (version "))));
  }
}

}  // namespace

bool read_metadata_line(const LogLine& line, LogBuilder& out) {
  if (!contains(line.text, "llama_model_loader:")) return false;
  if (std::optional<std::string_view> rest = after(line.text, "loaded meta data with ")) {
    read_loaded(*rest, out.model());
    // "(version GGUF V2)", "(version GGUF V3 (latest))": the file's GGUF
    // version, which says when it was written (V3 from llama.cpp #3552,
    // 2023-10): the setting gguf_version.
    if (std::optional<std::string_view> v = after(*rest, "(version GGUF V")) {
      if (std::optional<uint64_t> n = leading_count(*v)) out.setting("gguf_version", std::to_string(*n));
    }
  } else if (std::optional<std::string_view> kv = after(line.text, ": - kv ")) {
    read_kv(*kv, out);
  } else if (std::optional<std::string_view> type = after(line.text, ": - type ")) {
    const size_t colon = type->find(':');
    const std::optional<uint64_t> tensors =
        colon == std::string_view::npos ? std::nullopt : leading_count(type->substr(colon + 1));
    if (!tensors) return true;
    out.model().tensor_types.emplace_back(std::string(trim(type->substr(0, colon))), *tensors);
  }
  return true;
}

}  // namespace memfit::logs
