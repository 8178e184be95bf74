// model.safetensors.index.json, parsed with simdjson's on-demand API: the
// index of a checkpoint with a tensor per expert matrix names ~140,000
// tensors (~10 MB), and reading it must not cost more than reading the
// shard headers it stands for.
//
// Layout (include/memfit/weights.h):
//   {"metadata": {"total_size": <uint64 bytes>, ...},
//    "weight_map": {"<tensor name>": "<shard file name>", ...}, ...}
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

#include "base/exception_boundary.h"
#include "memfit/untrusted_text.h"
#include "memfit/weights.h"

namespace memfit {
namespace {

namespace od = simdjson::ondemand;

Error index_error(std::string_view detail) {
  return Error(fmt::format("safetensors index: {}", detail));
}

Error json_error(simdjson::error_code code) {
  return index_error(fmt::format("invalid JSON: {}", simdjson::error_message(code)));
}

bool is_type_error(simdjson::error_code code) {
  return code == simdjson::INCORRECT_TYPE || code == simdjson::NUMBER_ERROR ||
         code == simdjson::NUMBER_OUT_OF_RANGE;
}

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
  // Views into the parser's string buffer; shards come in runs, so the
  // last name short-cuts almost every lookup.
  std::unordered_set<std::string_view> seen;
  std::string_view last_shard;
  for (auto field_result : weight_map) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    std::string_view shard;
    if (auto code = field.value().get_string().get(shard)) {
      if (!is_type_error(code)) return json_error(code);
      // The tensor's name is unescaped only here, for the message: there
      // are ~140,000 of them in a large index and nothing else needs them.
      std::string_view tensor;
      if (auto key_code = field.unescaped_key().get(tensor)) return json_error(key_code);
      return index_error(
          fmt::format("weight_map value of {} is not a string", quote_untrusted(tensor)));
    }
    ++index.tensor_count;
    if (shard == last_shard && index.tensor_count > 1) continue;
    last_shard = shard;
    if (seen.insert(shard).second) index.shard_names.emplace_back(shard);
  }
  if (index.tensor_count == 0) return index_error("weight_map is empty");
  std::sort(index.shard_names.begin(), index.shard_names.end());
  return Status::Ok();
}

Result<SafetensorsIndex> parse_index(std::string_view json) {
  // simdjson may read SIMDJSON_PADDING bytes past the text.
  std::string padded_json;
  padded_json.reserve(json.size() + simdjson::SIMDJSON_PADDING);
  padded_json.assign(json);
  padded_json.append(simdjson::SIMDJSON_PADDING, '\0');

  od::parser parser;
  od::document doc;
  if (auto code = parser.iterate(padded_json.data(), json.size(), padded_json.size()).get(doc)) {
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

}  // namespace

Result<SafetensorsIndex> parse_safetensors_index(std::string_view json) {
  return without_exceptions("parse_safetensors_index", [&] { return parse_index(json); });
}

}  // namespace memfit
