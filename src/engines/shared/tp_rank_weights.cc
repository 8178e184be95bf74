// tp_rank_weights(): one TP rank's weights (tp_rank_weights.h); the
// rules are docs/engine-vllm.md's, "Terms, per rank".
#include "engines/shared/tp_rank_weights.h"

#include <algorithm>
#include <cmath>

#include "engines/shared/fixed_point.h"
#include "engines/shared/parallel_tensors.h"
#include "engines/shared/rope_cache.h"
#include "memfit/checked_math.h"
#include "memfit/vllm.h"

namespace memfit {
namespace {

constexpr uint64_t kAct = 2;  // bf16 / fp16 vocabulary tables

// MXFP4 experts (gpt-oss) as vLLM's MoE kernel holds them, per rank
// (quantization/mxfp4.py: create_weights pads, process_weights_after_loading
// re-lays; docs/engine-vllm.md, "MXFP4 experts"). Each expert is gate_up
// [2n, h] and down [h, n] of 4-bit values (2 a byte) with an 8-bit scale
// per 32 inputs, and its biases gate_up [2n] and down [h].
constexpr uint64_t kMxfp4Block = 32;

struct ExpertDims {
  uint64_t width = 0;   // n: the rank's expert width, padded
  uint64_t hidden = 0;  // h, padded
};

CheckedBytes value_bytes(const ExpertDims& d) {
  return CheckedBytes::ceil_div(CheckedBytes(3) * d.width * d.hidden, 2);
}

// gate_up's scales [2n, h / 32] and down's [h, n / 32], a byte each.
CheckedBytes scale_bytes(const ExpertDims& d) {
  return CheckedBytes(2) * d.width * CheckedBytes::ceil_div(d.hidden, kMxfp4Block) +
         CheckedBytes(d.hidden) * CheckedBytes::ceil_div(d.width, kMxfp4Block);
}

CheckedBytes bias_bytes(const ExpertDims& d, uint64_t element_bytes) {
  return (CheckedBytes(2) * d.width + d.hidden) * element_bytes;
}

// The scales triton_kernels' HopperMXScaleLayout swizzles into a second
// copy (mxfp4_utils.py, _swizzle_mxfp4, with 8 warps): each matrix's scales
// with its output rows padded to 2 x 8 x 2 x 8 = 256 and its scale columns
// to 2. vLLM keeps the loaded scales as well (only the weights are deleted).
CheckedBytes swizzled_scale_bytes(const ExpertDims& d) {
  constexpr uint64_t kRows = 256, kCols = 2;
  return round_up(CheckedBytes(2) * d.width, kRows) *
             round_up(CheckedBytes::ceil_div(d.hidden, kMxfp4Block), kCols) +
         round_up(CheckedBytes(d.hidden), kRows) *
             round_up(CheckedBytes::ceil_div(d.width, kMxfp4Block), kCols);
}

// One expert's bytes on a rank of width `width` (already split), as
// `kernel` holds it:
//   Marlin      n to a multiple of 128, h of 256 (its kernel's n % 256 and
//               k % 128), repacked in place of the loaded weights, scales a
//               byte (e8m0), biases bf16
//   Triton      n to a multiple of 64, h as is; values swizzled in place,
//               scales twice (above), biases converted to fp32
//   FlashInfer  n and h to multiples of 256, shuffled in place, biases
//               fp32, and gemm1's alpha, beta and clamp limit (fp32 each)
CheckedBytes held_expert_bytes(uint64_t width, uint64_t hidden, Mxfp4Kernel kernel) {
  switch (kernel) {
    case Mxfp4Kernel::kMarlin: {
      const ExpertDims d{round_up(CheckedBytes(width), 128).saturated(),
                         round_up(CheckedBytes(hidden), 256).saturated()};
      return value_bytes(d) + scale_bytes(d) + bias_bytes(d, 2);
    }
    case Mxfp4Kernel::kTriton: {
      const ExpertDims d{round_up(CheckedBytes(width), 64).saturated(), hidden};
      return value_bytes(d) + scale_bytes(d) + swizzled_scale_bytes(d) + bias_bytes(d, 4);
    }
    case Mxfp4Kernel::kFlashInfer: {
      const ExpertDims d{round_up(CheckedBytes(width), 256).saturated(),
                         round_up(CheckedBytes(hidden), 256).saturated()};
      return value_bytes(d) + scale_bytes(d) + bias_bytes(d, 4) + 3 * 4;
    }
  }
  return 0;
}

// The bytes the kernel holds past the checkpoint's experts as the rank's
// split counted them (stored: values, scales, bf16 biases, 1/TP of each).
uint64_t mxfp4_layout_bytes(const ModelSpec& spec, uint64_t tp, Mxfp4Kernel kernel) {
  const ModelGeometry& g = spec.geometry;
  if (spec.quantization.method != "mxfp4" || spec.moe.experts == 0) return 0;
  const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
  const CheckedBytes experts = CheckedBytes(g.layers) * spec.moe.experts;
  const ExpertDims stored{width, g.hidden};
  const CheckedBytes stored_rank = CheckedBytes::ceil_div(
      experts * (value_bytes(stored) + scale_bytes(stored) + bias_bytes(stored, 2)), tp);
  const uint64_t rank_width = CheckedBytes::ceil_div(width, tp).saturated();
  const CheckedBytes held = experts * held_expert_bytes(rank_width, g.hidden, kernel);
  // An overflow saturates, so the sum it joins fails as one; held is never
  // less than stored (padding only adds).
  if (held.overflowed() || stored_rank.overflowed()) return UINT64_MAX;
  return (held - stored_rank).value().value_or(0);
}

// Bytes of a parameter count at the checkpoint's average bytes per
// parameter, rounded up.
struct ParamPrice {
  long double per_param = 2.0L;
  uint64_t bytes_of(uint64_t params) const {
    return static_cast<uint64_t>(std::ceil(static_cast<long double>(params) * per_param));
  }
};

// k/v past the KV heads: each rank keeps one head's projections, more than
// its 1/TP share of them.
uint64_t replicated_kv_bytes(const ModelSpec& spec, uint64_t tp, const ParamPrice& price) {
  const ModelGeometry& g = spec.geometry;
  if (g.kv_heads == 0 || g.kv_heads >= tp || g.head_dim == 0) return 0;
  uint64_t attention_layers = 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
        l.kind == LayerKind::kChunked) {
      ++attention_layers;
    }
  }
  const uint64_t kv_params = (CheckedBytes(attention_layers) * 2 * g.kv_heads * g.head_dim * g.hidden).saturated();
  const uint64_t kv_bytes = price.bytes_of(kv_params);
  return kv_bytes / g.kv_heads - kv_bytes / tp;
}

