// mlx-lm's own request fields (request_field.h), as mlx-lm's flags name
// them.
#ifndef MEMFIT_ENGINES_MLXLM_FIELDS_H_
#define MEMFIT_ENGINES_MLXLM_FIELDS_H_

#include <span>

#include "memfit/request_field.h"

namespace memfit {

// --prompt-tokens, --prefill-step-size, --kv-bits, --kv-group-size,
// --max-kv-size. Under mlx-lm the common max_tokens is the tokens
// generated and batch the sequences (request.h: MlxLmRequest).
std::span<const RequestField> mlxlm_fields();

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_FIELDS_H_
