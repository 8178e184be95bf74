// scan_canonical_safetensors_index: an index as its writers spell it
// (Python's json.dump, with or without indent), scanned front to back
// without simdjson, with no structural index and each shard name compared
// as written with the one before it (docs/performance.md has what it
// saves). It accepts only a strict subset of JSON:
//
//   index      := ws '{' ws member (ws ',' ws member)* ws '}' ws
//   member     := '"metadata"' ws ':' ws metadata            (at most once)
//               | '"weight_map"' ws ':' ws weight_map        (at most once)
//   metadata   := '{' ws [pair (ws ',' ws pair)*] ws '}'
//   pair       := string ws ':' ws (uint | string)   ("total_size": uint,
//                                                      at most once)
//   weight_map := '{' ws entry (ws ',' ws entry)* ws '}'
//   entry      := string ws ':' ws string
//   ws         := (' ' | '\t' | '\n' | '\r')*
//
// with both members and metadata.total_size present, after checking that
// the whole text is valid UTF-8 (strings and integers as JsonScan takes
// them: no escapes, at most 19 digits). Anything else, and every index
// with an error, goes to the simdjson parser, which reads it from the
// start and words the error: the outcome of a parse is the same.
#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "model/safetensors/json_scan.h"
#include "model/safetensors/index.h"

namespace memfit {
namespace {

// metadata's members; sets `total_bytes` from total_size.
bool scan_metadata(JsonScan& scan, std::optional<uint64_t>& total_bytes) {
  if (!scan.literal("{")) return false;
  scan.skip_whitespace();
  if (scan.literal("}")) return true;
  for (;;) {
    std::string_view key;
    if (!scan.string(key)) return false;
    scan.skip_whitespace();
    if (!scan.literal(":")) return false;
    scan.skip_whitespace();
    if (key == "total_size") {
      uint64_t bytes = 0;
      if (total_bytes || !scan.uint(bytes)) return false;
      total_bytes = bytes;
    } else {
      uint64_t number = 0;
      std::string_view text;
      if (!(scan.next_is('"') ? scan.string(text) : scan.uint(number))) return false;
    }
    scan.skip_whitespace();
    if (scan.literal("}")) return true;
    if (!scan.literal(",")) return false;
    scan.skip_whitespace();
  }
}

// weight_map's entries into index.shard_names (distinct, in order of first
// appearance) and index.tensor_count.
bool scan_weight_map(JsonScan& scan, SafetensorsIndex& index) {
  if (!scan.literal("{")) return false;
  std::unordered_set<std::string_view> seen;  // views into the text
  std::string_view last_shard;
  for (;;) {
    scan.skip_whitespace();
    std::string_view tensor;
    if (!scan.string(tensor)) return false;
    scan.skip_whitespace();
    if (!scan.literal(":")) return false;
    scan.skip_whitespace();
    // Shards come in runs: most values repeat the one before, byte for byte.
    if (index.tensor_count == 0 || !scan.same_string(last_shard)) {
      std::string_view shard;
      if (!scan.string(shard)) return false;
      last_shard = shard;
      if (seen.insert(shard).second) index.shard_names.emplace_back(shard);
    }
    ++index.tensor_count;
    scan.skip_whitespace();
    if (scan.literal("}")) return true;
    if (!scan.literal(",")) return false;
  }
}

}  // namespace

std::optional<SafetensorsIndex> scan_canonical_safetensors_index(std::string_view json) {
  if (!simdjson::validate_utf8(json.data(), json.size())) return std::nullopt;
  JsonScan scan(json.data(), json.data() + json.size());
  SafetensorsIndex index;
  std::optional<uint64_t> total_bytes;
  bool has_weight_map = false;
  bool has_metadata = false;
  scan.skip_whitespace();
  if (!scan.literal("{")) return std::nullopt;
  for (;;) {
    scan.skip_whitespace();
    std::string_view key;
    if (!scan.string(key)) return std::nullopt;
    scan.skip_whitespace();
    if (!scan.literal(":")) return std::nullopt;
    scan.skip_whitespace();
    if (key == "metadata" && !has_metadata) {
      if (!scan_metadata(scan, total_bytes)) return std::nullopt;
      has_metadata = true;
    } else if (key == "weight_map" && !has_weight_map) {
      if (!scan_weight_map(scan, index)) return std::nullopt;
      has_weight_map = true;
    } else {
      return std::nullopt;
    }
    scan.skip_whitespace();
    if (scan.literal("}")) break;
    if (!scan.literal(",")) return std::nullopt;
  }
  scan.skip_whitespace();
  if (!scan.at_end() || !has_weight_map || !total_bytes) return std::nullopt;
  index.total_bytes = *total_bytes;
  std::sort(index.shard_names.begin(), index.shard_names.end());
  return index;
}

}  // namespace memfit
