#include "base/exception_boundary.h"

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit {

Error internal_error(std::string_view function, std::string_view what) {
  return Error(fmt::format("{} in {}: {}", kInternalErrorPrefix, function, escape_untrusted(what)));
}

}  // namespace memfit
