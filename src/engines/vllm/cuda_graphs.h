// vLLM's CUDA graphs, one rank's (docs/engine-vllm.md, "CUDA graphs"):
// which batch sizes the worker captures in each mode and the memory
// memfit gives them. Private to the library.
#ifndef MEMFIT_ENGINES_VLLM_CUDA_GRAPHS_H_
#define MEMFIT_ENGINES_VLLM_CUDA_GRAPHS_H_

#include <cstdint>

#include "memfit/model_spec.h"
#include "memfit/vllm.h"

namespace memfit {

// The largest capture size vLLM picks by default: min(2 x max_num_seqs,
// 512), at most max_num_batched_tokens (VllmConfig._set_cudagraph_sizes,
// vllm/config/vllm.py; max_cudagraph_capture_size unset).
inline constexpr uint64_t kVllmMaxCaptureTokens = 512;
// What one captured graph costs per decoder layer (modelled): the driver's
// memory for an instantiated graph grows with its kernels, which grow with
// the layers (a PIECEWISE graph is one CUDA graph per piece between the
// attention layers, a FULL graph one graph of every layer). The corpus's
// 0.11-on runs of the default 51 + 35 or 51 + 51 graphs (and the
// estimates 0.19 on print) take 0.15 to 0.33 MiB a layer and graph on most
// machines, about 0.22 at the median; memfit takes 256 KiB. A few
// machines take 4 to 6 times more (an A100 40GB's Qwen3-8B, 2.35 GiB for
// 86 graphs of 36 layers): the band's upper end.
inline constexpr uint64_t kVllmGraphBytesPerLayer = 256ull << 10;

// The counts (memfit/vllm.h, which the estimate keeps) and their memory.
struct VllmCudaGraphs : VllmCudaGraphCounts {
  uint64_t bytes = 0;  // the memory priced for them (modelled)
};

// The graphs vLLM captures under `settings` (resolved: max_num_seqs and
// max_num_batched_tokens filled in) and `accounting`, and their memory:
// none with enforce_eager; v0.7's V1 worker keeps kVllmCudaGraphBytes (its
// piecewise capture of 67 sizes is not modelled); 0.11 on, the default
// FULL_AND_PIECEWISE mode: one PIECEWISE graph per capture size and one
// FULL graph per size of at most max_num_seqs (uniform decode), each
// kVllmGraphBytesPerLayer x the model's decoder layers.
VllmCudaGraphs vllm_cuda_graphs(const ModelSpec& spec, const VllmSettings& settings,
                                VllmAccounting accounting);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_CUDA_GRAPHS_H_
