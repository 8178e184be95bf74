// What an mlx-lm release did by default that later releases changed, for
// the estimate (engines/mlxlm/profile.cc) and check-log (logs/mlxlm_pricer.cc):
// docs/engine-mlxlm.md, "Releases". Private to the library.
#ifndef MEMFIT_ENGINES_MLXLM_RELEASE_DEFAULTS_H_
#define MEMFIT_ENGINES_MLXLM_RELEASE_DEFAULTS_H_

#include <cstdint>
#include <optional>

#include "memfit/mlxlm.h"

namespace memfit {

// mlx-lm #40 ("Updates for causal mask", 2025-03-21, first in 0.22.2) raised
// generate_step's prefill_step_size default from 512 to 2048.
inline constexpr MlxRelease kMlxLmPrefill2048{0, 22, 2};
// mlx-examples #1094 (2024-11-07, first in 0.20.0) printed the peak as
// mx.metal.get_peak_memory() / 1e9 where it had divided by 2**30, under the
// same word "GB".
inline constexpr MlxRelease kMlxLmDecimalGb{0, 20, 0};

// The first mlx-lm releases published after MLX v0.21.0 (2024-11-22, the
// first fused attention kernel for prompts) and after MLX v0.24.0
// (2025-03-20, the cap on command buffers in flight): mlx-examples
// 0.20.0 (#1099, 2024-11-23) and mlx-lm 0.22.2 (#40, 2025-03-21). A run of
// an older release's time ran on an MLX whose prompt attention or
// scheduler memfit's run-ahead does not describe (docs/engine-mlxlm.md,
// "What it does not cover").
inline constexpr MlxRelease kMlxLmAfterMlxFusedPrompt{0, 20, 0};
inline constexpr MlxRelease kMlxLmAfterMlxBufferCap{0, 22, 2};

// MLX (not mlx-lm) #3077 (2026-01-28, first in v0.30.5) raised the H100's
// CUDA graph limits from 30 ops / 400 x 2^20 elements to 100 / 1000
// (mlx/backend/cuda/device.cpp, get_graph_limits).
inline constexpr MlxRelease kMlxCudaGraphs100{0, 30, 5};

// The lowest MLX an mlx-lm release installs with (setup.py's
// MIN_MLX_VERSION at its tag): 0.29.2 from mlx-lm 0.28.3 to 0.30.2, 0.30.3
// at 0.30.4 and 0.30.5, 0.30.4 from 0.30.6 to 0.31.2, 0.31.2 at 0.31.3. An
// older mlx-lm required an older MLX still (0.26.0 at 0.26.4); memfit
// prices it as 0.29.2's, which splits matmuls by the same rules
// (split_k.h: both rules changed later, in v0.30.5 and v0.31.2).
inline constexpr MlxRelease kMlxLmRequiresMlx0303{0, 30, 4};
inline constexpr MlxRelease kMlxLmRequiresMlx0304{0, 30, 6};
inline constexpr MlxRelease kMlxLmRequiresMlx0312{0, 31, 3};
MlxRelease mlx_required_by(const MlxRelease& mlx_lm);

// The tokens of the widest forward pass of the prompt's last chunk of
// `last_chunk_tokens` (L) under `release` (none: the current release's):
// since kMlxLmLastTokenLogits (mlx-lm #406) generate_step's loop runs the
// chunk's first L - 1 tokens alone, evaluating only the caches, and the
// final token in a pass of its own, so L - 1 (1 when L is 1); before it,
// all L tokens in one pass (docs/engine-mlxlm.md, "Releases").
uint64_t mlxlm_last_chunk_pass_tokens(const std::optional<MlxRelease>& release,
                                      uint64_t last_chunk_tokens);

// generate_step's prefill_step_size under `release` (none: the current
// release's): 512 before kMlxLmPrefill2048, else 2048.
uint64_t mlxlm_default_prefill_step_size(const std::optional<MlxRelease>& release);

// The bytes in the "GB" of mlx_lm.generate's "Peak memory: X GB" under
// `release` (none: the current release's): 2^30 before kMlxLmDecimalGb,
// else 10^9.
uint64_t mlxlm_printed_gb_bytes(const std::optional<MlxRelease>& release);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_RELEASE_DEFAULTS_H_
