// Warning: something a user should know about an answer that does not
// stop it. Warnings are values with a kind, never errors: each front end
// decides how to show one from its kind (the CLI prints kAvailableNow
// lines as they are and every other kind after "memfit: warning: "), and
// every front end lists all of them in its JSON "warnings".
#ifndef MEMFIT_WARNING_H_
#define MEMFIT_WARNING_H_

#include <string>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class WarningKind {
  kSettings,      // a MEMFIT_* variable that could not be used (the default is kept)
  kModel,         // reading the model: a stale index, an unknown model_type, no config
  kRequest,       // the request: K and V cache types that differ, ...
  kHost,          // the host probe: a GPU library that would not load, a missing device
                  // under an explicit limit
  kAvailableNow,  // the guardrail (docs/host.md): the load exceeds what the host can give
                  // now; the text starts "WARNING: memory available now"
};

struct Warning {
  WarningKind kind = WarningKind::kModel;
  std::string text;  // one line; untrusted names in it are already quoted
  bool operator==(const Warning&) const = default;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_WARNING_H_
