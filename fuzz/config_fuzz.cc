// libFuzzer target: config.json bytes straight into parse_model_config,
// then the KV estimate of whatever parsed, at a large context and batch.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memfit/kv_cache.h"
#include "memfit/model_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  memfit::Result<memfit::ModelSpec> spec = memfit::parse_model_config(text);
  if (spec.ok()) {
    (void)memfit::estimate_kv_cache(*spec, 1u << 20, 64, memfit::KvElement::kFp16);
  }
  return 0;
}
