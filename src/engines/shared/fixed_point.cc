// Fixed-point byte scaling (engines/shared/fixed_point.h): products in 128
// bits, rounded the way each name says.
#include "engines/shared/fixed_point.h"

#include "memfit/mlxcel_settings.h"

namespace memfit {
namespace {

__extension__ using Wide = unsigned __int128;

}  // namespace

std::optional<uint64_t> mul_div_ceil(uint64_t a, uint64_t b, uint64_t c) {
  const Wide product = static_cast<Wide>(a) * b;
  const Wide quotient = product / c + (product % c != 0 ? 1 : 0);
  if (quotient > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(quotient);
}

std::optional<uint64_t> mul_div_floor(uint64_t a, uint64_t b, uint64_t c) {
  const Wide quotient = static_cast<Wide>(a) * b / c;
  if (quotient > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(quotient);
}

std::optional<uint64_t> scale_micros_rounding_up(uint64_t bytes, uint64_t micros) {
  return mul_div_ceil(bytes, micros, kMicrosPerUnit);
}

uint64_t unscale_micros_rounding_down(uint64_t bytes, uint64_t micros) {
  // micros >= 10^6, so the quotient is at most bytes and fits 64 bits.
  return static_cast<uint64_t>(static_cast<Wide>(bytes) * kMicrosPerUnit / micros);
}

}  // namespace memfit
