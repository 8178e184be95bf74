// The factories of the engines the library registers from the start
// (engine.h), declared from the one list builtin_engines.inc; each is
// defined in its engine's own folder (src/engines/<name>/profile.cc).
#ifndef MEMFIT_ENGINES_BUILTIN_H_
#define MEMFIT_ENGINES_BUILTIN_H_

#include <memory>

#include "memfit/engine.h"

namespace memfit::engines {

#define MEMFIT_ENGINE(name) std::unique_ptr<EngineProfile> make_##name##_profile();
#include "engines/builtin_engines.inc"
#undef MEMFIT_ENGINE

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_BUILTIN_H_
