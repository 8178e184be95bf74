// Parameter count from config alone, for folders with no weight files.
// A modelled figure (embeddings, attention, MLP or routed experts, norms),
// labelled analytical_config in the report; header bytes always win.
#ifndef MEMFIT_MODEL_ANALYTICAL_PARAMS_H_
#define MEMFIT_MODEL_ANALYTICAL_PARAMS_H_

#include <cstdint>

#include "memfit/model_spec.h"
#include "model/field_reader.h"

namespace memfit {

// 0 when the geometry is too incomplete to count; saturates on overflow.
uint64_t analytical_parameter_count(FieldReader& reader, const ModelSpec& spec);

}  // namespace memfit

#endif  // MEMFIT_MODEL_ANALYTICAL_PARAMS_H_
