// The prompt and token graphs of the pinned llama.cpp's deepseek2 models
// run with MLA (DeepSeek V2/V3 and Kimi K2 as llama.cpp converts them),
// built tensor by tensor in the order llama.cpp builds them, for the
// allocator replay (llamacpp/graph/ggml_graph.h). llama.cpp runs MLA absorbed: one cache
// row per token holds the normalized latent and the roped key part
// (kv_lora_rank + rope wide, a K-only cache), Q's no-rope part is absorbed
// through wk_b, attention is multi-query over the latent, and wv_b
// decompresses its output per head. The NextN blocks are not in the graph
// (llama.cpp builds them only in a separate MTP graph). The facts behind
// each step: docs/llamacpp-rules.md, "Compute buffers (replayed)".
#include <algorithm>
#include <optional>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/mla_shape.h"
#include "engines/llamacpp/parts.h"

namespace memfit::llamacpp::graph {

namespace {

using ggml_graph::Dims;
using ggml_graph::Op;
using ggml_graph::Type;

// The shape of one graph: everything the builder reads, already checked;
// the geometry shared with the legacy graph (llamacpp/graph/mla_shape.h).
struct AbsorbedShape : MlaShape {
  uint64_t streams = 1;
  bool flash_attn = true;
  Type cache = Type::kF16;    // the K cache's element width (f16, bf16: 2 bytes; f32)
};

struct Inputs {
  int weight = -1;  // every external tensor: weights and the cache
  int pos = -1;
  int out_ids = -1;
  AttentionInputs attn;
};

// build_attn over the K-only cache with v_mla = wv_b, from Q [latent +
// rope, heads, n] and K [latent + rope, 1, n] to wo's output [hidden, n].
int mla_attention(Graph& g, const AbsorbedShape& s, const Inputs& in, int q, int k, int v, uint64_t n) {
  g.expand(q);
  g.expand(v);
  g.expand(k);
  const uint64_t ns = s.streams;
  const uint64_t row = s.latent + s.rope;
  // cpy_k: a 2-D view of K stored by set_rows (into the cache reshaped to
  // one stream when there are several).
  const int cache = in.weight;
  const int target = ns > 1 ? g.reshape(cache, {1, 1, 1, 1}) : cache;
  const int k2 = g.view(k, {row, n, 1, 1}, {4, 4 * row, 4 * row * n, 4 * row * n}, 0);
  g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, {k2, in.attn.k_idxs, target}, "set_rows"));

  // build_attn_mha: Q split into streams and permuted; K the cache, V its
  // first `latent` columns (views of the external cache).
  const ggml_graph::Tensor& qt = g.at(q);
  const uint64_t rows = n / ns;
  const auto q_perm = [&]() {
    const int q4 = g.view(q, {qt.ne[0], qt.ne[1], rows, ns}, {qt.nb[0], qt.nb[1], qt.nb[2], qt.nb[3] / ns}, 0);
    return g.permute(q4, 0, 2, 1, 3);
  };
  int cur = -1;
  if (s.flash_attn) {
    const int qp = q_perm();
    const int kview = g.reshape(cache, {1, 1, 1, 1});
    const int kp = g.permute(kview, 0, 2, 1, 3);
    const int vp = g.permute(g.reshape(kview, {1, 1, 1, 1}), 0, 2, 1, 3);
    const int fa = g.op(Op::kOther, Type::kF32, {s.latent, s.heads, rows, ns}, {qp, kp, vp, in.attn.mask},
                        "flash_attn_ext");
    const int up = mul_mat(g, in.weight, g.permute(fa, 0, 2, 1, 3), s.value);  // [value, rows, heads, ns]
    cur = g.op(Op::kOther, Type::kF32, {s.value, s.heads, rows, ns}, {g.permute(up, 0, 2, 1, 3)}, "cont");
    cur = g.reshape(cur, {s.value * s.heads, n, 1, 1});
  } else {
    // V transposed out of the cache into a contiguous copy.
    const int kview = g.reshape(cache, {1, 1, 1, 1});
    const int vt = g.transpose(g.permute(g.reshape(kview, {1, 1, 1, 1}), 0, 2, 1, 3));
    const int v_cont = g.op(Op::kOther, s.cache, {s.n_kv, s.latent, 1, ns}, {vt}, "v_cont");
    const int kp = g.permute(kview, 0, 2, 1, 3);
    const int qp = q_perm();
    const int kq = g.op(Op::kOther, Type::kF32, {s.n_kv, rows, s.heads, ns}, {kp, qp}, "kq");
    const int soft = g.op(Op::kSoftMax, Type::kF32, {s.n_kv, rows, s.heads, ns}, {kq, in.attn.mask},
                          "kq_soft_max");
    const int kqv = g.op(Op::kOther, Type::kF32, {s.latent, rows, s.heads, ns}, {v_cont, soft}, "kqv");
    const int kqv_mla = mul_mat(g, in.weight, kqv, s.value);  // [value, rows, heads, ns]
    cur = g.op(Op::kOther, Type::kF32, {s.value * s.heads, n, 1, 1}, {g.permute(kqv_mla, 0, 2, 1, 3)},
               "kqv_out");
  }
  g.expand(cur);
  return mul_mat(g, in.weight, cur, s.hidden);
}

