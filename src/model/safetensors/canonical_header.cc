// SafetensorsJsonParser::parse_canonical: a header as the reference writer
// (safetensors' Rust core) spells it, scanned front to back without
// simdjson, with no structural index and no token visited twice
// (docs/performance.md has what it saves). It accepts only that spelling, a
// strict subset of JSON:
//
//   header   := '{' [entry (',' entry)*] '}' ' '*
//   entry    := string ':' (metadata  when the string is "__metadata__"
//                          | tensor)
//   metadata := '{' [string ':' string (',' string ':' string)*] '}'
//   tensor   := '{"dtype":' string ',"shape":[' [uint (',' uint)*] ']'
//               ',"data_offsets":[' uint ',' uint ']}'
//   string   := '"' (any byte but '"', '\' and 0x00-0x1F)* '"'
//   uint     := '0' | [1-9][0-9]*, at most 19 digits
//
// after checking that the whole text is valid UTF-8, as simdjson does. Any
// other text (whitespace, escapes, other field orders or fields), and every
// header with an error, goes to the general parser, which reads it from
// the start and words the error: so the outcome of a parse is the general
// parser's, always, and this file only makes it sooner.
//
// The tokens are read with JsonScan (model/safetensors/json_scan.h); the text is
// followed by SIMDJSON_PADDING zero bytes (SafetensorsJsonParser::buffer_for).
#include <simdjson.h>

#include <optional>
#include <string_view>

#include "model/safetensors/json_scan.h"
#include "model/safetensors/json_parser.h"

namespace memfit {

std::optional<SafetensorsSummary> SafetensorsJsonParser::parse_canonical(
    size_t json_bytes, uint64_t data_region_bytes, std::vector<SafetensorsTensor>* tensors) {
  const char* text = buffer_.get();
  if (!simdjson::validate_utf8(text, json_bytes)) return std::nullopt;
  const size_t tensors_before = tensors != nullptr ? tensors->size() : 0;
  auto fall_back = [&]() -> std::optional<SafetensorsSummary> {
    if (tensors != nullptr) tensors->resize(tensors_before);
    ranges_.clear();
    names_.clear();
    return std::nullopt;
  };

  JsonScan scan(text, text + json_bytes);
  CheckedBytes total_bytes;
  if (!scan.literal("{")) return fall_back();
  if (!scan.literal("}")) {
    for (;;) {
      std::string_view name;
      if (!scan.string(name) || !scan.literal(":")) return fall_back();
      if (name == "__metadata__") {
        if (!scan.literal("{")) return fall_back();
        if (!scan.literal("}")) {
          for (;;) {
            std::string_view key, value;
            if (!scan.string(key) || !scan.literal(":") || !scan.string(value)) return fall_back();
            if (scan.literal(",")) continue;
            if (scan.literal("}")) break;
            return fall_back();
          }
        }
      } else {
        TensorEntryFields fields;
        if (!scan.literal(R"({"dtype":)") || !scan.string(fields.dtype) ||
            !scan.literal(R"(,"shape":[)")) {
          return fall_back();
        }
        shape_.clear();
        if (!scan.literal("]")) {
          for (;;) {
            uint64_t dim = 0;
            if (!scan.uint(dim)) return fall_back();
            shape_.push_back(dim);
            if (scan.literal(",")) continue;
            if (scan.literal("]")) break;
            return fall_back();
          }
        }
        if (!scan.literal(R"(,"data_offsets":[)") || !scan.uint(fields.begin_byte) ||
            !scan.literal(",") || !scan.uint(fields.end_byte) || !scan.literal("]}")) {
          return fall_back();
        }
        if (!add_tensor(name, fields, data_region_bytes, tensors, total_bytes).ok()) {
          return fall_back();
        }
      }
      if (scan.literal(",")) continue;
      if (scan.literal("}")) break;
      return fall_back();
    }
  }
  scan.skip_spaces();
  if (!scan.at_end()) return fall_back();
  if (!check_overlaps().ok() || total_bytes.overflowed()) return fall_back();
  return SafetensorsSummary{*total_bytes.value(), ranges_.size()};
}

}  // namespace memfit
