// The graph llama.cpp's deepseek2 models ran with before the MLA graph
// (#12801: legacy_deepseek2_graph), built tensor by tensor in the order
// llm_build_deepseek2 (src/llama.cpp) built it, for the op-offload replay
// (ggml_graph::offload_split). That graph decompresses the latent into
// every head: Q through its LoRA pair, K's no-rope part and V out of
// wkv_b's product, the key's rope part repeated over the heads, and
// llm_build_kv over a cache that holds every head's K (qk_nope + qk_rope)
// and V (v_head_dim), V transposed without flash attention. The facts
// behind each step: docs/llamacpp-rules.md, "Op offload".
//
// One layer, n tokens (f32 unless said):
//   attn_norm; q = wq_b(norm(wq_a(x))) [heads x (nope + rope), n]
//   (wq(x) without a Q LoRA); q_nope and q_pe views of it;
//   kv_pe = wkv_a_mqa(x) [latent + rope, n]; its latent part copied
//   (ggml_cont), normed, and decompressed: kv = wkv_b(.) [heads x (nope +
//   v), n]; k_nope a view of kv, V its other part copied (ggml_cont);
//   q_pe and k_pe (kv_pe's rope part) each copied, then roped in place;
//   Q = concat(q_nope, q_pe), K = concat(k_nope, repeat(k_pe over the
//   heads)) [nope + rope, heads, n].
//   llm_build_kv: Q, K, V expanded; K copied into a view of the layer's K
//   cache, V (transposed without flash attention) into the V cache's;
//   kq = K_cache x Q [n_kv, n, heads], softmax with the F32 mask
//   [n_kv, pad32(n)] in place, kqv = V_cache x kq [v, n, heads], its heads
//   merged by ggml_cont_2d, then wo.
//   The FFN: a dense SwiGLU (SiLU and the product in place) in the leading
//   blocks, else build_moe_ffn plus the shared expert.
#include <algorithm>
#include <optional>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/mla_shape.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp::graph {

