// mlx_split_k_bytes() (split_k.h): MLX's split-K dispatch, replayed.
#include "engines/mlxlm/split_k.h"

#include <algorithm>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// mlx/utils.h next_power_of_2: n itself when a power of 2, else the next
// one up; 0 stays 0 (the caller's max(2, .) takes over).
uint64_t next_power_of_2(uint64_t n) {
  if (n == 0) return 0;
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

bool large_chip(const std::optional<MlxChip>& chip) {
  return !chip || *chip == MlxChip::kMax || *chip == MlxChip::kUltra;
}

// get_qmv_batch_limit (quantized.cpp) for an M1/M2 ("applegpu_g13",
// "g14"): below this many rows a quantized product stays a matvec. Ultra
// chips ('d') have their own row; base, Pro and Max share the other.
uint64_t qmv_row_limit(uint64_t in, uint64_t out, const std::optional<MlxChip>& chip) {
  const bool ultra = chip && *chip == MlxChip::kUltra;
  if (in <= 2048 && out <= 2048) return ultra ? 32 : 14;
  if (in <= 4096 && out <= 4096) return ultra ? 18 : 10;
  return ultra ? 12 : 6;
}

// The steel GEMM's float32 partials (matmul.cpp, steel_gemm_splitk_axpby).
uint64_t steel_split_bytes(const MlxMatmulRules& r, uint64_t m, uint64_t k, uint64_t n) {
  const uint64_t tk = k / 16;
  uint64_t partitions = 0;
  if (r.mlx < kMlxSteelSplitKTuned) {
    if ((CheckedBytes(m / 16) * (n / 16)).saturated() > 32 || tk < 8) return 0;
    partitions = tk < 16 ? 2 : tk < 32 ? 4 : tk < 64 ? 8 : 16;
  } else {
    const uint64_t tiles = (CheckedBytes(ceil_div(m, 16)) * ceil_div(n, 16)).saturated();
    if (tiles > (large_chip(r.chip) ? 2048u : 1024u) || tk < 8 || k < std::max(m, n)) return 0;
    const uint64_t wide = (CheckedBytes(ceil_div(m, 32)) * ceil_div(n, 32)).saturated();
    partitions = std::min<uint64_t>(std::max<uint64_t>(2, next_power_of_2(tk / wide)), 32);
  }
  return (CheckedBytes(partitions) * m * n * 4).saturated();
}

// quantized_matmul's partials in the activation dtype (quantized.cpp,
// qmm_splitk).
uint64_t quantized_split_bytes(const MlxMatmulRules& r, uint64_t m, uint64_t k, uint64_t n) {
  if (r.mlx < kMlxQuantizedSplitK || m < qmv_row_limit(k, n, r.chip)) return 0;
  const uint64_t tiles = (CheckedBytes(ceil_div(n, 32)) * ceil_div(m, 32)).saturated();
  const uint64_t align =
      r.mlx < kMlxQuantizedSplitKAlign32 ? r.group_size : std::max<uint64_t>(r.group_size, 32);
  uint64_t split = std::max<uint64_t>(1, 512 / std::max<uint64_t>(tiles, 1));
  split = std::min(split, k / align);
  while (split > 1 && k % (split * align) != 0) --split;
  if (split <= 1) return 0;
  return (CheckedBytes(split) * m * n * kMlxLmActivationBytes).saturated();
}

}  // namespace

uint64_t mlx_split_k_bytes(const MlxMatmulRules& rules, uint64_t rows, uint64_t in, uint64_t out) {
  // One row is a matrix-vector product; an empty shape allocates nothing.
  if (!rules.metal || rows <= 1 || in == 0 || out == 0) return 0;
  if (rules.group_size != 0) return quantized_split_bytes(rules, rows, in, out);
  return steel_split_bytes(rules, rows, in, out);
}

}  // namespace memfit
