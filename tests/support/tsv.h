// A reader for the tab-separated tables under tests/data (the calibration
// runs): no quoting, no escapes; a field is what lies between two tabs.
#ifndef MEMFIT_TESTS_SUPPORT_TSV_H_
#define MEMFIT_TESTS_SUPPORT_TSV_H_

#include <cstddef>
#include <string>
#include <vector>

namespace memfit::testing {

// The rows of tests/data/<relative>, one a line, each its fields split at
// every tab. Blank lines and lines starting with '#' are skipped. A row
// without exactly `columns` fields fails the test and is left out, so a
// caller may index fields [0, columns) unchecked.
std::vector<std::vector<std::string>> read_tsv(const std::string& relative, std::size_t columns);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_TSV_H_
