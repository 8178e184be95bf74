// mlx-lm's KV cache rules the estimate (mlxlm/estimate.cc) applies:
// which models rotate their sliding-window layers, and how a KVCache grows
// (docs/engine-mlxlm.md). Private to the library.
#ifndef MEMFIT_ENGINES_MLXLM_KV_CACHE_H_
#define MEMFIT_ENGINES_MLXLM_KV_CACHE_H_

#include <cstdint>
#include <string_view>

namespace memfit {

// Model types whose mlx-lm make_cache puts sliding-window layers on a
// RotatingKVCache of the window (others keep a full KVCache there).
bool mlxlm_rotates_sliding_layers(std::string_view model_type);

// A KVCache's allocated tokens after `tokens` arrive in chunks of `chunk`
// (the last one shorter), then one at a time up to `tokens + decode`:
// each update that overflows trims to the offset (when it is not a
// multiple of 256) and appends ceil(n / 256) x 256.
uint64_t mlxlm_kv_capacity(uint64_t tokens, uint64_t chunk, uint64_t decode);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_KV_CACHE_H_
