// libFuzzer target for model.safetensors.index.json parsing: the input is
// the index's bytes; no disk. Errors must be clean (fuzz_checks.h). Besides
// the invariants of a parsed index: whenever the fast path (the canonical
// scan) takes an input, simdjson's parser must give the same index.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/weights.h"
#include "model/safetensors/index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  {
    const std::string padded =
        std::string(json) + std::string(memfit::kSafetensorsIndexPaddingBytes, '\0');
    const std::string_view text(padded.data(), size);
    std::optional<memfit::SafetensorsIndex> scanned =
        memfit::scan_canonical_safetensors_index(text);
    if (scanned) {
      memfit::Result<memfit::SafetensorsIndex> parsed =
          memfit::parse_padded_safetensors_index_with_simdjson(text);
      if (!parsed.ok() || parsed->shard_names != scanned->shard_names ||
          parsed->total_bytes != scanned->total_bytes ||
          parsed->tensor_count != scanned->tensor_count) {
        __builtin_trap();
      }
    }
  }
  memfit::Result<memfit::SafetensorsIndex> index = memfit::parse_safetensors_index(json);
  if (!index.ok()) {
    memfit_fuzz::check_message(index.error().message());
    return 0;
  }
  // Invariants of a parsed index: distinct names, sorted, at least one.
  const auto& names = index->shard_names;
  if (names.empty() || index->tensor_count < names.size()) __builtin_trap();
  if (std::adjacent_find(names.begin(), names.end(), std::greater_equal<>()) != names.end()) {
    __builtin_trap();
  }
  return 0;
}
