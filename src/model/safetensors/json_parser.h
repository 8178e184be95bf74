// SafetensorsJsonParser: the JSON half of a safetensors header, validated.
//
// One instance keeps a simdjson on-demand parser (used when the header is
// not in the reference writer's spelling), the padded buffer the text is
// parsed from and three scratch vectors; all keep their capacity
// between calls, so parsing shard after shard allocates nothing once the
// largest header has been seen, except the tensor list a caller asks for.
// Not thread-safe; one instance per thread.
#ifndef MEMFIT_MODEL_SAFETENSORS_JSON_PARSER_H_
#define MEMFIT_MODEL_SAFETENSORS_JSON_PARSER_H_

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/checked_math.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

class SafetensorsJsonParser {
 public:
  // Whether headers in the reference writer's spelling are scanned without
  // simdjson first (model/safetensors/canonical_header.cc). The outcome is the
  // same either way; tests compare the two.
  enum class CanonicalScan { kOn, kOff };
  explicit SafetensorsJsonParser(CanonicalScan canonical_scan = CanonicalScan::kOn)
      : canonical_scan_(canonical_scan) {}

  // Parses `json` (the N header bytes) against a data region of
  // `data_region_bytes`. On success returns the totals and, when `tensors`
  // is not null, appends every tensor to it in header order. On failure
  // returns "safetensors header: <detail>"; *tensors may then hold a prefix
  // of the list.
  Result<SafetensorsSummary> parse(std::string_view json, uint64_t data_region_bytes,
                                   std::vector<SafetensorsTensor>* tensors);

  // The same, for text the caller writes in place: buffer_for(n) returns
  // n writable bytes (followed by simdjson's zeroed padding), and
  // parse_buffer(n, ...) parses the n bytes written there. Saves a copy of
  // the header. `json_bytes` must be bounded by the caller (it is allocated).
  char* buffer_for(size_t json_bytes);
  Result<SafetensorsSummary> parse_buffer(size_t json_bytes, uint64_t data_region_bytes,
                                          std::vector<SafetensorsTensor>* tensors);

 private:
  // One tensor's bytes [begin_byte, end_byte) of the data region. Kept
  // small: sorting these is a tenth of a parse when a writer lists tensors
  // out of offset order.
  struct TensorRange {
    uint64_t begin_byte;
    uint64_t end_byte;
    uint64_t ordinal;  // position in the header: index into names_
  };

  // A tensor entry's fields as read, before validation. `dtype` views the
  // parser's buffers: valid until the next parse().
  struct TensorEntryFields {
    std::string_view dtype;
    uint64_t begin_byte = 0;
    uint64_t end_byte = 0;
  };

  // Reads a tensor entry through the on-demand API; fills `fields` and
  // shape_. Fails on a missing field or one of the wrong type.
  Status read_tensor_fields(std::string_view name, simdjson::ondemand::value& entry_value,
                            TensorEntryFields& fields);
  // Validates one tensor (`fields` and shape_) and records it.
  Status add_tensor(std::string_view name, const TensorEntryFields& fields,
                    uint64_t data_region_bytes, std::vector<SafetensorsTensor>* tensors,
                    CheckedBytes& total_bytes);
  Status check_overlaps();
  // The fast path: the summary of the json_bytes at buffer_, when they are
  // in the reference writer's spelling and hold no error; nullopt (with
  // ranges_, names_ and *tensors as they were) otherwise.
  std::optional<SafetensorsSummary> parse_canonical(size_t json_bytes, uint64_t data_region_bytes,
                                                    std::vector<SafetensorsTensor>* tensors);

  CanonicalScan canonical_scan_;
  simdjson::ondemand::parser parser_;
  // The header text, then SIMDJSON_PADDING zero bytes; buffer_capacity_
  // bytes, left uninitialized where the text goes.
  std::unique_ptr<char[]> buffer_;
  size_t buffer_capacity_ = 0;
  std::vector<TensorRange> ranges_;
  // Tensor names in header order, viewing the parser's string buffer: valid
  // until the next parse().
  std::vector<std::string_view> names_;
  std::vector<uint64_t> shape_;  // the shape of the tensor being parsed
};

}  // namespace memfit

#endif  // MEMFIT_MODEL_SAFETENSORS_JSON_PARSER_H_
