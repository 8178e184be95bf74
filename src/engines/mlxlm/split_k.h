// MLX's split-K matmuls: the scratch a projection of a few rows allocates
// beside its output (docs/engine-mlxlm.md, "Split-K").
//
// A Linear of a short input (M rows: the chunk's tokens x batch) over a
// long reduction (K) has too few output tiles to fill the GPU, so MLX's
// Metal backend splits K into partitions, each writing its partial
// product to a scratch array, and sums them. The scratch is a temporary
// of the command buffer the op is encoded into (held until that buffer
// completes, as the op's inputs are), partitions x M x N elements:
//   - 16-bit weights (the steel GEMM, mlx/backend/metal/matmul.cpp,
//     steel_gemm_splitk_axpby; Matmul and AddMM alike), float32 partials:
//       * v0.24.0 to v0.30.4: when (M/16) x (N/16) <= 32 and K/16 >= 8,
//         2, 4, 8 or 16 partitions as K/16 is under 16, 32, 64 or more;
//       * since v0.30.5 (mlx #3087, "Tune splitk gemm dispatch conditions
//         and partition sizes"): when ceil(M/16) x ceil(N/16) <= 1024
//         (2048 on Max and Ultra), K/16 >= 8 and K >= max(M, N);
//         min(max(2, next power of 2 of (K/16) / (ceil(M/32) x
//         ceil(N/32))), 32) partitions.
//   - MLX affine-quantized weights (quantized_matmul, quantized.cpp,
//     qmm_splitk), since v0.31.2 (mlx #3120, "Add split-K for quantized
//     matmul (small M)"): when M reaches the chip's quantized matvec
//     limit (get_qmv_batch_limit) the product is a qmm split to reach
//     about 512 threadgroups of 32 x 32: split = 512 / (ceil(N/32) x
//     ceil(M/32)), at most K / align (align: the group size, and since
//     v0.32.1 at least 32, mlx #3854), lowered until K divides by
//     split x align;
//     partials in the activation dtype (2 bytes).
// One row (M = 1: decode, or the prompt's last token) is a matrix-vector
// product (gemv / qmv) with no scratch. MLX's CUDA backend is not Metal's
// and is not priced here (0).
//
// Not read: the generation of the Apple GPU. MLX's quantized matvec
// limits differ by generation (M1/M2's "applegpu_g13"/"g14" and later);
// memfit prices every generation with M1/M2's, the lowest but one (an M3
// or later under v0.32.1 has 13 rows where M1/M2 has 14 for the smallest
// shapes), and does not price v0.32.1's wide gemv (M3 and later, up to 15
// rows of 16-bit weights) or the M5's NAX GEMMs, which take the place of
// a split: on those chips a few-row prompt's figure is high.
// Private to the library.
#ifndef MEMFIT_ENGINES_MLXLM_SPLIT_K_H_
#define MEMFIT_ENGINES_MLXLM_SPLIT_K_H_

#include <cstdint>
#include <optional>

#include "memfit/mlxlm.h"

namespace memfit {

// The MLX behind a forward pass's matmuls.
struct MlxMatmulRules {
  bool metal = true;             // false: MLX's CUDA backend (no scratch priced)
  MlxRelease mlx = kMlxNewestRead;
  std::optional<MlxChip> chip;   // nullopt: priced as Max (as the buffer limits are)
  uint64_t group_size = 0;       // the weights' MLX affine group size; 0: 16-bit weights
};

// MLX releases that changed the split (above).
inline constexpr MlxRelease kMlxSteelSplitKTuned{0, 30, 5};    // mlx #3087
inline constexpr MlxRelease kMlxQuantizedSplitK{0, 31, 2};     // mlx #3120
inline constexpr MlxRelease kMlxQuantizedSplitKAlign32{0, 32, 1};  // mlx #3854

// The scratch bytes one Linear of `rows` (M) x `in` (K) -> `out` (N)
// allocates under `rules`; 0 when MLX does not split it. Saturating.
uint64_t mlx_split_k_bytes(const MlxMatmulRules& rules, uint64_t rows, uint64_t in, uint64_t out);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_SPLIT_K_H_
