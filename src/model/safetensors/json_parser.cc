// SafetensorsJsonParser (model/safetensors/json_parser.h): the JSON half of
// a safetensors header, walked once, front to back, with simdjson's
// on-demand API. Each tensor's fields are checked as they are read and only
// its [begin, end) range and a view of its name are kept (ranges_) for the
// overlap check at the end, so summary mode allocates nothing per tensor.
// Headers in the reference writer's spelling are scanned first without
// simdjson (model/safetensors/canonical_header.cc); this parser reads
// everything else and words every error (docs/performance.md).
//
// The header, as memfit reads it (field order is free; a repeated field's
// last value wins; values memfit does not read are skipped unvalidated):
//   header := { ("__metadata__": any | <name>: tensor)* }   then only spaces
//   tensor := { "dtype": string, "shape": [uint64*],
//               "data_offsets": [uint64 begin, uint64 end], <other>: any }
// Offsets are bytes relative to the start of the data region (8 + N).
#include "model/safetensors/json_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "model/error_text.h"
#include "model/safetensors/json_errors.h"

namespace memfit {
namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view kDocument = "safetensors header";

Error header_error(std::string_view detail) { return json_document_error(kDocument, detail); }
Error json_error(simdjson::error_code code) { return invalid_json_error(kDocument, code); }

std::string_view json_type_name(od::json_type type) {
  switch (type) {
    case od::json_type::array:
      return "an array";
    case od::json_type::object:
      return "an object";
    case od::json_type::number:
      return "a number";
    case od::json_type::string:
      return "a string";
    case od::json_type::boolean:
      return "a boolean";
    case od::json_type::null:
      return "null";
  }
  return "not a JSON value";
}

// The tensor fields memfit reads.
enum class TensorField { kDtype, kShape, kDataOffsets, kOther };

TensorField tensor_field(std::string_view key) {
  if (key == "dtype") return TensorField::kDtype;
  if (key == "shape") return TensorField::kShape;
  if (key == "data_offsets") return TensorField::kDataOffsets;
  return TensorField::kOther;
}

// Which field `member` is. Compares the key as written (with its closing
// quote), which is what every writer emits; only a key holding an escape
// ("dtyp\u0065") is unescaped first. Unescaping every key would cost ~10%
// of a parse. Reading up to 13 bytes from the key's start stays inside the
// buffer: the document is followed by SIMDJSON_PADDING bytes.
simdjson::simdjson_result<TensorField> tensor_field(od::field& member) {
  const char* key = member.key().raw();
  auto is = [key](std::string_view quoted_key) {
    return std::memcmp(key, quoted_key.data(), quoted_key.size()) == 0;
  };
  if (is("dtype\"")) return TensorField::kDtype;
  if (is("shape\"")) return TensorField::kShape;
  if (is("data_offsets\"")) return TensorField::kDataOffsets;
  const char* c = key;
  while (*c != '"' && *c != '\\') ++c;  // stage 1 checked that the string is closed
  if (*c == '"') return TensorField::kOther;
  std::string_view unescaped;
  if (auto code = member.unescaped_key().get(unescaped)) return code;
  return tensor_field(unescaped);
}

// Calls on_element(uint64_t) for each element of the array `value`.
// Returns SUCCESS, a type error (not an array, an element that is not a
// non-negative integer below 2^64) or a JSON error.
template <typename OnElement>
simdjson::error_code for_each_uint64(od::value& value, OnElement&& on_element) {
  od::array array;
  if (auto code = value.get_array().get(array)) return code;
  for (auto element : array) {
    uint64_t number = 0;
    if (auto code = element.get_uint64().get(number)) return code;
    on_element(number);
  }
  return simdjson::SUCCESS;
}

}  // namespace

Result<SafetensorsSummary> SafetensorsJsonParser::parse(std::string_view json,
                                                        uint64_t data_region_bytes,
                                                        std::vector<SafetensorsTensor>* tensors) {
  char* text = buffer_for(json.size());
  if (!json.empty()) std::memcpy(text, json.data(), json.size());
  return parse_buffer(json.size(), data_region_bytes, tensors);
}

