// What vLLM's ROCm platform adds to a rank's "Model loading took" beyond
// the tensors (docs/engine-vllm.md, "ROCm"). On CUDA that figure is
// PyTorch's allocated bytes; on ROCm (since vllm-project/vllm#12624) it is
// the device's used memory across the load, so it also counts the caching
// allocator's segments past the parameters, the experts' ROCm row padding
// and what the HIP runtime maps.
#ifndef MEMFIT_ENGINES_VLLM_ROCM_H_
#define MEMFIT_ENGINES_VLLM_ROCM_H_

#include <cstdint>

#include "memfit/model_spec.h"

namespace memfit {

struct VllmRocmLoad {
  uint64_t allocator_bytes = 0;  // segments reserved past the parameters (modelled)
  uint64_t padding_bytes = 0;    // unquantized MoE experts: 256 B a row
  uint64_t runtime_bytes = 0;    // kVllmRocmRuntimeBytes
};

// One rank of `spec` at tensor parallelism `tensor_parallel` (>= 1). The
// allocator's part is priced for unquantized attention models (layouts
// standard, sliding_window, chunked) from the config's geometry, 16-bit
// parameters as vLLM creates them (q/k/v and gate/up fused, the experts
// stacked per layer), and for dense bitsandbytes 4-bit ones with their
// packed uint8 linear weights (allocations.h); other models get the
// padding and the runtime only.
// Every product saturates: a header that overflows prices UINT64_MAX.
VllmRocmLoad vllm_rocm_load(const ModelSpec& spec, uint64_t tensor_parallel);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_ROCM_H_
