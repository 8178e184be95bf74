// dp_attention_weights_bytes(): see dp_attention_weights.h.
#include "engines/sglang/dp_attention_weights.h"

#include <algorithm>

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

}  // namespace

uint64_t dp_attention_weights_bytes(const ModelSpec& spec, uint64_t tensor_parallel, uint64_t attention_tp,
                                    bool dp_lm_head) {
  if (attention_tp == 0 || attention_tp >= tensor_parallel) return 0;
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
