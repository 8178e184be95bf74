// Shares of a byte count for the parallel plan, in 128-bit intermediates.
#ifndef MEMFIT_ESTIMATE_PARALLEL_MATH_H_
#define MEMFIT_ESTIMATE_PARALLEL_MATH_H_

#include <cstdint>
#include <optional>

namespace memfit {

// ceil(a x b / c), or nullopt past 64 bits. c must be non-zero.
inline std::optional<uint64_t> mul_div_ceil(uint64_t a, uint64_t b, uint64_t c) {
  __extension__ using Wide = unsigned __int128;
  Wide product = static_cast<Wide>(a) * b;
  Wide q = product / c + (product % c != 0 ? 1 : 0);
  if (q > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(q);
}

}  // namespace memfit

#endif  // MEMFIT_ESTIMATE_PARALLEL_MATH_H_