// Mamba-2 with one B/C group: each rank holds the group's 2 x state rows
// of in_proj (hidden wide) and of conv1d (kernel wide, plus the bias)
// whole, not 1/TP of them (MambaMixer2).
uint64_t whole_ssm_group_bytes(const ModelSpec& spec, uint64_t tp, const ParamPrice& price) {
  const Mamba2Geometry& m = spec.mamba2;
  if (m.groups != 1 || tp <= 1 || m.layers == 0) return 0;
  const uint64_t rows = (CheckedBytes(m.state) * 2).saturated();
  const CheckedBytes params =
      CheckedBytes(m.layers) * (rows - rows / tp) * (CheckedBytes(spec.geometry.hidden) + m.kernel + 1);
  return price.bytes_of(params.saturated());
}

// The decoder layers a pipeline split divides (get_pp_indices splits the
// config's num_hidden_layers): the spec's per-layer list, else the
// geometry's count.
uint64_t decoder_layers(const ModelSpec& spec) {
  return spec.layers.empty() ? spec.geometry.layers : spec.layers.size();
}

// The share of `bytes` spread evenly over the decoder layers that `stage`
// holds, rounded up (the whole of it for the whole model).
CheckedBytes layer_share(CheckedBytes bytes, const ModelSpec& spec, const std::optional<PipelineStage>& stage) {
  const uint64_t layers = decoder_layers(spec);
  if (!stage || layers == 0 || !bytes.value()) return bytes;
  // A stage's layers are at most the model's: the share never exceeds the
  // whole, so it cannot overflow.
  return mul_div_ceil(*bytes.value(), stage->layers.count(), layers).value_or(*bytes.value());
}

