// Which part of a multimodal checkpoint a tensor belongs to, from its name:
// the language model, a vision or audio tower, or the projector between a
// tower and the language model. Geometry always comes from the text part;
// the split is reported so that a user sees what a tower costs.
#ifndef MEMFIT_MODEL_WEIGHT_COMPONENTS_H_
#define MEMFIT_MODEL_WEIGHT_COMPONENTS_H_

#include <string_view>

#include "memfit/weights.h"

namespace memfit {

// Matches dotted name segments: "projector" names (multi_modal_projector,
// mm_projector, merger, embed_vision, ...) win over tower names
// (vision_tower, visual, vision_model, audio_tower, ...); everything else
// is the language model.
WeightComponent classify_tensor(std::string_view name);

}  // namespace memfit

#endif  // MEMFIT_MODEL_WEIGHT_COMPONENTS_H_
