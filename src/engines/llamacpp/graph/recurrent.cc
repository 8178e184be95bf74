// The prompt and token graphs of the pinned llama.cpp's Mamba-2 models
// (GGUF architecture mamba2) and Granite 4.0 H hybrids (granitehybrid:
// Mamba-2 mixers, attention on the layers with KV heads, a dense FFN in
// every block), built tensor by tensor in the order llama.cpp builds them,
// for the allocator replay (llamacpp/graph/ggml_graph.h). The recurrent state (the conv
// and SSM rows of llama_memory_recurrent) is external, like the KV cache:
// what the graph places are the rows gathered out of it, the convolution
// input, the scan's output and the mixer's activations. The facts behind
// each step: docs/llamacpp-rules.md, "Compute buffers (replayed)".
#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "engines/llamacpp/graph/builders.h"

namespace memfit::llamacpp::graph {

namespace {

using ggml_graph::Dims;
using ggml_graph::Op;
using ggml_graph::Type;

// One sequence's conv or SSM state row (elements): the SSM row is state x
// inner, 2^20 for Mamba-Codestral 7B; below 2^30, [row, n_seq] stays
// below 2^50 elements.
constexpr uint64_t kMaxState = uint64_t{1} << 30;

// Everything one graph reads, already checked.
struct RecurrentShape {
  uint64_t hidden = 0;
  uint64_t vocab = 0;
  uint64_t seqs = 1;     // the ubatch's sequences = the state rows (n_seq_max)
  uint64_t inner = 0;    // d_inner = heads x head_dim
  uint64_t state = 0;    // d_state
  uint64_t groups = 0;   // B/C groups
  uint64_t heads = 0;    // SSM heads
  uint64_t kernel = 0;   // conv kernel width (>= 2)
  // Per layer: attention (granitehybrid's KV layers) or a Mamba-2 mixer.
  std::vector<bool> attention;
  uint64_t ffn = 0;   // granitehybrid's dense FFN width; 0: mamba2, no FFN
  bool rope = true;   // granitehybrid: RoPE on Q and K
  AttentionShape attn;