// The graph of one ubatch of n_tok tokens (a multiple of the streams)
// keeping n_out output rows.

Graph build(const AbsorbedShape& s, uint64_t n_tok, uint64_t n_out) {
  Graph g;
  g.reserve(mla_tensor_bound(s));
  Inputs in;
  in.weight = g.external();
  int inp = token_embeddings(g, in.weight, s.hidden, n_tok);
  in.pos = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_pos");
  // The K-only cache's inputs: its row indices and the mask (the V
  // indices attention_inputs makes are never read, so never listed).
  AttentionShape a;
  a.heads = s.heads;
  a.kv_heads = 1;
  a.head_dim = s.latent + s.rope;
  a.n_kv = s.n_kv;
  a.streams = s.streams;
  a.flash_attn = s.flash_attn;
  a.v_trans = !s.flash_attn;
  in.attn = attention_inputs(g, a, n_tok, in.weight);
  in.out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");

  const uint64_t qk = s.nope + s.rope;
  for (uint64_t il = 0; il < s.layers; ++il) {
    int residual = inp;
    const int x = rms_norm_mul(g, inp, in.weight);
    int q = -1;
    if (s.q_lora > 0) {
      q = rms_norm_mul(g, mul_mat(g, in.weight, x, s.q_lora), in.weight);
      q = mul_mat(g, in.weight, q, s.heads * qk);
    } else {
      q = mul_mat(g, in.weight, x, s.heads * qk);
    }
    q = g.reshape(q, {qk, s.heads, n_tok, 1});
    const Dims qnb = g.at(q).nb;
    const uint64_t row = s.latent + s.rope;
    const int kv_pe = mul_mat(g, in.weight, x, row);
    const Dims kv_nb = {4, 4 * row, 4 * row * n_tok, 4 * row * n_tok};
    const int kv = g.view(kv_pe, {s.latent, n_tok, 1, 1}, kv_nb, 0);
    int k_pe = g.view(kv_pe, {s.rope, 1, n_tok, 1}, {4, 4 * row, 4 * row, 4 * row * n_tok}, 4 * s.latent);
    k_pe = g.op(Op::kRope, Type::kF32, {s.rope, 1, n_tok, 1}, {k_pe, in.pos}, "k_pe");
    const int kv_norm = rms_norm_mul(g, kv, in.weight);
    const int q_nope = g.view(q, {s.nope, s.heads, n_tok, 1}, qnb, 0);
    int q_pe = g.view(q, {s.rope, s.heads, n_tok, 1}, qnb, 4 * s.nope);
    q_pe = g.op(Op::kRope, Type::kF32, {s.rope, s.heads, n_tok, 1}, {q_pe, in.pos}, "q_pe");
    const int absorbed = mul_mat(g, in.weight, g.permute(q_nope, 0, 2, 1, 3), s.latent);  // [latent, n, heads]
    const int qcur = g.op(Op::kOther, Type::kF32, {row, s.heads, n_tok, 1},
                          {g.permute(absorbed, 0, 2, 1, 3), q_pe}, "Qcur");
    const int vcur = g.reshape(kv_norm, {s.latent, 1, n_tok, 1});
    const int kcur = g.op(Op::kOther, Type::kF32, {row, 1, n_tok, 1}, {vcur, k_pe}, "Kcur");
    int cur = mla_attention(g, s, in, qcur, kcur, vcur, n_tok);
    uint64_t rows = n_tok;
    if (il + 1 == s.layers) rows = keep_output_rows(g, in.out_ids, s.hidden, n_out, cur, residual);
    const int ffn_inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {cur, residual}, "ffn_inp");
    const int y = rms_norm_mul(g, ffn_inp, in.weight);
    int ffn_out = -1;
    if (il < s.dense_layers) {
      ffn_out = swiglu_ffn(g, in.weight, y, s.ffn, s.hidden);
    } else {
      // build_moe_ffn as deepseek2 calls it (no expert groups).
      const int routed = moe_ffn(g, s.moe, in.weight, y, rows);
      const int shared = swiglu_ffn(g, in.weight, y, s.shared_ffn, s.hidden);
      ffn_out = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {routed, shared}, "ffn_out");
    }
    inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {ffn_out, ffn_inp}, "l_out");
  }
  logits_output(g, in.weight, inp, s.vocab);
  return g;
}

}  // namespace

