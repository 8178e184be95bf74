// The 16-bit parameters vLLM creates for one rank, as PyTorch's caching
// allocator receives them, and what its allocated-bytes counter (CUDA's
// "Model loading took") holds past them. Private to the vLLM engine;
// docs/engine-vllm.md, "The allocator's rounding" and "ROCm".
#ifndef MEMFIT_ENGINES_VLLM_ALLOCATIONS_H_
#define MEMFIT_ENGINES_VLLM_ALLOCATIONS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "memfit/checked_math.h"
#include "memfit/model_spec.h"

namespace memfit {

// `count` parameters of `bytes` each.
struct VllmAllocation {
  CheckedBytes bytes = 0;
  uint64_t count = 0;
};

// The parameters of one rank of `spec` at tensor parallelism `tp` (>= 1),
// from the config's geometry, as vLLM creates them: qkv_proj [(heads + 2 x
// kv heads) / TP x head_dim, hidden] (twice the heads' rows with
// attention_output_gate) and o_proj per attention layer; a gated delta
// net's in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, norm and out_proj
// per linear-attention layer (allocations.cc);
// gate_up_proj and down_proj per layer, or the experts stacked per layer
// (w13 [E, 2 x width / TP, hidden], w2 [E, hidden, width / TP]) with the
// router whole; two norms a layer and the final one; the vocabulary tables
// padded to 64 rows and split by rows (one when tied); the rope cache
// (MRotaryEmbedding's when the rope declares mrope_section, else
// max_position_embeddings x head dim). `expert_row_padding`: the bytes
// ROCm adds to each stacked expert tensor (rocm.h); 0 on CUDA. A dense
// bitsandbytes 4-bit checkpoint (standard, sliding_window or chunked)
// lists each linear layer as the one uint8 parameter of half a byte a
// weight BitsAndBytesLinearMethod creates (the rest 16-bit); its quant
// states' absmax and code tensors are not listed. Empty for another
// quantized checkpoint (its kernels lay weights out their own way) and for
// layouts other than standard, sliding_window, chunked and a hybrid of
// attention and gated delta nets (Qwen3-Next, Qwen3.5; Mamba hybrids and
// MLA layers have other parameters). A vision tower's parameters are not
// listed.
struct VllmExpertPadding {
  CheckedBytes w13 = 0, w2 = 0;  // per layer
};
std::vector<VllmAllocation> vllm_param_allocations(const ModelSpec& spec, uint64_t tp,
                                                   const VllmExpertPadding& expert_row_padding);

// PyTorch's allocated bytes past the requests on CUDA (c10/cuda/
// CUDACachingAllocator.cpp): every request is rounded up to 512 B
// (round_size); one of 10 MiB or more gets a segment of its own rounded
// up to 2 MiB (get_allocation_size: kMinLargeAlloc, kRoundLarge), and the
// block is split only when more than 1 MiB is left (should_split: remaining
// > kSmallSize), so a request 1 MiB or less under a 2 MiB multiple holds
// the whole block. Smaller requests share 2 MiB and 20 MiB segments, priced
// at their 512 B rounding (a shared segment's tail taken whole is not
// priced). Saturates.
uint64_t vllm_cuda_allocated_slack(std::span<const VllmAllocation> allocations);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_ALLOCATIONS_H_