  uint64_t head_dim() const { return inner / heads; }
  uint64_t conv_dim() const { return inner + 2 * groups * state; }  // conv1d channels [x, B, C]
  uint64_t layers() const { return attention.size(); }
};

struct Inputs {
  int weight = -1;      // every external tensor: weights, the recurrent state, the KV cache
  int copy_main = -1;   // s_copy's first `seqs` entries: the rows this ubatch reads
  int copy_extra = -1;  // the rest (empty when reserving: the state has `seqs` rows)
};

// An op whose result lives in the recurrent state (a copy into it, an
// in-place scale of it): never placed.
int into_state(Graph& g, std::vector<int> src) {
  return g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, std::move(src), "cpy");
}

// build_rs: clears row rs_z of the state in place (external), gathers the
// ubatch's rows with `rows` (a get_rows, or the SSM scan reading them) and
// copies the untouched rows back (none when reserving: a zero-sized
// get_rows, placed and freed). Returns the gathered rows.
template <typename Rows>
int gather_state(Graph& g, const Inputs& in, uint64_t state_size, Rows rows) {
  const int states = g.reshape(in.weight, {1, 1, 1, 1});
  g.expand(into_state(g, {g.view(states, {1, 1, 1, 1}, {4, 4, 4, 4}, 0)}));
  const int out = rows(states);
  g.expand(out);
  const int extra = g.op(Op::kOther, Type::kF32, {state_size, 0, 1, 1}, {states, in.copy_extra}, "get_rows");
  g.expand(into_state(g, {extra, g.view(in.weight, {1, 1, 1, 1}, {4, 4, 4, 4}, 0)}));
  return out;
}

// build_mamba2_layer: [hidden, n_tok] -> [hidden, n_tok], over `seqs`
// sequences of n_tok / seqs tokens each.
int mamba2_layer(Graph& g, const RecurrentShape& s, const Inputs& in, int cur, uint64_t n_tok) {
  const uint64_t ns = s.seqs, nst = n_tok / s.seqs, hd = s.head_dim(), conv_dim = s.conv_dim();
  const uint64_t conv_state = (s.kernel - 1) * conv_dim;
  const int conv_rows = gather_state(g, in, conv_state, [&](int states) {
    return g.op(Op::kOther, Type::kF32, {conv_state, ns, 1, 1}, {states, in.copy_main}, "get_rows");
  });
  const int conv = g.reshape(conv_rows, {s.kernel - 1, conv_dim, ns, 1});

  // in_proj's rows [z, x B C, dt], split by views.
  const uint64_t d_in_proj = 2 * s.inner + 2 * s.groups * s.state + s.heads;
  const int zxbcdt = g.reshape(mul_mat(g, in.weight, cur, d_in_proj), {d_in_proj, nst, ns, 1});
  const Dims& pn = g.at(zxbcdt).nb;
  const int z = g.view(zxbcdt, {hd, s.heads, nst, ns}, {4, 4 * hd, pn[1], pn[2]}, 0);
  const int xbc = g.view(zxbcdt, {conv_dim, nst, ns, 1}, {4, pn[1], pn[2], pn[2] * ns}, 4 * s.inner);
  const int dt = g.view(zxbcdt, {s.heads, nst, ns, 1}, {4, pn[1], pn[2], pn[2] * ns}, 4 * (s.inner + conv_dim));

  // The convolution over the state's last kernel-1 columns and the new
  // tokens; its last kernel-1 columns go back into the state.
  const int conv_x = g.op(Op::kOther, Type::kF32, {s.kernel - 1 + nst, conv_dim, ns, 1}, {conv, g.transpose(xbc)},
                          "concat");
  const Dims& cn = g.at(conv_x).nb;
  const int last = g.view(conv_x, {s.kernel - 1, conv_dim, ns, 1}, {4, cn[1], cn[2], cn[2] * ns}, 4 * nst);
  g.expand(into_state(g, {last, g.view(in.weight, {1, 1, 1, 1}, {4, 4, 4, 4}, 0)}));
  int x_bc = g.op(Op::kOther, Type::kF32, {conv_dim, nst, ns, 1}, {conv_x, in.weight}, "ssm_conv");
  x_bc = g.op(Op::kAdd, Type::kF32, {conv_dim, nst, ns, 1}, {x_bc, in.weight});
  x_bc = g.op(Op::kUnary, Type::kF32, {conv_dim, nst, ns, 1}, {x_bc}, "silu");

  const Dims& xn = g.at(x_bc).nb;
  const int x = g.view(x_bc, {hd, s.heads, nst, ns}, {4, 4 * hd, xn[1], xn[2]}, 0);
  const int b = g.view(x_bc, {s.state, s.groups, nst, ns}, {4, 4 * s.state, xn[1], xn[2]}, 4 * s.inner);
  const int c = g.view(x_bc, {s.state, s.groups, nst, ns}, {4, 4 * s.state, xn[1], xn[2]},
                       4 * (s.inner + s.groups * s.state));
  int dt_b = g.op(Op::kOther, Type::kF32, {s.heads, nst, ns, 1}, {dt}, "cont");
  dt_b = g.op(Op::kAdd, Type::kF32, {s.heads, nst, ns, 1}, {dt_b, in.weight});

  // The scan reads the state rows itself; its output is y [inner, n_tok]
  // then the new states [state x inner, seqs], one flat f32 tensor.
  const uint64_t ssm_state = s.state * s.inner;
  const int y_ssm = gather_state(g, in, ssm_state, [&](int states) {
    const int ssm = g.reshape(states, {1, 1, 1, 1});
    return g.op(Op::kOther, Type::kF32, {s.inner * n_tok + ssm_state * ns, 1, 1, 1},
                {ssm, x, dt_b, in.weight, b, c, in.copy_main}, "ssm_scan");
  });
  const int states_out = g.view(y_ssm, {ssm_state, ns, 1, 1}, {4, 4 * ssm_state, 4 * ssm_state * ns, 4 * ssm_state * ns},
                                4 * s.inner * n_tok);
  g.expand(into_state(g, {states_out, g.view(in.weight, {1, 1, 1, 1}, {4, 4, 4, 4}, 0)}));

  const Dims ne = {hd, s.heads, nst, ns};
  int y = g.view(y_ssm, ne, {4, 4 * hd, 4 * s.inner, 4 * s.inner * nst}, 0);
  y = g.op(Op::kAdd, Type::kF32, ne, {y, g.op(Op::kMul, Type::kF32, ne, {x, in.weight})}, "y_add_d");
  y = g.op(Op::kOther, Type::kF32, ne, {g.op(Op::kOther, Type::kF32, ne, {z}, "cont"), y}, "swiglu");
  // The grouped RMS norm, then out_proj.
  y = rms_norm_mul(g, g.reshape(y, {s.inner / s.groups, s.groups, nst, ns}), in.weight);
  return mul_mat(g, in.weight, g.reshape(y, {s.inner, n_tok, 1, 1}), s.hidden);
}

// A granitehybrid attention layer: Q, K, V, RoPE when the file enables it,
// build_attn over the KV cache.
int attention_layer(Graph& g, const RecurrentShape& s, const AttentionInputs& attn_in, int pos, int x,
                    uint64_t n_tok) {
  const AttentionShape& a = s.attn;
  const int weight = attn_in.weight;
  int q = g.reshape(mul_mat(g, weight, x, a.heads * a.head_dim), {a.head_dim, a.heads, n_tok, 1});
  int k = g.reshape(mul_mat(g, weight, x, a.kv_heads * a.head_dim), {a.head_dim, a.kv_heads, n_tok, 1});
  const int v = g.reshape(mul_mat(g, weight, x, a.kv_heads * a.head_dim), {a.head_dim, a.kv_heads, n_tok, 1});
  if (s.rope) {
    q = g.op(Op::kRope, Type::kF32, g.at(q).ne, {q, pos}, "Qcur");
    k = g.op(Op::kRope, Type::kF32, g.at(k).ne, {k, pos}, "Kcur");
  }
  return attention(g, a, attn_in, q, k, v, n_tok);
}

// More than the tensors build() makes: about 75 a mixer layer, 45 an
// attention layer, the inputs and the output.
uint64_t tensor_bound(const RecurrentShape& s) { return 64 + s.layers() * 96; }

// The graph of one ubatch of n_tok tokens (a multiple of the sequences)
// keeping n_out output rows.
Graph build(const RecurrentShape& s, uint64_t n_tok, uint64_t n_out) {
  const bool hybrid = s.ffn > 0;
  Graph g;
  g.reserve(tensor_bound(s));
  Inputs in;
  in.weight = g.external();
  int inp = token_embeddings(g, in.weight, s.hidden, n_tok);
  // build_rs_inp: s_copy, one state row index per cell, seqs cells.
  const int s_copy = g.input(Type::kI32, {s.seqs, 1, 1, 1}, "s_copy");
  in.copy_main = g.view(s_copy, {s.seqs, 1, 1, 1}, {4, 4 * s.seqs, 4 * s.seqs, 4 * s.seqs}, 0);
  in.copy_extra = g.view(s_copy, {0, 1, 1, 1}, {4, 0, 0, 0}, 4 * s.seqs);
  AttentionInputs attn_in;
  if (hybrid) attn_in = attention_inputs(g, s.attn, n_tok, in.weight);
  const int out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");
  const int pos = hybrid && s.rope ? g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_pos") : -1;

  for (uint64_t il = 0; il < s.layers(); ++il) {
    int residual = inp;
    const int x = rms_norm_mul(g, inp, in.weight);
    int cur = s.attention[il] ? attention_layer(g, s, attn_in, pos, x, n_tok) : mamba2_layer(g, s, in, x, n_tok);
    uint64_t rows = n_tok;
    if (il + 1 == s.layers()) rows = keep_output_rows(g, out_ids, s.hidden, n_out, cur, residual);
    cur = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {cur, residual}, hybrid ? "ffn_inp" : "l_out");
    if (hybrid) {  // build_ffn, SiLU-gated in parallel
      const int y = rms_norm_mul(g, cur, in.weight);
      const int gate = mul_mat(g, in.weight, y, s.ffn);
      const int up = mul_mat(g, in.weight, y, s.ffn);
      const int glu = g.op(Op::kOther, Type::kF32, g.at(gate).ne, {gate, up}, "ffn_swiglu");
      cur = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {mul_mat(g, in.weight, glu, s.hidden), cur}, "l_out");
    }
    inp = cur;
  }
  logits_output(g, in.weight, inp, s.vocab);
  return g;
}

}  // namespace

