// allocator_rounding_bytes() (allocator_rounding.h).
#include "engines/sglang/allocator_rounding.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "engines/shared/parallel_tensors.h"
#include "memfit/checked_math.h"
#include "memfit/vllm.h"

namespace memfit::sglang {
namespace {

constexpr uint64_t kMinLargeAlloc = 10ull << 20;  // c10: allocations this large or more ...
constexpr uint64_t kRoundLarge = 2ull << 20;      // ... get a segment rounded up to this
constexpr uint64_t kWideBytes = 2;                // bf16 / fp16 parameters
constexpr uint64_t kFp8Bytes = 1;                 // float8_e4m3 parameters
constexpr uint64_t kScaleBytes = 4;               // an FP8 block's fp32 weight_scale_inv

// What the allocator's segment holds past one parameter of `bytes`.
uint64_t rounding_of(CheckedBytes bytes) {
  const uint64_t b = bytes.saturated();
  if (b < kMinLargeAlloc) return 0;  // packed with others into shared segments
  return (round_up(b, kRoundLarge) - b).saturated();
}

// How a checkpoint's linear layers are held: element bytes and, for FP8
// block quantization, the block's rows and columns (0: no scale grid worth
// a segment; a per-tensor scale is one float).
struct LinearStorage {
  uint64_t element_bytes = kWideBytes;
  uint64_t block_rows = 0, block_cols = 0;
};

// Whether a module the config leaves unquantized is one of the linear
// layers priced here (then their storage is mixed: not described).
// An NSA indexer's projections (DeepSeek-V3.2, GLM-5: `indexers_proj`) and
// an MTP module's `eh_proj`, which the target model does not load, are not
// among them.
bool names_linear_layer(std::string_view module) {
  if (module.find("indexer") != std::string_view::npos || module.find("eh_proj") != std::string_view::npos) {
    return false;
  }
  return module.find("proj") != std::string_view::npos || module.find("experts") != std::string_view::npos;
}

// SGLang's Fp8LinearMethod / Fp8MoEMethod (layers/quantization/fp8.py):
// float8_e4m3 weights, and with weight_block_size [n, k] a fp32
// weight_scale_inv of ceil(rows / n) x ceil(cols / k) a tensor. Empty for
// a scheme not described.
std::optional<LinearStorage> linear_storage(const QuantizationInfo& q) {
  if (q.method.empty()) return LinearStorage{};
  if (q.method != "fp8") return std::nullopt;
  for (const std::string& module : q.unquantized_modules) {
    if (names_linear_layer(module)) return std::nullopt;
  }
  LinearStorage s{.element_bytes = kFp8Bytes};
  if (q.block_size.size() == 2 && q.block_size[0] != 0 && q.block_size[1] != 0) {
    s.block_rows = q.block_size[0], s.block_cols = q.block_size[1];
  }
  return s;
}

// The rounding of one linear parameter of `copies` x rows x cols (an MoE
// layer's experts are one tensor) and of its block scale.
uint64_t linear_rounding(const LinearStorage& s, uint64_t copies, CheckedBytes rows, uint64_t cols) {
  uint64_t bytes = rounding_of(CheckedBytes(copies) * rows * cols * s.element_bytes);
  if (s.block_rows != 0) {
    const CheckedBytes grid =
        CheckedBytes::ceil_div(rows, s.block_rows) * CheckedBytes::ceil_div(cols, s.block_cols).saturated();
    bytes += rounding_of(CheckedBytes(copies) * grid * kScaleBytes);
  }
  return bytes;
}

// The rounding of a gate/up pair fused into one parameter of `copies` x
// 2 x `rank_width` rows (a MoE layer's w13, an MLP's gate_up_proj) and of
// down (w2, down_proj), with their block scales (the gate's and the up
// half's 2 x ceil(width / n) scale rows).
uint64_t mlp_rounding(const LinearStorage& s, uint64_t copies, CheckedBytes rank_width, uint64_t hidden) {
  uint64_t bytes = rounding_of(CheckedBytes(copies) * rank_width * 2 * hidden * s.element_bytes) +
                   linear_rounding(s, copies, CheckedBytes(hidden), rank_width.saturated());
  if (s.block_rows != 0) {
    const CheckedBytes up_grid = CheckedBytes::ceil_div(rank_width, s.block_rows) * 2 *
                                 CheckedBytes::ceil_div(CheckedBytes(hidden), s.block_cols).saturated();
    bytes += rounding_of(CheckedBytes(copies) * up_grid * kScaleBytes);
  }
  return bytes;
}

// The vocabulary shards' rounding: 2-byte rows (Fp8Config quantizes
// LinearBase layers only), the embedding and the LM head each split by its
// group (RankSplit), one table when tied.
uint64_t vocabulary_rounding(const ModelSpec& spec, const RankSplit& split, bool mla) {
  const ModelGeometry& g = spec.geometry;
  const CheckedBytes rows = CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding;
  uint64_t embedding_group = split.tensor_parallel;
  if (split.dp_attention) embedding_group = mla && split.mla_embedding_by_attention_tp ? split.attention_tp : 1;
  const uint64_t head_group = split.dp_lm_head ? split.attention_tp : split.tensor_parallel;
  const auto shard = [&](uint64_t group) {
    return rounding_of(CheckedBytes::ceil_div(rows, std::max<uint64_t>(1, group)) * g.hidden * kWideBytes);
  };
  if (spec.tied_embeddings) return shard(embedding_group);
  return (CheckedBytes(shard(embedding_group)) + shard(head_group)).saturated();
}

// A MoE layer's experts on one rank (RankSplit): num_experts / EP of them,
// each expert_width / (TP / EP) wide.
struct LocalExperts {
  uint64_t count = 0;
  CheckedBytes width;
};

LocalExperts local_experts(uint64_t experts, uint64_t expert_width, const RankSplit& split) {
  const uint64_t ep = std::max<uint64_t>(1, split.expert_parallel);
  const uint64_t moe_tp = std::max<uint64_t>(1, split.tensor_parallel / ep);
  return {CheckedBytes::ceil_div(experts, ep).saturated(), CheckedBytes::ceil_div(expert_width, moe_tp)};
}

// SGLang's DeepseekV2AttentionMLA and DeepseekV2MoE (models/deepseek_v2.py)
// on one rank: fused_qkv_a_proj_with_mqa whole (ReplicatedLinear, q_lora +
// kv_lora + qk_rope rows; without q_lora, kv_a_proj_with_mqa alone beside
// a split q_proj), q_b_proj, kv_b_proj and o_proj split by the attention
// TP group's heads; the first_k_dense_replace layers' MLP of
// intermediate_size by TP, the others' experts of moe_intermediate_size
// (local_experts) with the shared expert fused in as one more expert where
// SGLang fuses it (determine_num_fused_shared_experts: one shared expert
// beside 256 routed ones, off under DeepEP; FusedMoE's "TODO: support
// shared experts fusion" under EP > 1), else beside them as an MLP split
// by TP (whole on every rank under DeepEP).
uint64_t mla_rounding(const ModelSpec& spec, const LinearStorage& s, const RankSplit& split) {
  const ModelGeometry& g = spec.geometry;
  const MlaGeometry& m = spec.mla;
  const uint64_t heads = CheckedBytes::ceil_div(g.heads, split.attention_tp).saturated();
  const CheckedBytes q_head = CheckedBytes(m.qk_nope) + m.qk_rope;
  uint64_t attention = 0;
  if (m.q_lora_rank != 0) {
    attention += linear_rounding(s, 1, CheckedBytes(m.q_lora_rank) + m.kv_lora_rank + m.qk_rope, g.hidden) +
                 linear_rounding(s, 1, q_head * heads, m.q_lora_rank);
  } else {
    attention += linear_rounding(s, 1, CheckedBytes(m.kv_lora_rank) + m.qk_rope, g.hidden) +
                 linear_rounding(s, 1, q_head * heads, g.hidden);
  }
  attention += linear_rounding(s, 1, (CheckedBytes(m.qk_nope) + m.v_head) * heads, m.kv_lora_rank) +
               linear_rounding(s, 1, CheckedBytes(g.hidden), (CheckedBytes(m.v_head) * heads).saturated());
  const uint64_t dense_layers = spec.moe.experts == 0 ? g.layers : std::min(m.leading_dense, g.layers);
  const uint64_t moe_layers = g.layers - dense_layers;
  const uint64_t dense = mlp_rounding(s, 1, CheckedBytes::ceil_div(g.intermediate, split.tensor_parallel), g.hidden);
  uint64_t moe = 0;
  if (spec.moe.experts != 0) {
    const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    const bool fused = spec.moe.shared_experts == 1 && spec.moe.experts == 256 && split.expert_parallel <= 1 &&
                       !split.deepep;
    const LocalExperts local = local_experts(spec.moe.experts, width, split);
    moe = mlp_rounding(s, local.count + (fused ? 1 : 0), local.width, g.hidden);
    if (!fused && spec.moe.shared_experts != 0) {
      const CheckedBytes shared_width = spec.moe.shared_expert_intermediate != 0
                                            ? CheckedBytes(spec.moe.shared_expert_intermediate)
                                            : CheckedBytes(width) * spec.moe.shared_experts;
      const uint64_t shared_group = split.deepep ? 1 : split.tensor_parallel;
      moe += mlp_rounding(s, 1, CheckedBytes::ceil_div(shared_width, shared_group), g.hidden);
    }
  }
  return (CheckedBytes(attention) * g.layers + CheckedBytes(dense) * dense_layers + CheckedBytes(moe) * moe_layers +
          vocabulary_rounding(spec, split, /*mla=*/true))
      .saturated();
}

}  // namespace

RankSplit tp_split(uint64_t tensor_parallel) {
  return {.tensor_parallel = tensor_parallel, .attention_tp = tensor_parallel, .expert_parallel = 1};
}

uint64_t allocator_rounding_bytes(const ModelSpec& spec, const RankSplit& given) {
  const ModelGeometry& g = spec.geometry;
  const std::optional<LinearStorage> storage = linear_storage(spec.quantization);
  if (!storage || g.hidden == 0) return 0;
  RankSplit split = given;
  split.tensor_parallel = std::max<uint64_t>(1, split.tensor_parallel);
  split.attention_tp = std::max<uint64_t>(1, split.attention_tp);
  if (spec.layout == "mla" && spec.mla.kv_lora_rank != 0 && spec.compressed_attention.compress_ratios.empty()) {
    return mla_rounding(spec, *storage, split);
  }
  const bool described = spec.layout == "standard" || spec.layout == "sliding_window";
  if (!described || g.head_dim == 0) return 0;
  const uint64_t attention_tp = split.attention_tp;
  const uint64_t q_heads = CheckedBytes::ceil_div(g.heads, attention_tp).saturated();
  const uint64_t kv_heads = g.kv_heads == 0 ? q_heads : kv_heads_per_rank(g.kv_heads, attention_tp);
  const CheckedBytes qkv_rows = (CheckedBytes(q_heads) + kv_heads * 2) * g.head_dim;
  const CheckedBytes o_cols = CheckedBytes(q_heads) * g.head_dim;
  uint64_t layer = linear_rounding(*storage, 1, qkv_rows, g.hidden) +
                   linear_rounding(*storage, 1, CheckedBytes(g.hidden), o_cols.saturated());
  // SGLang's fused w13 / gate_up_proj: the gate and up halves each of the
  // rank's width (an FP8 block scale: 2 x ceil(width / n) rows); a MoE
  // layer's experts as the rank holds them (local_experts), a dense MLP by
  // TP.
  if (spec.moe.experts != 0) {
    const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    const LocalExperts local = local_experts(spec.moe.experts, width, split);
    layer += mlp_rounding(*storage, local.count, local.width, g.hidden);
  } else {
    layer += mlp_rounding(*storage, 1, CheckedBytes::ceil_div(g.intermediate, split.tensor_parallel), g.hidden);
  }
  return (CheckedBytes(layer) * g.layers + vocabulary_rounding(spec, split, /*mla=*/false)).saturated();
}

}  // namespace memfit::sglang
