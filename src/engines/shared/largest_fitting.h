// The bisection every engine's solver runs (mlxcel/solver.cc,
// llamacpp/solver.cc): every term of an estimate is non-decreasing in the
// solved quantity, so "fits" is monotone. Private to the library.
#ifndef MEMFIT_ENGINES_SHARED_LARGEST_FITTING_H_
#define MEMFIT_ENGINES_SHARED_LARGEST_FITTING_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "memfit/result.h"

namespace memfit {

// The largest v in [lo, hi] with fits(v), assuming fits is monotone
// (true up to some point, false after). nullopt when fits(lo) is false. An
// error from fits() is returned as is.
Result<std::optional<uint64_t>> largest_fitting(uint64_t lo, uint64_t hi,
                                                const std::function<Result<bool>(uint64_t)>& fits);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_LARGEST_FITTING_H_
