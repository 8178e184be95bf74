#include "estimate/fixed_point.h"

#include "memfit/settings.h"

namespace memfit {
namespace {

__extension__ using Wide = unsigned __int128;

}  // namespace

std::optional<uint64_t> scale_micros_rounding_up(uint64_t bytes, uint64_t micros) {
  const Wide product = static_cast<Wide>(bytes) * micros;
  const Wide scaled = (product + kMicrosPerUnit - 1) / kMicrosPerUnit;
  if (scaled > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(scaled);
}

uint64_t unscale_micros_rounding_down(uint64_t bytes, uint64_t micros) {
  // micros >= 10^6, so the quotient is at most bytes and fits 64 bits.
  return static_cast<uint64_t>(static_cast<Wide>(bytes) * kMicrosPerUnit / micros);
}

}  // namespace memfit