// Buffers grow to the next power of two: a checkpoint's headers differ in
// size by a few bytes, and growing to each exact size in turn would
// allocate (and fault in fresh pages) again and again. At most 2x the
// largest header, itself at most 256 MiB.
char* SafetensorsJsonParser::buffer_for(size_t json_bytes) {
  // Saturated: a length that cannot be padded fails to allocate (an
  // internal error at the boundary) rather than wrapping around.
  constexpr size_t kMost = std::numeric_limits<size_t>::max();
  const size_t needed = json_bytes > kMost - simdjson::SIMDJSON_PADDING
                            ? kMost
                            : json_bytes + simdjson::SIMDJSON_PADDING;
  if (needed > buffer_capacity_) {
    // No power of two is above 2^63: such a size gets itself (and fails).
    buffer_capacity_ = needed > kMost / 2 ? needed : std::bit_ceil(needed);
    buffer_ = std::make_unique_for_overwrite<char[]>(buffer_capacity_);
  }
  // simdjson may read up to SIMDJSON_PADDING bytes past the text; they are
  // zeroed so that what it sees there never depends on old buffer contents.
  std::memset(buffer_.get() + json_bytes, 0, simdjson::SIMDJSON_PADDING);
  return buffer_.get();
}

Result<SafetensorsSummary> SafetensorsJsonParser::parse_buffer(
    size_t json_bytes, uint64_t data_region_bytes, std::vector<SafetensorsTensor>* tensors) {
  ranges_.clear();
  names_.clear();
  if (canonical_scan_ == CanonicalScan::kOn) {
    if (auto summary = parse_canonical(json_bytes, data_region_bytes, tensors)) return *summary;
  }

  od::document doc;
  if (json_bytes > parser_.capacity()) {
    if (auto code = parser_.allocate(std::bit_ceil(json_bytes))) return json_error(code);
  }
  if (auto code = parser_.iterate(buffer_.get(), json_bytes, json_bytes + simdjson::SIMDJSON_PADDING)
                     .get(doc)) {
    return json_error(code);
  }
  od::object root;
  if (auto code = doc.get_object().get(root)) {
    od::json_type type{};
    if (code == simdjson::INCORRECT_TYPE && doc.type().get(type) == simdjson::SUCCESS) {
      return header_error(fmt::format("JSON is {}, not an object", json_type_name(type)));
    }
    if (code == simdjson::INCORRECT_TYPE) {  // simdjson found no type: "<html>", "x"
      return header_error("invalid JSON: the text does not start with a JSON value");
    }
    return json_error(code);
  }

  CheckedBytes total_bytes;
  for (auto field_result : root) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    std::string_view name;
    if (auto code = field.unescaped_key().get(name)) return json_error(code);
    if (name == "__metadata__") continue;  // free-form; the iterator skips it
    TensorEntryFields fields;
    Status status = read_tensor_fields(name, field.value(), fields);
    if (status.ok()) status = add_tensor(name, fields, data_region_bytes, tensors, total_bytes);
    if (!status.ok()) return status.error();
  }
  // OUT_OF_BOUNDS here means every token was consumed: nothing follows the
  // object but whitespace.
  const char* location = nullptr;
  if (doc.current_location().get(location) != simdjson::OUT_OF_BOUNDS) {
    return header_error("unexpected text after the JSON object");
  }
  if (Status status = check_overlaps(); !status.ok()) return status.error();
  // Unreachable after check_overlaps (disjoint ranges of one region cannot
  // overflow), kept so the invariant does not rest on that argument.
  if (total_bytes.overflowed()) return header_error("tensor bytes add up to more than 2^64");
  return SafetensorsSummary{*total_bytes.value(), ranges_.size()};
}

Status SafetensorsJsonParser::read_tensor_fields(std::string_view name, od::value& entry_value,
                                                 TensorEntryFields& fields) {
  od::object entry;
  if (auto code = entry_value.get_object().get(entry)) {
    if (is_type_error(code)) {
      return header_error(fmt::format("entry {} is not an object", quote_untrusted(name)));
    }
    return json_error(code);
  }
  uint64_t offsets[2] = {0, 0};
  size_t offset_count = 0;
  bool has_dtype = false;
  bool has_shape = false;
  bool has_offsets = false;
  for (auto member_result : entry) {
    od::field member;
    if (auto code = std::move(member_result).get(member)) return json_error(code);
    TensorField field = TensorField::kOther;
    if (auto code = tensor_field(member).get(field)) return json_error(code);
    if (field == TensorField::kDtype) {
      if (auto code = member.value().get_string().get(fields.dtype)) {
        if (is_type_error(code)) {
          return header_error(fmt::format("dtype of {} is not a string", quote_untrusted(name)));
        }
        return json_error(code);
      }
      has_dtype = true;
    } else if (field == TensorField::kShape) {
      shape_.clear();
      auto code = for_each_uint64(member.value(), [this](uint64_t dim) { shape_.push_back(dim); });
      if (code) {
        if (is_type_error(code)) {
          return header_error(fmt::format("shape of {} is not an array of non-negative integers",
                                          quote_untrusted(name)));
        }
        return json_error(code);
      }
      has_shape = true;
    } else if (field == TensorField::kDataOffsets) {
      offset_count = 0;
      auto code = for_each_uint64(member.value(), [&](uint64_t offset) {
        if (offset_count < 2) offsets[offset_count] = offset;
        ++offset_count;
      });
      if (code && !is_type_error(code)) return json_error(code);
      if (code || offset_count != 2) {
        return header_error(
            fmt::format("data_offsets of {} is not an array of two non-negative integers",
                        quote_untrusted(name)));
      }
      has_offsets = true;
    }
  }
  if (!has_dtype) return header_error(fmt::format("tensor {} has no dtype", quote_untrusted(name)));
  if (!has_shape) return header_error(fmt::format("tensor {} has no shape", quote_untrusted(name)));
  if (!has_offsets) {
    return header_error(fmt::format("tensor {} has no data_offsets", quote_untrusted(name)));
  }

  fields.begin_byte = offsets[0];
  fields.end_byte = offsets[1];
  return Status::Ok();
}

