// memfit_version (memfit/version.h): MEMFIT_VERSION, which the build
// defines from the project's version.
#include "memfit/version.h"

namespace memfit {

std::string_view memfit_version() { return MEMFIT_VERSION; }

}  // namespace memfit
