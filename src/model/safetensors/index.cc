// model.safetensors.index.json parsed with simdjson's on-demand API: every
// index the canonical scan (model/safetensors/canonical_index.cc) does not
// take, and every error's wording. Layout (include/memfit/weights.h):
//   {"metadata": {"total_size": <uint64 bytes>, ...},
//    "weight_map": {"<tensor name>": "<shard file name>", ...}, ...}
// What costs is memory touched (docs/performance.md): the text is parsed
// where it lies (model/safetensors/index.h), and the ~140,000 shard names of
// weight_map are compared as raw JSON tokens, views into the text; shards
// come in runs, and only the first tensor of each run has its shard name
// unescaped (into simdjson's string buffer) and looked up.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <unordered_set>

#include "base/exception_boundary.h"
#include "memfit/untrusted_text.h"
#include "memfit/weights.h"
#include "model/safetensors/index.h"
#include "model/safetensors/json_errors.h"

namespace memfit {
namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view kDocument = "safetensors index";

Error index_error(std::string_view detail) { return json_document_error(kDocument, detail); }
Error json_error(simdjson::error_code code) { return invalid_json_error(kDocument, code); }

// metadata.total_size as bytes: a JSON integer in [0, 2^64), or a float
// with such an integral value; an error for anything else.
Result<uint64_t> parse_total_size(od::value& value) {
  const Error not_integer = index_error("metadata.total_size is not a non-negative integer");
  od::number number;
  if (auto code = value.get_number().get(number)) {
    if (is_type_error(code)) return not_integer;
    return json_error(code);
  }
  switch (number.get_number_type()) {
    case od::number_type::unsigned_integer:
      return number.get_uint64();
    case od::number_type::signed_integer:
      if (number.get_int64() < 0) return not_integer;
      return static_cast<uint64_t>(number.get_int64());
    case od::number_type::floating_point_number: {
      const double bytes = number.get_double();
      // 2^64 is exactly representable; the largest double below it fits.
      if (!(bytes >= 0.0 && bytes < 18446744073709551616.0) || std::floor(bytes) != bytes) {
        return not_integer;
      }
      return static_cast<uint64_t>(bytes);
    }
  }
  return not_integer;
}

// Reads the weight_map object into index.shard_names (distinct, sorted) and
// index.tensor_count.
Status parse_weight_map(od::value& value, SafetensorsIndex& index) {
  od::object weight_map;
  if (auto code = value.get_object().get(weight_map)) {
    if (is_type_error(code)) return index_error("weight_map is not an object");
    return json_error(code);
  }
  // Distinct names, as views into the parser's string buffer (valid until
  // the next parse).
  std::unordered_set<std::string_view> seen;
  // The last value's raw token: '"', the name as written, '"', then any
  // whitespace before the next ',' or '}'. An identical token is the same
  // shard; a different one is unescaped and looked up.
  std::string_view last_token;
  for (auto field_result : weight_map) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    od::value& value = field.value();
    const std::string_view token = value.raw_json_token();
    if (token == last_token) {
      // Consumes the value; last_token was a string, so this one is.
      od::raw_json_string raw;
      if (auto code = value.get_raw_json_string().get(raw)) return json_error(code);
      ++index.tensor_count;
      continue;
    }
    std::string_view shard;
    if (auto code = value.get_string().get(shard)) {
      if (!is_type_error(code)) return json_error(code);
      // The tensor's name is unescaped only here, for the message: there
      // are ~140,000 of them in a large index and nothing else needs them.
      std::string_view tensor;
      if (auto key_code = field.unescaped_key().get(tensor)) return json_error(key_code);
      return index_error(
          fmt::format("weight_map value of {} is not a string", quote_untrusted(tensor)));
    }
    ++index.tensor_count;
    last_token = token;
    if (seen.insert(shard).second) index.shard_names.emplace_back(shard);
  }
  if (index.tensor_count == 0) return index_error("weight_map is empty");
  std::sort(index.shard_names.begin(), index.shard_names.end());
  return Status::Ok();
}

}  // namespace

static_assert(kSafetensorsIndexPaddingBytes >= simdjson::SIMDJSON_PADDING);

Result<SafetensorsIndex> parse_safetensors_index(std::string_view json) {
  // Not zero-filled: the copy overwrites the text, the padding is set here.
  auto padded = std::make_unique_for_overwrite<char[]>(json.size() + kSafetensorsIndexPaddingBytes);
  if (!json.empty()) std::memcpy(padded.get(), json.data(), json.size());
  std::memset(padded.get() + json.size(), 0, kSafetensorsIndexPaddingBytes);
  return parse_padded_safetensors_index(std::string_view(padded.get(), json.size()));
}

Result<SafetensorsIndex> parse_padded_safetensors_index(std::string_view json) {
  return without_exceptions("parse_safetensors_index", [&]() -> Result<SafetensorsIndex> {
    if (std::optional<SafetensorsIndex> index = scan_canonical_safetensors_index(json)) {
      return std::move(*index);
    }
    return parse_padded_safetensors_index_with_simdjson(json);
  });
}

Result<SafetensorsIndex> parse_padded_safetensors_index_with_simdjson(std::string_view json) {
  // A fresh parser sizes its capacity to the document: simdjson reserves
  // its structural index and string buffer for the worst case, but only
  // the pages used are touched (4 bytes per token: ~2 MB for a 13 MB index).
  od::parser parser;
  od::document doc;
  const size_t readable_bytes = json.size() + kSafetensorsIndexPaddingBytes;
  if (auto code = parser.iterate(json.data(), json.size(), readable_bytes).get(doc)) {
    return json_error(code);
  }
  od::object root;
  if (auto code = doc.get_object().get(root)) {
    od::json_type type{};
    if (code == simdjson::INCORRECT_TYPE && doc.type().get(type) == simdjson::SUCCESS &&
        type != od::json_type::object) {
      return index_error("JSON is not an object");
    }
    if (code == simdjson::INCORRECT_TYPE) {
      return index_error("invalid JSON: the text does not start with a JSON value");
    }
    return json_error(code);
  }
  SafetensorsIndex index;
  bool has_weight_map = false;
  bool has_total_size = false;
  for (auto field_result : root) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return json_error(code);
    if (key == "weight_map") {
      index.shard_names.clear();
      index.tensor_count = 0;
      if (Status status = parse_weight_map(field.value(), index); !status.ok()) {
        return status.error();
      }
      has_weight_map = true;
    } else if (key == "metadata") {
      od::object metadata;
      if (auto code = field.value().get_object().get(metadata)) {
        if (is_type_error(code)) return index_error("metadata is not an object");
        return json_error(code);
      }
      for (auto member_result : metadata) {
        od::field member;
        if (auto code = std::move(member_result).get(member)) return json_error(code);
        std::string_view member_key;
        if (auto code = member.unescaped_key().get(member_key)) return json_error(code);
        if (member_key != "total_size") continue;
        Result<uint64_t> total_bytes = parse_total_size(member.value());
        if (!total_bytes.ok()) return total_bytes.error();
        index.total_bytes = *total_bytes;
        has_total_size = true;
      }
    }
  }
  const char* location = nullptr;
  if (doc.current_location().get(location) != simdjson::OUT_OF_BOUNDS) {
    return index_error("unexpected text after the JSON object");
  }
  if (!has_weight_map) return index_error("no weight_map");
  if (!has_total_size) return index_error("no metadata.total_size");
  return index;
}

}  // namespace memfit