// Whether vLLM's model class builds its embedding, final norm and LM head
// on every pipeline stage, not only the first and last: Qwen3MoeModel
// constructs embed_tokens and norm, and Qwen3MoeForCausalLM lm_head,
// without a get_pp_group() guard (vllm/model_executor/models/qwen3_moe.py,
// at 002456df and through the v0.10 line), where llama.py's models build a
// PPMissingLayer on the other stages.
bool tables_on_every_stage(const ModelSpec& spec) { return spec.model_type == "qwen3_moe"; }

// `stage` as far as the tables go: a model that builds them on every stage
// (tables_on_every_stage) holds them as a lone stage does.
std::optional<PipelineStage> table_stage(const ModelSpec& spec, const std::optional<PipelineStage>& stage) {
  if (!stage || !tables_on_every_stage(spec)) return stage;
  return PipelineStage{stage->layers, true, true};
}

// The vocabulary tables (embedding, LM head) a stage holds: the embedding
// on the first stage; an untied head on the last, and with tied
// embeddings the last stage's own embedding as its head (one table where
// one stage is both).
uint64_t tables_on_stage(bool tied, const std::optional<PipelineStage>& stage) {
  const bool first = !stage || stage->first, last = !stage || stage->last;
  if (tied) return first || last ? 1 : 0;
  return (first ? 1 : 0) + (last ? 1 : 0);
}

// One rank's weights from the checkpoint's total and the config's
// geometry, with no tensor list: the decoder layers' part spread evenly
// over the layers (a stage holds its layers' share), the vocabulary tables
// whole (tables_on_stage).
CheckedBytes rank_weights_by_geometry(const Model& model, uint64_t tp, const std::optional<PipelineStage>& stage) {
  const ModelSpec& spec = model.spec;
  const ModelGeometry& g = spec.geometry;
  const uint64_t total = model.weights.bytes;
  // 16-bit vocabulary tables, padded to 64 rows, split by rows.
  const CheckedBytes table = CheckedBytes(g.vocab) * g.hidden * kAct;
  const uint64_t tables = spec.tied_embeddings ? 1 : 2;
  const CheckedBytes padded_rows = CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding;
  const CheckedBytes table_rank = CheckedBytes::ceil_div(padded_rows, tp) * g.hidden * kAct *
                                  tables_on_stage(spec.tied_embeddings, table_stage(spec, stage));
  // Average bytes per parameter of the rest, for the replicated parts.
  const uint64_t head_params = (CheckedBytes(g.vocab) * g.hidden * tables).saturated();
  const CheckedBytes rest_total = CheckedBytes(total) - table * tables;
  const uint64_t rest_params = spec.analytical_params > head_params ? spec.analytical_params - head_params : 0;
  const ParamPrice price{rest_params == 0 || !rest_total.value()
                             ? 2.0L
                             : static_cast<long double>(*rest_total.value()) / rest_params};
  // The replicated parts at their own widths where the config prices them
  // (norms and routers at 16 bits beside 4-bit experts, DeepSeek V4's
  // float32 mixes), else at the average.
  const uint64_t replicated =
      spec.replicated_bytes != 0 ? spec.replicated_bytes : price.bytes_of(spec.replicated_params);
  const uint64_t kv_extra = replicated_kv_bytes(spec, tp, price);
  const uint64_t ssm_extra = whole_ssm_group_bytes(spec, tp, price);
  const CheckedBytes split = rest_total - replicated;
  if (!split.value()) {
    // The total is smaller than the tables the geometry implies: split it all.
    return layer_share(CheckedBytes::ceil_div(total, tp), spec, stage);
  }
  return layer_share(CheckedBytes::ceil_div(split, tp) + replicated + kv_extra + ssm_extra, spec, stage) +
         table_rank;
}

// Whether `stage` loads tensor `p` (vLLM's PP split, PipelineStage): a
// decoder layer's on the stage holding it (a layer past the decoder
// layers, an MTP module's, on the last), the embedding on the first and,
// tied, the last, the head and final norm on the last, anything else
// (towers, projectors) on every stage, conservatively.
bool stage_loads(const TensorPlacement& p, bool tied, const ModelSpec& spec, const PipelineStage& stage) {
  if (p.layer) {
    if (*p.layer >= decoder_layers(spec)) return stage.last;
    return *p.layer >= stage.layers.begin && *p.layer < stage.layers.end;
  }
  switch (p.role) {
    case TensorRole::kEmbedding: return stage.first || (tied && stage.last);
    case TensorRole::kLmHead:
    case TensorRole::kFinalNorm: return stage.last;
    default: return true;
  }
}

