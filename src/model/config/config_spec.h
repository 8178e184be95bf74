// The second half of the config path, shared by both ways a model's
// geometry arrives: a parsed ConfigDocument -> ModelSpec.
//
// parse_model_config feeds it config.json; model_spec_from_gguf feeds it a
// GGUF header's metadata spelled as config fields (model/gguf/config.h).
// Families, per-layer cache plans, recurrent state, MoE shape and parameter
// counts are therefore decided in one place for both.
#ifndef MEMFIT_MODEL_CONFIG_CONFIG_SPEC_H_
#define MEMFIT_MODEL_CONFIG_CONFIG_SPEC_H_

#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "model/config/config_document.h"

namespace memfit {

// The errors are parse_model_config's, without the JSON syntax ones.
Result<ModelSpec> model_spec_from_document(const ConfigDocument& doc);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_CONFIG_SPEC_H_
