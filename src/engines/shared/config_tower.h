// A config-only model's vision tower, per engine (docs/weights.md "The
// vision tower, per engine"). The loader prices a multimodal config's tower
// as a part of its own (WeightsInfo::component_bytes[kVisionTower],
// model/config/config_tower.h); whether it is in memory is the engine's:
//   vLLM, SGLang  load it with the language model, split over tensor
//                 parallelism like the text weights (vLLM's siglip.py and
//                 qwen3_vl.py build it from Column/RowParallelLinear)
//   mlx-lm,       leave it out: mlx-lm's gemma3.py and qwen3_5.py
//   mlxcel        sanitize() drop the vision_tower / model.visual weights
//                 and load the language model alone
//   llama.cpp     leaves it out: convert_hf_to_gguf.py writes the tower to
//                 an mmproj GGUF of its own (--mmproj), not the model file
#ifndef MEMFIT_ENGINES_SHARED_CONFIG_TOWER_H_
#define MEMFIT_ENGINES_SHARED_CONFIG_TOWER_H_

#include <string_view>

#include "memfit/request.h"

namespace memfit {

// Replaces `p.model` by a copy whose weights and spec.analytical_params
// leave the config-only vision tower out, and says so in `p.warnings`,
// naming `why` (the engine's reason). Leaves a model whose weights were
// read from files, or with no tower, as it is.
void drop_config_tower(PreparedRequest& p, std::string_view why);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_CONFIG_TOWER_H_
