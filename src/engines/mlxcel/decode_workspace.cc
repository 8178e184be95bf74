// The paged-decode workspace a paged-KV runtime reserves per slot:
//   2 x (ceil(2 x target_ctas / kv_heads) + batch) x (kv_heads x 16) x (head_dim + 1) x 4 bytes
// target_ctas = 512, or 8 x GPU cores on Metal. At 8 KV heads x head_dim
// 128, batch 1: 2 x 129 x 128 x 129 x 4 = 17,040,384 bytes (~16 MiB).
#include "engines/mlxcel/decode_workspace.h"
#include "memfit/checked_math.h"
#include "model/config/family.h"

namespace memfit {

std::optional<uint64_t> per_slot_decode_workspace_bytes(const ModelSpec& spec, uint64_t batch,
                                                        const Platform& platform) {
  const ModelGeometry& g = spec.geometry;
  if (!is_paged_family(spec.family) || g.kv_heads == 0 || g.head_dim == 0) return std::nullopt;
  uint64_t target_ctas = 512;
  if (platform.backend == Backend::kMetal && platform.metal_gpu_cores > 0) {
    target_ctas = 8 * platform.metal_gpu_cores;
  }
  CheckedBytes partitions = CheckedBytes::ceil_div(CheckedBytes(2) * target_ctas, g.kv_heads);
  CheckedBytes bytes = CheckedBytes(2) * (partitions + batch) * (CheckedBytes(g.kv_heads) * 16) *
                       (CheckedBytes(g.head_dim) + 1) * 4;
  return bytes.value();
}

}  // namespace memfit