Result<std::optional<uint64_t>> replay_mla(const ModelSpec& spec, const FileFacts& facts,
                                           const LlamaCppContext& c, const LlamaCppSettings& settings) {
  const std::optional<uint64_t> none;
  const MlaGraph& m = facts.mla;
  if (spec.model_type != "deepseek2" || m.latent == 0 || m.other_graph) return none;
  if (spec.layers.empty() || spec.layers.size() > kMaxLayers) return none;
  // This graph is #19067's K-only cache; a build before it keeps a V
  // tensor (stored by v_idxs, read transposed without a copy): the phases
  // price it.
  if (mla_caches_v(settings)) return none;
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kMlaLatent || l.elems_per_token != m.latent + m.rope) return none;
  }
  // Flash attention casts an f32 cache to f16 first (a copy this graph
  // does not hold); without it V is copied out of the cache, which a
  // quantized cache cannot be.
  const GgmlType k_type = settings.cache_type_k;
  const bool k_quantized = ggml_type_traits(k_type).block_elements > 1;
  if ((c.flash_attn && k_type == GgmlType::kF32) || (!c.flash_attn && k_quantized)) return none;
  if (!c.flash_attn && k_type != GgmlType::kF32 && k_type != GgmlType::kF16 && k_type != GgmlType::kBF16) {
    return none;
  }
  // Expert groups and the other gating functions add nodes not built here.
  if (m.expert_groups > 1 || (m.gating != 1 && m.gating != 2)) return none;

  const MlaGeometry widths{.q_lora_rank = m.q_lora_rank,
                           .kv_lora_rank = m.latent,
                           .qk_nope = m.nope,
                           .qk_rope = m.rope,
                           .v_head = m.value,
                           .leading_dense = m.dense_layers};
  AbsorbedShape s{mla_shape(spec, widths, c)};
  s.moe.sigmoid = m.gating == 2;
  s.moe.selection_bias = m.selection_bias;
  s.moe.weights_norm = m.weights_norm;
  s.moe.weights_scaled = m.weights_scaled;
  s.streams = std::max<uint64_t>(c.streams, 1);
  s.flash_attn = c.flash_attn;
  s.cache = k_type == GgmlType::kF32 ? Type::kF32 : Type::kF16;
  if (!mla_shape_in_bounds(s)) return none;
  return replayed(reserve_bytes(c, [&](uint64_t n_tok, uint64_t n_out) { return build(s, n_tok, n_out); }));
}

}  // namespace memfit::llamacpp::graph
