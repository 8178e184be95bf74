// Counted per layer:
//   attention  hidden x heads x head_dim (q) + 2 x hidden x kv_heads x head_dim (k, v)
//              + heads x head_dim x hidden (o); MLA: the low-rank projections
//   MLP        3 x hidden x intermediate (gated); MoE: experts x 3 x hidden x
//              moe_intermediate + shared experts + router
//   SSM        in/out projections 3 x hidden x d_inner (Mamba-style estimate)
//   norms      2 x hidden
// plus embeddings vocab x hidden, an untied LM head of the same size and a
// final norm.
#include "model/analytical_params.h"

#include "memfit/checked_math.h"

namespace memfit {
namespace {

uint64_t field(FieldReader& reader, std::initializer_list<std::string_view> aliases) {
  Result<std::optional<uint64_t>> v = reader.doc().u64(aliases);
  return v && v->has_value() ? **v : 0;
}

}  // namespace

uint64_t analytical_parameter_count(FieldReader& reader, const ModelSpec& spec) {
  const ModelGeometry& g = spec.geometry;
  if (g.layers == 0 || g.hidden == 0) return 0;
  CheckedBytes attention = 0;
  if (g.heads > 0 && g.head_dim > 0) {
    uint64_t rank = field(reader, {"kv_lora_rank"});
    if (rank > 0) {
      uint64_t q_rank = field(reader, {"q_lora_rank"});
      uint64_t rope = field(reader, {"qk_rope_head_dim"});
      uint64_t nope = field(reader, {"qk_nope_head_dim"});
      uint64_t v = field(reader, {"v_head_dim"});
      CheckedBytes q_head = CheckedBytes(nope) + rope;
      CheckedBytes q = q_rank > 0 ? CheckedBytes(g.hidden) * q_rank + CheckedBytes(q_rank) * g.heads * q_head
                                  : CheckedBytes(g.hidden) * g.heads * q_head;
      attention = q + CheckedBytes(g.hidden) * (CheckedBytes(rank) + rope) +
                  CheckedBytes(rank) * g.heads * (CheckedBytes(nope) + v) +
                  CheckedBytes(g.heads) * v * g.hidden;
    } else {
      attention = CheckedBytes(2) * g.hidden * g.heads * g.head_dim +
                  CheckedBytes(2) * g.hidden * g.kv_heads * g.head_dim;
    }
  }
  uint64_t experts = field(reader, {"num_experts", "n_routed_experts", "num_local_experts"});
  CheckedBytes mlp = CheckedBytes(3) * g.hidden * g.intermediate;
  if (experts > 0) {
    uint64_t moe_inter = field(reader, {"moe_intermediate_size"});
    if (moe_inter == 0) moe_inter = g.intermediate;
    uint64_t shared = field(reader, {"n_shared_experts", "num_shared_experts"});
    uint64_t shared_inter = field(reader, {"shared_expert_intermediate_size"});
    CheckedBytes shared_params = shared_inter > 0 ? CheckedBytes(3) * g.hidden * shared_inter
                                                  : CheckedBytes(3) * g.hidden * moe_inter * shared;
    mlp = CheckedBytes(3) * g.hidden * moe_inter * experts + shared_params +
          CheckedBytes(g.hidden) * experts;
  }
  if (spec.layout == "ssm") mlp = 0;  // a Mamba / RWKV block is its mixer
  CheckedBytes per_layer = 0;
  for (const LayerCache& layer : spec.layers) {
    CheckedBytes mixer = 0;
    switch (layer.kind) {
      case LayerKind::kSsm:
      case LayerKind::kLinearAttention:
      case LayerKind::kConv:
        mixer = CheckedBytes(3) * g.hidden * (g.intermediate > 0 ? g.intermediate : 2 * g.hidden);
        break;
      default: mixer = attention; break;
    }
    per_layer += mixer + mlp + CheckedBytes(2) * g.hidden;
  }
  Result<std::optional<bool>> tied = reader.doc().boolean("tie_word_embeddings");
  bool untied = tied && tied->has_value() && !**tied;
  CheckedBytes embeddings = CheckedBytes(g.vocab) * g.hidden * (untied ? 2 : 1);
  return (per_layer + embeddings + g.hidden).saturated();
}

}  // namespace memfit