namespace {

using ggml_graph::Dims;
using ggml_graph::Op;
using ggml_graph::Type;

// GGML_KQ_MASK_PAD of those builds: the mask's rows are the batch's padded
// to 32 (ggml.h; build_inp_KQ_mask's GGML_PAD(n_tokens, GGML_KQ_MASK_PAD)).
constexpr uint64_t kMaskRowPad = 32;

// llm_build_kv without flash attention: the stores, then the scores over
// the layer's whole cache, the softmax, V's product and the merged heads;
// wo's output [hidden, n].
int legacy_attention(Graph& g, const MlaShape& s, int mask, int q, int k, int v, uint64_t n) {
  g.expand(q);
  g.expand(k);
  g.expand(v);
  const uint64_t qk = s.nope + s.rope;
  const int k_cache = g.cache_external("cache_k");
  const int v_cache = g.cache_external("cache_v");
  // ggml_cpy into a view of the cache: its result is that view, so the
  // store runs where the cache is.
  g.expand(g.op(Op::kCpy, Type::kExternal, {1, 1, 1, 1}, {k, k_cache}, "k_cache_view"));
  g.expand(g.op(Op::kCpy, Type::kExternal, {1, 1, 1, 1}, {g.transpose(v), v_cache}, "v_cache_view"));
  const int qp = g.permute(q, 0, 2, 1, 3);
  // The caches' views (external: a copy of one is the layer's whole K or V).
  const int kview = g.view(k_cache, {qk, s.n_kv, s.heads, 1}, {2, 2 * qk * s.heads, 2 * qk, 2 * qk * s.heads * s.n_kv}, 0);
  const int kq = g.op(Op::kMulMat, Type::kF32, {s.n_kv, n, s.heads, 1}, {kview, qp}, "kq");
  const int soft = g.op(Op::kSoftMax, Type::kF32, {s.n_kv, n, s.heads, 1}, {kq, mask}, "kq_soft_max_ext");
  const int vview = g.view(v_cache, {s.n_kv, s.value, s.heads, 1}, {2, 2 * s.n_kv, 2 * s.n_kv * s.value, 2 * s.n_kv * s.value * s.heads}, 0);
  const int kqv = g.op(Op::kMulMat, Type::kF32, {s.value, n, s.heads, 1}, {vview, soft}, "kqv");
  const int cur = g.op(Op::kOther, Type::kF32, {s.value * s.heads, n, 1, 1}, {g.permute(kqv, 0, 2, 1, 3)},
                       "kqv_merged_cont");
  g.expand(cur);
  return mul_mat(g, g.weight(-1, block_tensor(g.layer(), "attn_output")), cur, s.hidden);
}

// The graph of one ubatch of n tokens keeping n_out output rows, every
// weight named (Graph::weight), each layer's K and V a cache external.
Graph build(const MlaShape& s, uint64_t n, uint64_t n_out) {
  Graph g;
  g.reserve(mla_tensor_bound(s));
  g.set_named_weights(true);
  const auto w = [&](std::string_view kind) { return g.weight(-1, block_tensor(g.layer(), kind)); };
  // No vector-input leaf in these builds (#18898 came later).
  int inp = token_embeddings(g, -1, s.hidden, n, false);
  const int pos = g.input(Type::kI32, {n, 1, 1, 1}, "inp_pos");
  const uint64_t mask_rows = (n + kMaskRowPad - 1) / kMaskRowPad * kMaskRowPad;
  const int mask = g.input(Type::kF32, {s.n_kv, mask_rows, 1, 1}, "KQ_mask");
  const uint64_t qk = s.nope + s.rope;
  const uint64_t row = s.latent + s.rope;
  const uint64_t kv_width = s.nope + s.value;
  for (uint64_t il = 0; il < s.layers; ++il) {
    g.set_layer(static_cast<int>(il));
    int residual = inp;
    const int x = rms_norm_mul(g, inp, w("attn_norm"));
    int q = -1;
    if (s.q_lora > 0) {
      q = rms_norm_mul(g, mul_mat(g, w("attn_q_a"), x, s.q_lora), w("attn_q_a_norm"));
      q = mul_mat(g, w("attn_q_b"), q, s.heads * qk);
    } else {
      q = mul_mat(g, w("attn_q"), x, s.heads * qk);
    }
    const Dims qnb = {4, 4 * qk, 4 * qk * s.heads, 4 * qk * s.heads * n};
    const int q_nope = g.view(q, {s.nope, s.heads, n, 1}, qnb, 0);
    int q_pe = g.view(q, {s.rope, s.heads, n, 1}, qnb, 4 * s.nope);
    const int kv_pe = mul_mat(g, w("attn_kv_a_mqa"), x, row);
    const Dims row_nb = {4, 4 * row, 4 * row * n, 4 * row * n};
    int kv_c = g.view(kv_pe, {s.latent, n, 1, 1}, row_nb, 0);
    int k_pe = g.view(kv_pe, {s.rope, 1, n, 1}, {4, 4 * row, 4 * row, 4 * row * n}, 4 * s.latent);
    kv_c = g.op(Op::kOther, Type::kF32, {s.latent, n, 1, 1}, {kv_c}, "kv_compressed_cont");
    kv_c = rms_norm_mul(g, kv_c, w("attn_kv_a_norm"));
    const int kv = mul_mat(g, w("attn_kv_b"), kv_c, s.heads * kv_width);
    const Dims kv_nb = {4, 4 * kv_width, 4 * kv_width * s.heads, 4 * kv_width * s.heads * n};
    const int k_nope = g.view(kv, {s.nope, s.heads, n, 1}, kv_nb, 0);
    int v = g.view(kv, {s.value, s.heads, n, 1}, kv_nb, 4 * s.nope);
    v = g.op(Op::kOther, Type::kF32, {s.value, s.heads, n, 1}, {v}, "v_states");
    v = g.reshape(v, {s.value * s.heads, n, 1, 1});
    q_pe = g.op(Op::kOther, Type::kF32, {s.rope, s.heads, n, 1}, {q_pe}, "q_pe_cont");
    q_pe = g.op(Op::kRope, Type::kF32, {s.rope, s.heads, n, 1}, {q_pe, pos}, "q_pe");
    k_pe = g.op(Op::kOther, Type::kF32, {s.rope, 1, n, 1}, {k_pe}, "k_pe_cont");
    k_pe = g.op(Op::kRope, Type::kF32, {s.rope, 1, n, 1}, {k_pe, pos}, "k_pe");
    const int q_states = g.op(Op::kOther, Type::kF32, {qk, s.heads, n, 1}, {q_nope, q_pe}, "q_states");
    // ggml_repeat(k_pe, q_pe): q_pe gives the shape alone (src[0] only).
    const int k_rep = g.op(Op::kOther, Type::kF32, {s.rope, s.heads, n, 1}, {k_pe}, "k_pe_repeat");
    const int k_states = g.op(Op::kOther, Type::kF32, {qk, s.heads, n, 1}, {k_nope, k_rep}, "k_states");
    int cur = legacy_attention(g, s, mask, q_states, k_states, v, n);
    uint64_t rows = n;
    if (il + 1 == s.layers) {
      // build_inp_out_ids: made where the last layer first reads it.
      const int out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");
      rows = keep_output_rows(g, out_ids, s.hidden, n_out, cur, residual);
    }
    const int ffn_inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {cur, residual}, "ffn_inp");
    const int y = rms_norm_mul(g, ffn_inp, w("ffn_norm"));
    int ffn_out = -1;
    if (il < s.dense_layers) {
      ffn_out = swiglu_ffn(g, -1, y, s.ffn, s.hidden, false);
    } else {
      const int routed = moe_ffn(g, s.moe, -1, y, rows);
      const int shared = swiglu_ffn(g, -1, y, s.shared_ffn, s.hidden, false, "_shexp");
      ffn_out = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {routed, shared}, "ffn_out");
    }
    inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {ffn_out, ffn_inp}, "l_out");
  }
  g.set_layer(static_cast<int>(s.layers));
  logits_output(g, -1, inp, s.vocab);
  return g;
}

