// The engines the library registers from the start (engine.h), one factory
// each, defined in the engine's own folder.
#ifndef MEMFIT_ENGINES_BUILTIN_H_
#define MEMFIT_ENGINES_BUILTIN_H_

#include <memory>

#include "memfit/engine.h"

namespace memfit::engines {

std::unique_ptr<EngineProfile> make_mlxcel_profile();    // mlxcel/profile.cc
std::unique_ptr<EngineProfile> make_llamacpp_profile();  // llamacpp/profile.cc
std::unique_ptr<EngineProfile> make_mlxlm_profile();     // mlxlm/profile.cc
std::unique_ptr<EngineProfile> make_vllm_profile();      // vllm/profile.cc

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_BUILTIN_H_
