// libFuzzer target: config.json bytes straight into parse_model_config,
// then the KV estimate of whatever parsed, at a large context and batch.
// An error must be clean (fuzz_checks.h); so must every assumption, which
// the report prints.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/kv_cache.h"
#include "memfit/model_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  memfit::Result<memfit::ModelSpec> spec = memfit::parse_model_config(text);
  if (!spec.ok()) {
    memfit_fuzz::check_message(spec.error().message());
    return 0;
  }
  for (const std::string& assumption : spec->assumptions) {
    memfit_fuzz::check_message(assumption);
  }
  memfit::Result<memfit::KvCacheEstimate> kv =
      memfit::estimate_kv_cache(*spec, 1u << 20, 64, memfit::KvElement::kFp16);
  if (!kv.ok()) memfit_fuzz::check_message(kv.error().message());
  return 0;
}
