// What the two engines' plot data share (mlxcel/plot.cc,
// llamacpp/plot.cc).
#ifndef MEMFIT_ENGINES_SHARED_PLOT_SERIES_H_
#define MEMFIT_ENGINES_SHARED_PLOT_SERIES_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace memfit {

// `tokens` (ascending, no repeats) with the solver's crossing added when it
// lies strictly inside them, so the drawn stack reaches the budget line at
// exactly the marked context.
std::vector<uint64_t> with_crossing(std::vector<uint64_t> tokens, std::optional<uint64_t> crossing);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PLOT_SERIES_H_
