// Multi-device plans: what each rank of a tensor-parallel (TP) x
// pipeline-parallel (PP) deployment holds, split the way an engine splits
// it, and each rank checked against one device's budget.
//
// The split rules and their sources are in docs/parallel.md. In short:
//  - PP gives each stage a contiguous range of decoder layers
//    (pipeline_layer_ranges); vLLM puts the embedding on the first stage and
//    the final norm + LM head on the last, mlx-lm keeps them on every stage.
//  - TP divides the attention and MLP matrices of every layer by N (ceil per
//    rank when N does not divide a tensor's bytes: never an under-count),
//    divides k/v projections and the KV cache by KV heads, replicating them
//    when there are fewer KV heads than ranks (vLLM), keeps MLA's latent
//    cache whole on every rank, and keeps norms and routers whole. vLLM
//    also splits gated-delta-net (linear attention) tensors by N. vLLM
//    splits embeddings and the LM head by vocabulary (padded to 64 rows);
//    mlx-lm replicates them.
//
// Everything here is a pure function of its arguments; nothing is read
// from disk. Errors are values; nothing throws.
#ifndef MEMFIT_PARALLEL_PLAN_H_
#define MEMFIT_PARALLEL_PLAN_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/mlxcel.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Whose sharding rules a plan follows, by the engine that shards so. vLLM
// is the default: it is the engine most multi-GPU deployments use, and
// mlx-lm's distributed mode replicates more (embeddings, LM head, norms on
// every rank).
enum class ShardingRules { kVllm, kMlxLm };
// The engine's name, as the registry (engine.h) has it: "vllm", "mlx-lm".
std::string_view to_string(ShardingRules rules);
// An engine's name or alias as the registry matches it ("vllm",
// "mlx-lm", "mlx_lm", ...), or "mlx", the old spelling of mlx-lm; anything
// else fails naming the text ("expected vllm or mlx-lm").
Result<ShardingRules> parse_sharding_rules(std::string_view text);

// Ranks = tensor_parallel x pipeline_parallel, at most kMaxParallelRanks.
struct ParallelConfig {
  uint64_t tensor_parallel = 1;
  uint64_t pipeline_parallel = 1;
  ShardingRules sharding = ShardingRules::kVllm;
};
inline constexpr uint64_t kMaxParallelRanks = 4096;

// Decoder layers [begin, end) of one pipeline stage.
struct LayerRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t count() const { return end - begin; }
  bool operator==(const LayerRange&) const = default;
};

// The layers of each stage, stage 0 holding the first layers. Fails when
// stages is 0 or exceeds layers.
//  vLLM (get_pp_indices): layers / stages each; the remainder r goes one
//    layer each to the r stages before the last (stages P-2, P-3, ...).
//  mlx-lm (PipelineMixin.pipeline): layers / stages each; its pipeline
//    ranks 0 .. r-1 get one more, and rank 0 holds the last layers, so
//    the last r stages in layer order are the larger ones.
Result<std::vector<LayerRange>> pipeline_layer_ranges(ShardingRules rules, uint64_t layers,
                                                      uint64_t stages);

struct RankEstimate {
  uint64_t rank = 0;      // pp_stage x tensor_parallel + tp_rank (vLLM's global rank order)
  uint64_t tp_rank = 0;
  uint64_t pp_stage = 0;  // 0 holds the first layers (mlx-lm numbers its pipeline the other way)
  LayerRange layers;
  uint64_t kv_heads = 0;  // KV heads cached per attention layer on this rank; 0 when none/unknown
  // This rank's weights, KV cache, headroom and total, and fits against
  // the per-device budget. The activation reserve is the whole model's on
  // every rank (hidden states are not split by TP; conservative).
  MlxcelEstimate estimate;
};

struct ParallelPlan {
  ParallelConfig config;
  // true: weights split tensor by tensor from the headers' list; false: the
  // proportional split (no header list: index-only or analytical weights).
  bool from_tensor_list = false;
  std::vector<RankEstimate> ranks;  // tensor_parallel x pipeline_parallel, in rank order
  std::vector<std::string> assumptions;
  bool fits = false;  // every rank fits its device
};

// The engine's refusals of `config` for this model, worded with the rule
// that refuses: tp or pp of 0, more than kMaxParallelRanks ranks, pp above
// the layer count, a TP size that does not divide the attention heads or
// (by the engine's rule) the KV heads. plan_parallel checks these first.
Status check_parallel_config(const ModelSpec& spec, const ParallelConfig& config);

// Plans the ranks of `config` for `model`. `tensors` is the checkpoint's
// tensor list (Model::tensors, kept by OpenModelOptions::keep_tensors);
// empty selects the proportional split, said in `assumptions`.
// `per_device` is one device's budget; every rank is checked against it.
// Fails on what check_parallel_config refuses and on overflow.
Result<ParallelPlan> plan_parallel(const Model& model, std::span<const SafetensorsTensor> tensors,
                                   const MlxcelInputs& inputs, const MlxcelSettings& settings,
                                   const Platform& platform, const MemoryBudget& per_device,
                                   const ParallelConfig& config);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_PARALLEL_PLAN_H_
