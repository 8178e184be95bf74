// Which tensors a tensor-parallel rank holds, and how much of each: the
// split rules of docs/parallel.md, "Tensor parallelism", that the per-rank
// plan (memfit/parallel_plan.h) and vLLM's per-rank weights
// (vllm/estimate.cc) share. Private to the library.
#ifndef MEMFIT_ENGINES_SHARED_PARALLEL_TENSORS_H_
#define MEMFIT_ENGINES_SHARED_PARALLEL_TENSORS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "memfit/model_spec.h"
#include "memfit/parallel_plan.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

// How an engine treats one checkpoint tensor, from its name.
enum class TensorRole {
  kColumnParallel,  // output features split by TP: q, gate/up (dense and experts), MLA q_b/kv_b
  kRowParallel,     // input features split by TP: o, down (dense and experts)
  kRowParallelBias, // bias of a row-parallel matrix: whole on every rank
  kKvProjection,    // k_proj / v_proj: split by KV heads, replicated past them
  kLinearAttention, // gated-delta-net (linear_attn.) projections, conv1d, A_log, dt_bias:
                    // split by TP in vLLM, whole in mlx-lm
  kSsmInProjection, // a Mamba mixer's in_proj (under "mixer." or "mamba."): vLLM splits
                    // z/x/dt by heads and B/C by groups, replicating one group on every
                    // rank (Mamba-2, n_groups 1); whole in mlx-lm
  kSsmConv,         // a Mamba mixer's conv1d over [x, B, C]: split as in_proj (vLLM)
  kSsmHeads,        // a Mamba mixer's A_log, D, dt_bias, gated norm, and Mamba-1's x_proj
                    // and dt_proj: split along the heads / inner channels (vLLM)
  kEmbedding,       // token embedding
  kLmHead,          // output projection
  kFinalNorm,       // a norm outside the decoder layers
  kReplicated,      // norms, routers, MLA down-projections, scalars, anything unknown
  kTower,           // vision/audio tower or projector of a multimodal checkpoint
};

struct TensorPlacement {
  TensorRole role = TensorRole::kReplicated;
  // The decoder layer from "...layers.N." ("h.N.", "blocks.N."); nullopt
  // outside the decoder layers and for tower tensors.
  std::optional<uint64_t> layer;
};
TensorPlacement place_tensor(std::string_view name);

// What one TP rank of a layer's tensors depends on.
struct TensorSplit {
  ShardingRules sharding = ShardingRules::kVllm;
  uint64_t tensor_parallel = 1;
  uint64_t kv_heads = 0;  // the model's KV heads; 0 = unknown (k/v split as column-parallel)
  // The model's Mamba-2 mixer widths (ModelSpec::mamba2); zero for Mamba-1
  // or unknown (in_proj / conv1d then split evenly).
  Mamba2Geometry mamba2 = {};
};

// Bytes of `tensor` one TP rank holds: ceil(bytes / N) for column- and
// row-parallel matrices and (vLLM) gated-delta-net and Mamba mixer tensors;
// bytes x max(1, kv/N) / kv for k/v projections (vLLM); a Mamba-2 in_proj /
// conv1d with one B/C group: bytes x rank rows / rows, the rank's rows
// (2 x inner + heads) / N + 2 x state for in_proj and inner / N + 2 x state
// for conv1d (vLLM); vocabulary rows padded to 64 then ceil(rows / N) for
// vLLM embeddings and LM heads; the whole tensor for everything else and
// for 0- or 1-element tensors. Fails on overflow only.
Result<uint64_t> tp_rank_tensor_bytes(const SafetensorsTensor& tensor, TensorRole role,
                                      const TensorSplit& split);

// KV heads one TP rank caches per attention layer: kv / N, or 1 when
// there are fewer KV heads than ranks (each rank keeps a replica).
uint64_t kv_heads_per_rank(uint64_t kv_heads, uint64_t tensor_parallel);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PARALLEL_TENSORS_H_
