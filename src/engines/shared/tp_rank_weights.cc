// tp_rank_weights(): one TP rank's weights (tp_rank_weights.h); the
// rules are docs/engine-vllm.md's, "Terms, per rank".
#include "engines/shared/tp_rank_weights.h"

#include <algorithm>
#include <cmath>

#include "engines/shared/parallel_tensors.h"
#include "memfit/checked_math.h"
#include "memfit/vllm.h"

namespace memfit {
namespace {

constexpr uint64_t kAct = 2;  // bf16 / fp16 rotary cache and vocabulary tables

// MXFP4 experts as vLLM's MoE kernels lay them out: the hidden dimension
// rounded up to 256 and each rank's expert width to 64, 4.25 bits an
// element (4-bit values, an 8-bit scale per 32) in gate_up and down. The
// bytes past the checkpoint's (modelled: read from the published H100 run
// of gpt-oss-20b; docs/engine-vllm.md).
constexpr uint64_t kMxfp4HiddenAlign = 256, kMxfp4WidthAlign = 64;
uint64_t mxfp4_padding_bytes(const ModelSpec& spec, uint64_t tp) {
  const ModelGeometry& g = spec.geometry;
  if (spec.quantization.method != "mxfp4" || spec.moe.experts == 0) return 0;
  const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
  const CheckedBytes rank_width = CheckedBytes::ceil_div(width, tp);
  const CheckedBytes padded_width = round_up(rank_width, kMxfp4WidthAlign);
  const CheckedBytes padded_hidden = round_up(g.hidden, kMxfp4HiddenAlign);
  const CheckedBytes experts = CheckedBytes(g.layers) * spec.moe.experts * 3;
  const CheckedBytes padded = CheckedBytes::ceil_div(experts * padded_width * padded_hidden * 17, 32);
  const CheckedBytes stored = CheckedBytes::ceil_div(experts * rank_width * g.hidden * 17, 32);
  return (padded - stored).value().value_or(0);
}

uint64_t rope_cache_bytes(const ModelSpec& spec) {
  if (spec.geometry.head_dim == 0) return 0;
  return (CheckedBytes(spec.max_position_tokens) * spec.geometry.head_dim * kAct).saturated();
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

// One rank's weights from the checkpoint's total and the config's
// geometry, with no tensor list.
CheckedBytes rank_weights_by_geometry(const Model& model, uint64_t tp) {
  const ModelSpec& spec = model.spec;
  const ModelGeometry& g = spec.geometry;
  const uint64_t total = model.weights.bytes;
  // 16-bit vocabulary tables, padded to 64 rows, split by rows.
  const CheckedBytes table = CheckedBytes(g.vocab) * g.hidden * kAct;
  const uint64_t tables = spec.tied_embeddings ? 1 : 2;
  const CheckedBytes padded_rows = CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding;
  const CheckedBytes table_rank = CheckedBytes::ceil_div(padded_rows, tp) * g.hidden * kAct * tables;
  // Average bytes per parameter of the rest, for the replicated parts.
  const uint64_t head_params = (CheckedBytes(g.vocab) * g.hidden * tables).saturated();
  const CheckedBytes rest_total = CheckedBytes(total) - table * tables;
  const uint64_t rest_params = spec.analytical_params > head_params ? spec.analytical_params - head_params : 0;
  const ParamPrice price{rest_params == 0 || !rest_total.value()
                             ? 2.0L
                             : static_cast<long double>(*rest_total.value()) / rest_params};
  const uint64_t replicated = price.bytes_of(spec.replicated_params);
  const uint64_t kv_extra = replicated_kv_bytes(spec, tp, price);
  const uint64_t ssm_extra = whole_ssm_group_bytes(spec, tp, price);
  const CheckedBytes split = rest_total - replicated;
  if (!split.value()) {
    // The total is smaller than the tables the geometry implies: split it all.
    return CheckedBytes::ceil_div(total, tp);
  }
  return CheckedBytes::ceil_div(split, tp) + replicated + kv_extra + ssm_extra + table_rank;
}

}  // namespace

Result<TpRankWeights> tp_rank_weights(const Model& model, std::span<const SafetensorsTensor> tensors,
                                      uint64_t tp) {
  tp = std::max<uint64_t>(1, tp);
  const ModelSpec& spec = model.spec;
  TpRankWeights w;
  w.rope_cache_bytes = rope_cache_bytes(spec);
  CheckedBytes rank = 0;
  if (!tensors.empty()) {
    const TensorSplit split{ShardingRules::kVllm, tp, spec.geometry.kv_heads, spec.mamba2};
    for (const SafetensorsTensor& t : tensors) {
      Result<uint64_t> b = tp_rank_tensor_bytes(t, place_tensor(t.name).role, split);
      if (!b) return b.error();
      rank += *b;
    }
    w.from_tensor_list = true;
    w.exact = model.weights.source == WeightsSource::kSafetensorsHeader;
  } else {
    rank = rank_weights_by_geometry(model, tp);
  }
  w.padding_bytes = mxfp4_padding_bytes(spec, tp);
  rank += w.rope_cache_bytes;
  rank += w.padding_bytes;
  if (!rank.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
  w.bytes = *rank.value();
  return w;
}

}  // namespace memfit
