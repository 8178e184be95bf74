// The paged-decode workspace the mlxcel profile's estimate
// (memfit/mlxcel.h, MlxcelEstimate::per_slot_overhead_bytes) counts per slot
// (docs/engine-mlxcel.md). Private to the library.
#ifndef MEMFIT_ENGINES_MLXCEL_DECODE_WORKSPACE_H_
#define MEMFIT_ENGINES_MLXCEL_DECODE_WORKSPACE_H_

#include <cstdint>
#include <optional>

#include "memfit/mlxcel.h"
#include "memfit/model_spec.h"

namespace memfit {

// Paged-decode workspace of the families served from a paged KV pool
// (llama, llama4, qwen3, qwen3_5, gemma3), in bytes:
//   2 x (ceil(2 x target_ctas / kv_heads) + batch) x (kv_heads x 16) x (head_dim + 1) x 4
// with target_ctas = 512, or 8 x GPU cores on Metal. nullopt for other
// families and when kv_heads or head_dim is unknown.
std::optional<uint64_t> per_slot_decode_workspace_bytes(const ModelSpec& spec, uint64_t batch,
                                                        const Platform& platform);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXCEL_DECODE_WORKSPACE_H_
