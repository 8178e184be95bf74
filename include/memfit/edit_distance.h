// How far apart two names are, for "did you mean" answers: the CLI's
// unknown subcommands and flags, and the hardware table's unknown GPUs and
// Macs. The lowest layer, with number_text.h.
#ifndef MEMFIT_EDIT_DISTANCE_H_
#define MEMFIT_EDIT_DISTANCE_H_

#include <cstddef>
#include <string_view>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Levenshtein distance: the fewest single-character insertions,
// deletions and substitutions that turn `a` into `b`.
size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_EDIT_DISTANCE_H_