// The shape of the model's graphs; nullopt where the builder does not
// cover it.
std::optional<MlaShape> legacy_shape(const ModelSpec& spec, const LlamaCppContext& c,
                                     const LlamaCppSettings& settings, const WeightHomes& homes) {
  const std::optional<MlaShape> none;
  const MlaGeometry& m = spec.mla;
  if (spec.layers.empty() || spec.layers.size() > kMaxLayers || m.kv_lora_rank == 0) return none;
  if (c.flash_attn || std::max<uint64_t>(c.streams, 1) > 1 || !legacy_deepseek2_graph(settings)) return none;
  MlaShape s = mla_shape(spec, m, c);
  // Every layer caches each head's K and V (a file without the MLA keys).
  for (const LayerCache& l : spec.layers) {
    if (!is_decompressed_mla(l) || k_row_elems(l) != s.heads * (s.nope + s.rope) ||
        v_row_elems(l) != s.heads * s.value) {
      return none;
    }
  }
  // The router as the file sets it (llm_build_moe_ffn's arguments): DeepSeek
  // V3's selection bias (exp_probs_b) comes with sigmoid gating and
  // normalized weights, V2's softmax without either (its expert_gating_func
  // absent: softmax); the weights are scaled either way (scale_w true).
  // The routing's tensors are [used, n] and [experts, n]: a few KiB.
  s.moe.selection_bias = homes.contains(block_tensor(static_cast<int>(s.dense_layers), "exp_probs_b", "bias"));
  s.moe.sigmoid = s.moe.selection_bias;
  s.moe.weights_norm = s.moe.selection_bias;
  s.moe.weights_scaled = true;
  s.moe.fused = false;  // llm_build_moe_ffn's silu and par, before #14158

  if (!mla_shape_in_bounds(s)) return none;
  return s;
}

// One layer's K or V cache tensor: `width` elements a cell of `type`.
std::optional<uint64_t> cache_bytes(GgmlType type, uint64_t width, uint64_t cells) {
  const GgmlTypeTraits& t = ggml_type_traits(type);
  if (t.block_elements == 0 || width % t.block_elements != 0) return std::nullopt;
  return (CheckedBytes(width / t.block_elements) * t.block_bytes * cells).value();
}

}  // namespace

Result<std::optional<uint64_t>> replay_deepseek2_legacy_offload(const ModelSpec& spec, const LlamaCppContext& c,
                                                                const LlamaCppSettings& settings,
                                                                const std::vector<int>& device_of_layer,
                                                                const WeightHomes& homes, int offload_gpu,
                                                                int device) {
  const std::optional<uint64_t> none;
  const std::optional<MlaShape> s = legacy_shape(spec, c, settings, homes);
  if (!s || device_of_layer.empty()) return none;
  const std::optional<uint64_t> k_bytes = cache_bytes(settings.cache_type_k, s->heads * (s->nope + s->rope), s->n_kv);
  const std::optional<uint64_t> v_bytes = cache_bytes(settings.cache_type_v, s->heads * s->value, s->n_kv);
  if (!k_bytes || !v_bytes) return none;
  bool covered = true;
  const ggml_graph::OffloadPlan plan{.offload_gpu = offload_gpu, .min_batch = 32};
  Result<uint64_t> bytes = reserve_bytes(c, 1, kGpuTensorAlignment, [&](uint64_t n_tok, uint64_t n_out) {
    Graph full = build(*s, n_tok, n_out);
    covered = covered && set_homes(full, s->layers, homes, device_of_layer, *k_bytes, *v_bytes);
    if (!covered) return Graph();
    Result<Graph> split = ggml_graph::offload_split(full, plan, device);
    return split ? std::move(*split) : Graph();
  });
  if (!covered) return none;
  return replayed(std::move(bytes));
}

}  // namespace memfit::llamacpp::graph
