// The KV cache fields an engine with its own cache type field refuses by
// name (mlx-lm's kv_bits, vLLM's kv_cache_dtype, SGLang's
// sglang_kv_cache_dtype): docs/engines.md.
#ifndef MEMFIT_SRC_ENGINES_SHARED_CACHE_TYPE_FIELD_H_
#define MEMFIT_SRC_ENGINES_SHARED_CACHE_TYPE_FIELD_H_

#include <string_view>

#include "memfit/request.h"

namespace memfit {

// The first of mlxcel's kv_cache_mode, the cache_type_k and the
// cache_type_v (common or llama.cpp's) the request gives; "" when none.
inline std::string_view other_cache_type_field(const EstimateRequest& r) {
  if (r.kv_cache_mode) return "kv_cache_mode";
  if (r.cache_type_k || r.llamacpp.cache_type_k) return "cache_type_k";
  if (r.cache_type_v || r.llamacpp.cache_type_v) return "cache_type_v";
  return "";
}

}  // namespace memfit

#endif  // MEMFIT_SRC_ENGINES_SHARED_CACHE_TYPE_FIELD_H_
