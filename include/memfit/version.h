// The version this library was built as: what every engine's report and
// `memfit --version` print.
#ifndef MEMFIT_VERSION_H_
#define MEMFIT_VERSION_H_

#include <string_view>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// "0.1.0": the project's version (CMakeLists.txt).
std::string_view memfit_version();

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_VERSION_H_
