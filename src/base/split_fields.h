// Splitting a line or a table into its fields, as the hardware and band
// tables (TSV) and /proc/self/mountinfo are read.
#ifndef MEMFIT_BASE_SPLIT_FIELDS_H_
#define MEMFIT_BASE_SPLIT_FIELDS_H_

#include <string_view>
#include <vector>

namespace memfit {

// Every field of `text` between `separator`s, empty ones kept: "a\t\tb" is
// {"a", "", "b"}, "" is {""}. The views point into `text`.
std::vector<std::string_view> split_fields(std::string_view text, char separator);

}  // namespace memfit

#endif  // MEMFIT_BASE_SPLIT_FIELDS_H_
