// libFuzzer target for model.safetensors.index.json parsing: the input is
// the index's bytes; no disk.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memfit/weights.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  memfit::Result<memfit::SafetensorsIndex> index = memfit::parse_safetensors_index(json);
  if (!index.ok()) {
    if (index.error().message().find('\n') != std::string::npos) __builtin_trap();
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
