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

// How SGLang splits one rank's parameters, each by its own group:
//   attention    q/k/v/o (an MLA model's q_b_proj, kv_b_proj, o_proj) by
//                the attention TP group, TP / DP under
//                --enable-dp-attention, else TP (layers/dp_attention.py,
//                compute_dp_attention_world_info, get_attention_tp_size);
//   experts      num_experts / EP experts a rank, each moe_intermediate /
//                (TP / EP) wide (FusedMoE: num_local_experts = num_experts
//                // moe_ep_size, intermediate_size_per_partition =
//                intermediate_size // moe_tp_size); --moe-a2a-backend
//                deepep / mooncake set EP to TP (server_args.py,
//                _handle_a2a_moe);
//   dense MLP    by TP;
//   vocabulary   the LM head by TP (by the attention TP group under
//                --enable-dp-lm-head); the embedding by TP, under DP
//                attention whole (VocabParallelEmbedding(enable_tp=not
//                is_dp_attention_enabled())), or for an MLA model from
//                sgl-project/sglang#17403 (2026-01-20) by the attention TP
//                group (use_attn_tp_group=is_dp_attention_enabled()).
struct RankSplit {
  uint64_t tensor_parallel = 1;
  uint64_t attention_tp = 1;             // TP, or TP / DP under DP attention
  uint64_t expert_parallel = 1;          // --ep-size (TP under deepep / mooncake)
  bool dp_attention = false;             // --enable-dp-attention
  bool dp_lm_head = false;               // --enable-dp-lm-head
  bool mla_embedding_by_attention_tp = false;  // #17403 on (a DP attention run)
  // --moe-a2a-backend deepep: the shared experts whole on every rank
  // (DeepseekV2MLP tp_size=1) and not fused into the routed ones
  // (determine_num_fused_shared_experts: "DeepEP: fusion off by default").
  bool deepep = false;
};

// The split of a plain TP run: every group `tensor_parallel`.
RankSplit tp_split(uint64_t tensor_parallel);

// The rounding of one rank's parameters as SGLang allocates them: per
// decoder layer the fused qkv_proj, o_proj and either the fused
// gate_up_proj and down_proj or a MoE layer's w13 and w2 of the rank's
// experts, 2-byte elements, or for an FP8 checkpoint (Fp8Config) 1-byte
// elements and, with weight_block_size, each one's fp32 block scale; the
// embedding's and the LM head's 2-byte vocabulary shards (one when tied),
// each parameter shaped by its group in `split`. 0 for a model whose
// parameters this does not describe (another quantization, an FP8 config
// that keeps projections unquantized, or a layout other than standard /
// sliding window / MLA).
uint64_t allocator_rounding_bytes(const ModelSpec& spec, const RankSplit& split);
inline uint64_t allocator_rounding_bytes(const ModelSpec& spec, uint64_t tensor_parallel) {
  return allocator_rounding_bytes(spec, tp_split(tensor_parallel));
}

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_ALLOCATOR_ROUNDING_H_
