// The deepseek2 graphs' shared geometry (llamacpp/graph/mla_shape.h).
#include "engines/llamacpp/graph/mla_shape.h"

#include <algorithm>
#include <initializer_list>

namespace memfit::llamacpp::graph {

MlaShape mla_shape(const ModelSpec& spec, const MlaGeometry& mla, const LlamaCppContext& c) {
  MlaShape s;
  s.layers = spec.layers.size();
  s.dense_layers = std::min<uint64_t>(mla.leading_dense, s.layers);
  s.hidden = spec.geometry.hidden;
  s.heads = spec.geometry.heads;
  s.q_lora = mla.q_lora_rank;
  s.latent = mla.kv_lora_rank;
  s.rope = mla.qk_rope;
  s.nope = mla.qk_nope;
  s.value = mla.v_head;
  s.ffn = spec.geometry.intermediate;
  s.shared_ffn = spec.moe.expert_intermediate * spec.moe.shared_experts;
  s.vocab = spec.geometry.vocab;
  s.n_kv = c.n_ctx_seq;
  s.moe.hidden = s.hidden;
  s.moe.experts = spec.moe.experts;
  s.moe.used = spec.moe.experts_per_token;
  s.moe.expert_ffn = spec.moe.expert_intermediate;
  return s;
}

uint64_t mla_tensor_bound(const MlaShape& s) { return 64 + s.layers * (96 + 2 * s.moe.used); }

bool mla_shape_in_bounds(const MlaShape& s) {
  // Each width below 2^20 first, so the products of two below never wrap.
  for (uint64_t v : {s.hidden, s.heads, s.latent, s.rope, s.nope, s.value, s.n_kv}) {
    if (v == 0 || v >= kMaxFactor) return false;
  }
  for (uint64_t v : {s.latent + s.rope, s.nope + s.rope, s.heads * (s.nope + s.rope), s.heads * s.value,
                     s.heads * (s.nope + s.value), s.heads * (s.latent + s.rope)}) {
    if (v >= kMaxFactor) return false;
  }
  if (s.q_lora >= kMaxFactor || s.vocab == 0 || s.vocab >= kMaxVocab) return false;
  if (s.dense_layers > 0 && (s.ffn == 0 || s.ffn >= kMaxFactor)) return false;
  if (s.dense_layers < s.layers) {
    const MoeShape& e = s.moe;
    if (e.experts == 0 || e.used == 0 || e.used > e.experts || e.experts >= kMaxFactor || e.expert_ffn == 0 ||
        e.expert_ffn >= kMaxFactor || e.used * e.expert_ffn >= kMaxFactor || s.shared_ffn == 0 || s.shared_ffn >= kMaxFactor) {
      return false;
    }
  }
  return mla_tensor_bound(s) <= kMaxTensors;
}

}  // namespace memfit::llamacpp::graph
