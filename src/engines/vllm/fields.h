// vLLM's own request fields (request_field.h), as vllm serve's flags name
// them.
#ifndef MEMFIT_ENGINES_VLLM_FIELDS_H_
#define MEMFIT_ENGINES_VLLM_FIELDS_H_

#include <span>

#include "memfit/request_field.h"

namespace memfit {

// --gpu-memory-utilization ... --vllm-version. Under vllm the common
// tensor_parallel is --tensor-parallel-size, max_tokens --max-model-len
// and a batch other than 1 --max-num-seqs (request.h: VllmRequest).
std::span<const RequestField> vllm_fields();

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_FIELDS_H_
