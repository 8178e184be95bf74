// The bytes PyTorch's caching allocator holds past SGLang's parameters on
// one rank (docs/engine-sglang.md, "Rules", weights): an allocation of
// kMinLargeAlloc (10 MiB) or more gets a segment of its size rounded up to
// kRoundLarge (2 MiB) (c10/cuda/CUDACachingAllocator.cpp), and a
// parameter's segment stays whole, so SGLang's "mem usage" (the drop of the
// device's free memory across the load) counts the rounding. Private to
// the library.
#ifndef MEMFIT_ENGINES_SGLANG_ALLOCATOR_ROUNDING_H_
#define MEMFIT_ENGINES_SGLANG_ALLOCATOR_ROUNDING_H_

#include <cstdint>

#include "memfit/model_spec.h"

namespace memfit::sglang {

// The rounding of one rank's parameters as SGLang allocates them, each one
// tensor of 2-byte elements: per decoder layer the fused qkv_proj, o_proj
// and either the fused gate_up_proj and down_proj or a MoE layer's w13 and
// w2 of all its experts; the embedding's and the LM head's vocabulary
// shards (one when tied). 0 for a model whose parameters this does not
// describe (quantized, or a layout other than standard / sliding window).
uint64_t allocator_rounding_bytes(const ModelSpec& spec, uint64_t tensor_parallel);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_ALLOCATOR_ROUNDING_H_
