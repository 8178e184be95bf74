// libFuzzer target for model.safetensors.index.json parsing: the input is
// the index's bytes; no disk. Errors must be clean (fuzz_checks.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/weights.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
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
