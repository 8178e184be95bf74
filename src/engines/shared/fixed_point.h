// Byte counts scaled by ratios: fixed-point multipliers (millionths, as
// MlxcelSettings holds them) and shares (a rank's part of a tensor).
// Products are taken in 128 bits, so no intermediate overflows; the
// rounding direction is part of each name, chosen so that memory is never
// under-counted.
#ifndef MEMFIT_ENGINES_SHARED_FIXED_POINT_H_
#define MEMFIT_ENGINES_SHARED_FIXED_POINT_H_

#include <cstdint>
#include <optional>

namespace memfit {

// ceil(a x b / c); nullopt when the result exceeds 64 bits. c must be
// non-zero.
std::optional<uint64_t> mul_div_ceil(uint64_t a, uint64_t b, uint64_t c);
// floor(a x b / c); nullopt when the result exceeds 64 bits. c must be
// non-zero. For a share of a whole that must add up exactly (the caller
// gives the remainder to one part), never for a memory figure alone.
std::optional<uint64_t> mul_div_floor(uint64_t a, uint64_t b, uint64_t c);

// ceil(bytes x micros / 10^6); nullopt when the result exceeds 64 bits.
std::optional<uint64_t> scale_micros_rounding_up(uint64_t bytes, uint64_t micros);

// floor(bytes x 10^6 / micros), the largest x with
// scale_micros_rounding_up(x, micros) <= bytes when micros >= 10^6 (so the
// result never exceeds bytes). micros must be at least 10^6.
uint64_t unscale_micros_rounding_down(uint64_t bytes, uint64_t micros);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_FIXED_POINT_H_
