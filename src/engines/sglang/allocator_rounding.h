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

// The rounding of one rank's parameters as SGLang allocates them: per
// decoder layer the fused qkv_proj, o_proj and either the fused
// gate_up_proj and down_proj or a MoE layer's w13 and w2 of all its
// experts, 2-byte elements, or for an FP8 checkpoint (Fp8Config) 1-byte
// elements and, with weight_block_size, each one's fp32 block scale; the
// embedding's and the LM head's 2-byte vocabulary shards (one when tied).
// 0 for a model whose parameters this does not describe (another
// quantization, an FP8 config that keeps projections unquantized, or a
// layout other than standard / sliding window).
uint64_t allocator_rounding_bytes(const ModelSpec& spec, uint64_t tensor_parallel);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_ALLOCATOR_ROUNDING_H_