Result<std::optional<uint64_t>> replay_recurrent(const ModelSpec& spec, const FileFacts& facts,
                                                 const LlamaCppContext& c,
                                                 const LlamaCppSettings& settings) {
  const std::optional<uint64_t> none;
  // GGUF general.architecture (mamba2 is config.json's model_type too;
  // a granitemoehybrid config does not say whether the file llama.cpp
  // converts from it keeps RoPE, so only the file is covered).
  const std::string_view arch = spec.model_type;
  const bool hybrid = arch == "granitehybrid";
  if (arch != "mamba2" && !hybrid) return none;
  if (spec.layers.empty() || spec.layers.size() > kMaxLayers || spec.nextn_layers > 0) return none;
  RecurrentShape s;
  const ModelGeometry& geo = spec.geometry;
  const Mamba2Geometry& m = spec.mamba2;
  s.hidden = geo.hidden;
  s.vocab = geo.vocab;
  s.seqs = std::max<uint64_t>(c.n_seq, 1);
  s.inner = m.inner;
  s.state = m.state;
  s.groups = m.groups;
  s.heads = m.heads;
  s.kernel = m.kernel;
  s.rope = facts.attention_rope;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kFullAttention && hybrid) {
      s.attention.push_back(true);
    } else if (l.kind == LayerKind::kSsm) {
      s.attention.push_back(false);
    } else {
      return none;
    }
  }
  if (hybrid) {
    if (!covers_cache_types(c, settings) || spec.moe.experts > 0) return none;
    s.ffn = geo.intermediate;
    s.attn = attention_shape(geo, c, settings);
    const AttentionShape& a = s.attn;
    for (uint64_t v : {a.hidden, a.heads, a.kv_heads, a.head_dim, a.n_kv, a.heads * a.head_dim,
                       a.kv_heads * a.head_dim, s.ffn}) {
      if (v == 0 || v >= kMaxFactor) return none;
    }
  }

  // Every factor nonzero and below kMaxFactor, then the products the
  // graph forms (each of two checked factors: no overflow): the conv
  // channels below kMaxFactor, a sequence's state rows below kMaxState;
  // the head and group splits exact.
  for (uint64_t v : {s.hidden, s.seqs, s.inner, s.state, s.groups, s.heads, s.kernel}) {
    if (v == 0 || v >= kMaxFactor) return none;
  }
  if (s.groups * s.state >= kMaxFactor || s.conv_dim() >= kMaxFactor ||
      (s.kernel - 1) * s.conv_dim() >= kMaxState || s.state * s.inner >= kMaxState) {
    return none;
  }
  if (s.kernel < 2 || s.inner % s.heads != 0 || s.inner % s.groups != 0 || s.vocab == 0 ||
      s.vocab >= kMaxVocab || tensor_bound(s) > kMaxTensors) {
    return none;
  }
  return replayed(reserve_bytes(c, s.seqs, [&](uint64_t n_tok, uint64_t n_out) { return build(s, n_tok, n_out); }));
}

}  // namespace memfit::llamacpp::graph
