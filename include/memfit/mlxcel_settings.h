// MlxcelSettings: the mlxcel profile's tunables, from MEMFIT_* variables
// (the MLX runtime's own MLXCEL_* names are accepted as aliases; MEMFIT_
// wins; docs/engine-mlxcel.md).
//
//   MEMFIT_MEMORY_LIMIT      unset   explicit budget: "48GB" = "48G" = "48GiB"
//                                    = 48 x 2^30; "512MB", raw bytes; 0/none/"" = unset
//   MEMFIT_HEADROOM_FACTOR   1.20    allocator overhead = (factor - 1) x (weights + kv);
//                                    0 < factor <= 1 switches the term off
//   MEMFIT_ACTIVATION_MULT   2.0     activation reserve multiplier
//   MEMFIT_PREFILL_CHUNK     2048    tokens per prefill chunk; 0 = no chunking
//   MLX_ROCM_MAX_INFLIGHT_MB 1024    ROCm in-flight reserve in MiB; 0 = none
//
// Invalid values never fail: each one adds a warning and keeps the default.
#ifndef MEMFIT_MLXCEL_SETTINGS_H_
#define MEMFIT_MLXCEL_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/environment.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Fixed-point multipliers are kept in millionths so that 1.20 is exact.
inline constexpr uint64_t kMicrosPerUnit = 1'000'000;

struct MlxcelSettings {
  std::optional<uint64_t> memory_limit_bytes;
  uint64_t headroom_factor_micros = 1'200'000;  // 1.20
  uint64_t activation_mult_micros = 2'000'000;  // 2.0
  uint64_t prefill_chunk_tokens = 2048;         // 0: no chunking
  uint64_t rocm_inflight_mib = 1024;
};

// Reads the variables above. Warnings for invalid values go to `warnings`.
MlxcelSettings mlxcel_settings_from_environment(const Environment& env,
                                                std::vector<std::string>& warnings);

// Parses a positive decimal ("1.2", "2", "1.5e0") into millionths,
// rounding up. Fails on non-numbers, non-positive and absurd (> 1e6) values.
Result<uint64_t> parse_multiplier_micros(std::string_view text);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXCEL_SETTINGS_H_
