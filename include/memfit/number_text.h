// Real numbers as people write them ("0.9", "1.5", "24", "1e3"), read the
// same on every standard library: std::from_chars where the library has it
// for double, the classic locale's stream where it does not (libc++,
// Apple's and zig's). The lowest layer, with memory_size.h.
#ifndef MEMFIT_NUMBER_TEXT_H_
#define MEMFIT_NUMBER_TEXT_H_

#include <optional>
#include <string_view>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The whole of `text` as one finite real number, correctly rounded: an
// optional '-', digits with an optional '.' and fraction (a digit at
// least: "5", "1.", ".5"), then an optional exponent ('e' or 'E', an
// optional sign, digits). nullopt for anything else ("", "1e", "+1",
// " 1", "1.5x", "0x10", "inf", "nan") and for a value that overflows
// ("1e999") or underflows to 0 ("1e-400").
std::optional<double> parse_double(std::string_view text);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_NUMBER_TEXT_H_
