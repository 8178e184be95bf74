// read_rope_scaling: a config's RoPE scaling, as vLLM reads it for the
// context it derives (engines/shared/trained_context.h, docs/engines.md
// "The model's own context").
//
// Where it is read, first present wins: the text config's `rope_scaling`,
// then `rope_parameters` (transformers 5), then the same two at the top
// level. The type is `rope_type`, else `type` (transformers' own patch of
// old configs). A transformers 5 `rope_parameters` keyed by layer type
// ({"full_attention": {...}, "sliding_attention": {...}}) is read entry by
// entry in document order, as vLLM's loop does: the last entry whose type
// scales (not llama3, longrope or su) gives the type and, when it has one,
// the factor. Informational, as the context is: a malformed entry (a
// factor that is not a finite number in (0, 1e6], a type that is not a
// string) reads as absent; nothing fails. Any entry naming an
// mrope_section marks the rope multimodal (`mrope`); partial_rotary_factor
// is the text config's, overridden by a rope entry's (a value outside
// (0, 1] reads as absent).
#ifndef MEMFIT_MODEL_CONFIG_ROPE_SCALING_H_
#define MEMFIT_MODEL_CONFIG_ROPE_SCALING_H_

#include "memfit/model_spec.h"
#include "model/config/config_document.h"

namespace memfit {

ModelSpec::RopeScaling read_rope_scaling(const ConfigDocument& doc);

// True for the types whose configs already declare their extended context
// (vLLM leaves the declared context as it is): llama3, longrope, su.
bool rope_type_declares_its_context(std::string_view type);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_ROPE_SCALING_H_