Status SafetensorsJsonParser::add_tensor(std::string_view name, const TensorEntryFields& fields,
                                         uint64_t data_region_bytes,
                                         std::vector<SafetensorsTensor>* tensors,
                                         CheckedBytes& total_bytes) {
  const std::string_view dtype = fields.dtype;
  const uint64_t begin_byte = fields.begin_byte;
  const uint64_t end_byte = fields.end_byte;
  if (begin_byte > end_byte) {
    return header_error(fmt::format("data_offsets of {} [{}, {}] are reversed",
                                    quote_untrusted(name), begin_byte, end_byte));
  }
  if (end_byte > data_region_bytes) {
    return header_error(fmt::format("data_offsets of {} [{}, {}] run past the {}-byte data region",
                                    quote_untrusted(name), begin_byte, end_byte,
                                    data_region_bytes));
  }
  const uint64_t data_bytes = end_byte - begin_byte;

  CheckedBytes elements = 1;
  for (uint64_t dim : shape_) elements *= dim;
  if (elements.overflowed()) {
    return header_error(fmt::format("shape {} of {} has more than 2^64 elements",
                                    format_shape(shape_), quote_untrusted(name)));
  }
  // Known widths only; dtype is then one of ours and safe to print as is.
  if (const uint64_t width_bytes = safetensors_dtype_width(dtype); width_bytes != 0) {
    const CheckedBytes expected_bytes = elements * width_bytes;
    if (expected_bytes.overflowed()) {
      return header_error(fmt::format("{} is {} {}: more than 2^64 bytes", quote_untrusted(name),
                                      dtype, format_shape(shape_)));
    }
    if (*expected_bytes.value() != data_bytes) {
      return header_error(
          fmt::format("{} is {} {}, {} bytes, but its data_offsets [{}, {}] hold {} bytes",
                      quote_untrusted(name), dtype, format_shape(shape_), *expected_bytes.value(),
                      begin_byte, end_byte, data_bytes));
    }
  }

  ranges_.push_back(TensorRange{begin_byte, end_byte, ranges_.size()});
  names_.push_back(name);
  total_bytes += data_bytes;
  if (tensors != nullptr) {
    tensors->push_back(
        SafetensorsTensor{std::string(name), std::string(dtype), shape_, data_bytes});
  }
  return Status::Ok();
}

Status SafetensorsJsonParser::check_overlaps() {
  auto by_offset = [](const TensorRange& a, const TensorRange& b) {
    if (a.begin_byte != b.begin_byte) return a.begin_byte < b.begin_byte;
    if (a.end_byte != b.end_byte) return a.end_byte < b.end_byte;
    return a.ordinal < b.ordinal;
  };
  // The reference writer lists tensors in offset order; sort only when not.
  if (!std::is_sorted(ranges_.begin(), ranges_.end(), by_offset)) {
    std::sort(ranges_.begin(), ranges_.end(), by_offset);
  }
  // Sorted by begin, the ranges are disjoint iff each begins at or after
  // the end of the one before it.
  for (size_t i = 1; i < ranges_.size(); ++i) {
    const TensorRange& before = ranges_[i - 1];
    const TensorRange& range = ranges_[i];
    if (range.begin_byte < before.end_byte) {
      return header_error(fmt::format("data_offsets of {} [{}, {}] overlap those of {} [{}, {}]",
                                      quote_untrusted(names_[range.ordinal]), range.begin_byte,
                                      range.end_byte, quote_untrusted(names_[before.ordinal]),
                                      before.begin_byte, before.end_byte));
    }
  }
  return Status::Ok();
}

}  // namespace memfit