// One rank's tensors from the checkpoint's list, those of `stage` only
// when one is given.
Result<CheckedBytes> rank_weights_by_tensors(const Model& model, std::span<const SafetensorsTensor> tensors,
                                             uint64_t tp, const std::optional<PipelineStage>& stage) {
  const ModelSpec& spec = model.spec;
  const TensorSplit split{ShardingRules::kVllm, tp, spec.geometry.kv_heads, spec.mamba2};
  // A checkpoint without a head tensor ties it to the embedding.
  const bool tied = std::none_of(tensors.begin(), tensors.end(), [](const SafetensorsTensor& t) {
    return place_tensor(t.name).role == TensorRole::kLmHead;
  });
  const std::optional<PipelineStage> tables = table_stage(spec, stage);
  CheckedBytes rank = 0;
  for (const SafetensorsTensor& t : tensors) {
    const TensorPlacement p = place_tensor(t.name);
    if (stage && !stage_loads(p, tied, spec, p.layer ? *stage : *tables)) continue;
    Result<uint64_t> b = tp_rank_tensor_bytes(t, p.role, split);
    if (!b) return b.error();
    rank += *b;
  }
  return rank;
}

}  // namespace

std::string_view to_string(Mxfp4Kernel kernel) {
  switch (kernel) {
    case Mxfp4Kernel::kTriton: return "triton";
    case Mxfp4Kernel::kMarlin: return "marlin";
    case Mxfp4Kernel::kFlashInfer: return "flashinfer";
  }
  return "triton";
}

std::optional<Mxfp4Kernel> parse_mxfp4_kernel(std::string_view name) {
  for (Mxfp4Kernel k : {Mxfp4Kernel::kTriton, Mxfp4Kernel::kMarlin, Mxfp4Kernel::kFlashInfer}) {
    if (name == to_string(k)) return k;
  }
  return std::nullopt;
}

Result<std::vector<PipelineStage>> vllm_pipeline_stages(uint64_t layers, uint64_t pipeline_parallel) {
  Result<std::vector<LayerRange>> ranges = pipeline_layer_ranges(ShardingRules::kVllm, layers, pipeline_parallel);
  if (!ranges) return ranges.error();
  std::vector<PipelineStage> stages;
  for (size_t s = 0; s < ranges->size(); ++s) {
    stages.push_back({(*ranges)[s], s == 0, s + 1 == ranges->size()});
  }
  return stages;
}

Result<TpRankWeights> tp_rank_weights(const Model& model, std::span<const SafetensorsTensor> tensors,
                                      uint64_t tp, Mxfp4Kernel mxfp4_kernel,
                                      const std::optional<PipelineStage>& stage) {
  tp = std::max<uint64_t>(1, tp);
  const ModelSpec& spec = model.spec;
  TpRankWeights w;
  // Every stage builds the rotary embeddings of its own attention layers.
  w.rope_cache_bytes = rope_cache_bytes(spec);
  CheckedBytes rank = 0;
  if (!tensors.empty()) {
    Result<CheckedBytes> listed = rank_weights_by_tensors(model, tensors, tp, stage);
    if (!listed) return listed.error();
    rank = *listed;
    w.from_tensor_list = true;
    w.exact = model.weights.source == WeightsSource::kSafetensorsHeader;
  } else {
    rank = rank_weights_by_geometry(model, tp, stage);
  }
  // The experts' padding is the same in every layer (UINT64_MAX: overflow).
  const uint64_t padding = mxfp4_layout_bytes(spec, tp, mxfp4_kernel);
  if (padding == UINT64_MAX) return Error::overflow("vLLM weights per rank overflow 64 bits");
  w.padding_bytes = layer_share(padding, spec, stage).saturated();
  rank += w.rope_cache_bytes;
  rank += w.padding_bytes;
  if (!rank.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
  w.bytes = *rank.value();
  return w;
}

}  // namespace memfit
