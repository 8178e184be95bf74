// largest_fitting (shared/largest_fitting.h): bisection over a monotone
// "fits".
#include "engines/shared/largest_fitting.h"

namespace memfit {

Result<std::optional<uint64_t>> largest_fitting(uint64_t lo, uint64_t hi,
                                                const std::function<Result<bool>(uint64_t)>& fits) {
  Result<bool> first = fits(lo);
  if (!first) return first.error();
  if (!*first) return std::optional<uint64_t>();
  // Invariant: fits(lo) is true; every value above hi is out of range.
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    Result<bool> ok = fits(mid);
    if (!ok) return ok.error();
    if (*ok) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return std::optional<uint64_t>(lo);
}

}  // namespace memfit
