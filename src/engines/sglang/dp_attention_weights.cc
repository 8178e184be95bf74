// dp_attention_weights_bytes(): see dp_attention_weights.h.
#include "engines/sglang/dp_attention_weights.h"

#include <algorithm>
#include <optional>
#include <string>

#include "memfit/checked_math.h"

namespace memfit::sglang {
namespace {

constexpr uint64_t kParamBytes = 2;     // a 16-bit checkpoint's projections and table
constexpr uint64_t kVocabPadding = 64;  // VocabParallelEmbedding's padding_size

// The parameters of one attention layer's projections a rank holds when
// they are split over `tp` ranks: q and o by heads, k and v by KV heads,
// replicated past them (at least one head a rank).
CheckedBytes attention_share(const ModelGeometry& g, uint64_t tp) {
  const CheckedBytes q_and_o = CheckedBytes(g.heads) * g.head_dim * g.hidden * 2;
  const uint64_t kv_heads = std::max<uint64_t>(1, g.kv_heads / tp);
  return CheckedBytes::ceil_div(q_and_o, tp) + CheckedBytes(kv_heads) * g.head_dim * g.hidden * 2;
}

constexpr uint64_t kFp8Bytes = 1;    // an FP8 checkpoint's projections
constexpr uint64_t kScaleBytes = 4;  // an FP8 block's fp32 weight_scale_inv

// How an MLA checkpoint's projections are held: element bytes and the FP8
// block (0: none). Empty for a scheme not described.
struct MlaStorage {
  uint64_t element_bytes = kParamBytes;
  uint64_t block_rows = 0, block_cols = 0;
};

std::optional<MlaStorage> mla_storage(const QuantizationInfo& q) {
  if (q.method.empty()) return MlaStorage{};
  if (q.method != "fp8") return std::nullopt;
  for (const std::string& module : q.unquantized_modules) {
    if (module.find("self_attn.") != std::string::npos && module.find("indexer") == std::string::npos) {
      return std::nullopt;  // attention projections of mixed widths
    }
  }
  MlaStorage s{.element_bytes = kFp8Bytes};
  if (q.block_size.size() == 2 && q.block_size[0] != 0 && q.block_size[1] != 0) {
    s.block_rows = q.block_size[0], s.block_cols = q.block_size[1];
  }
  return s;
}

CheckedBytes linear_bytes(const MlaStorage& s, CheckedBytes rows, uint64_t cols) {
  CheckedBytes bytes = rows * cols * s.element_bytes;
  if (s.block_rows != 0) {
    bytes = bytes + CheckedBytes::ceil_div(rows, s.block_rows) *
                        CheckedBytes::ceil_div(CheckedBytes(cols), s.block_cols).saturated() * kScaleBytes;
  }
  return bytes;
}

// One layer's q_b_proj (q_proj), kv_b_proj and o_proj on a rank of a
// group of `tp`: heads / tp of each.
CheckedBytes mla_split_share(const ModelSpec& spec, const MlaStorage& s, uint64_t tp) {
  const ModelGeometry& g = spec.geometry;
  const MlaGeometry& m = spec.mla;
  const uint64_t heads = CheckedBytes::ceil_div(g.heads, tp).saturated();
  const uint64_t q_cols = m.q_lora_rank != 0 ? m.q_lora_rank : g.hidden;
  return linear_bytes(s, (CheckedBytes(m.qk_nope) + m.qk_rope) * heads, q_cols) +
         linear_bytes(s, (CheckedBytes(m.qk_nope) + m.v_head) * heads, m.kv_lora_rank) +
         linear_bytes(s, CheckedBytes(g.hidden), (CheckedBytes(m.v_head) * heads).saturated());
}

uint64_t mla_dp_attention_bytes(const ModelSpec& spec, uint64_t tp, uint64_t attention_tp, bool dp_lm_head,
                                bool embedding_by_attention_tp) {
  const std::optional<MlaStorage> storage = mla_storage(spec.quantization);
  if (!storage) return 0;
  const ModelGeometry& g = spec.geometry;
  const CheckedBytes per_layer =
      mla_split_share(spec, *storage, attention_tp) - mla_split_share(spec, *storage, tp);
  // The 2-byte vocabulary tables (Fp8Config quantizes LinearBase only).
  const CheckedBytes table = CheckedBytes::ceil_div(g.vocab, kVocabPadding) * kVocabPadding * g.hidden * kParamBytes;
  const uint64_t embedding_group = embedding_by_attention_tp ? attention_tp : 1;
  const CheckedBytes embedding = CheckedBytes::ceil_div(table, embedding_group) - CheckedBytes::ceil_div(table, tp);
  const CheckedBytes head = dp_lm_head && !spec.tied_embeddings
                                ? CheckedBytes::ceil_div(table, attention_tp) - CheckedBytes::ceil_div(table, tp)
                                : CheckedBytes(0);
  return (per_layer * g.layers + embedding + head).saturated();
}

}  // namespace

uint64_t dp_attention_weights_bytes(const ModelSpec& spec, uint64_t tensor_parallel, uint64_t attention_tp,
                                    bool dp_lm_head, bool mla_embedding_by_attention_tp) {
  if (attention_tp == 0 || attention_tp >= tensor_parallel) return 0;
  if (spec.layout == "mla" && spec.mla.kv_lora_rank != 0 && spec.compressed_attention.compress_ratios.empty()) {
    return mla_dp_attention_bytes(spec, tensor_parallel, attention_tp, dp_lm_head, mla_embedding_by_attention_tp);
  }
  if (!spec.quantization.method.empty()) return 0;
  if (spec.layout != "standard" && spec.layout != "sliding_window") return 0;
  const ModelGeometry& g = spec.geometry;
  uint64_t attention_layers = 0;
  for (const LayerCache& l : spec.layers) {
    attention_layers += l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ? 1 : 0;
  }
  const CheckedBytes per_layer = attention_share(g, attention_tp) - attention_share(g, tensor_parallel);
  const CheckedBytes padded_vocab = CheckedBytes::ceil_div(g.vocab, kVocabPadding) * kVocabPadding;
  const CheckedBytes table = padded_vocab * g.hidden;
  const CheckedBytes embedding = table - CheckedBytes::ceil_div(table, tensor_parallel);
  // --enable-dp-lm-head: the head's rows split by the attention TP group.
  const CheckedBytes head = dp_lm_head && !spec.tied_embeddings
                                ? CheckedBytes::ceil_div(table, attention_tp) - CheckedBytes::ceil_div(table, tensor_parallel)
                                : CheckedBytes(0);
  return ((per_layer * attention_layers + embedding + head) * kParamBytes).saturated();
}

}  // namespace memfit::sglang
