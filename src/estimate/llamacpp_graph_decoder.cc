// The prompt and token graphs of the pinned llama.cpp's decoder-only
// transformers with one full-attention KV cache (llama, Mistral and
// Mixtral as llama.cpp converts them, qwen3, qwen3moe), built tensor by
// tensor in the order llama.cpp builds them, for the allocator replay
// (ggml_graph.h). The facts behind each step: docs/llamacpp-rules.md,
// "Compute buffers (replayed)".
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "estimate/ggml_graph.h"
#include "estimate/llamacpp_parts.h"
#include "memfit/checked_math.h"
#include "memfit/ggml_types.h"

namespace memfit::llamacpp {

namespace {

using ggml_graph::Dims;
using ggml_graph::Graph;
using ggml_graph::Op;
using ggml_graph::Type;

// The shape of one graph: everything the builder reads, already checked.
struct DecoderShape {
  bool qk_norm = false;      // qwen3: RMS norms on Q and K before RoPE
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  uint64_t ffn = 0;          // dense FFN width
  uint64_t experts = 0;      // 0: dense
  uint64_t used = 0;         // experts per token
  uint64_t expert_ffn = 0;   // one expert's width
  uint64_t vocab = 0;
  uint64_t n_kv = 0;         // KV cells per stream
  uint64_t streams = 1;
  bool flash_attn = true;
  uint64_t k_rot = 0;        // Hadamard size of the K rotation; 0 = none
  uint64_t v_rot = 0;        // of the V rotation
};

constexpr uint64_t kMaxLayers = 1024;  // bounds the graph's tensors

// mul_mat(a, b) where a is a weight of `rows` outputs: [rows, b.ne1..3].
int mul_mat(Graph& g, int w, int b, uint64_t rows) {
  const Dims& ne = g.at(b).ne;
  return g.op(Op::kOther, Type::kF32, {rows, ne[1], ne[2], ne[3]}, {w, b});
}

int rms_norm_mul(Graph& g, int x, int w) {
  const int norm = g.op(Op::kRmsNorm, Type::kF32, g.at(x).ne, {x}, "norm");
  return g.op(Op::kMul, Type::kF32, g.at(x).ne, {norm, w});
}

uint64_t elements(const Graph& g, int t) {
  const Dims& ne = g.at(t).ne;
  return ne[0] * ne[1] * ne[2] * ne[3];
}

bool contiguous(const Graph& g, int t) {
  const ggml_graph::Tensor& x = g.at(t);
  uint64_t stride = x.nb[0];
  for (size_t i = 0; i < 4; ++i) {
    if (x.ne[i] != 1 && x.nb[i] != stride) return false;
    stride *= x.ne[i];
  }
  return true;
}

// llama_mul_mat_hadamard: rows of `n` rotated by an n x n input.
int hadamard(Graph& g, int cur, int rot, uint64_t n) {
  const Dims ne = g.at(cur).ne;
  const uint64_t rows = elements(g, cur) / n;
  const int flat = contiguous(g, cur)
                       ? g.reshape(cur, {n, rows, 1, 1})
                       : g.op(Op::kOther, Type::kF32, {n, rows, 1, 1}, {cur}, "cont");
  const int rotated = mul_mat(g, rot, flat, n);
  return g.reshape(rotated, ne);
}

struct Inputs {
  int weight = -1;  // every external tensor: weights and the KV cache
  int pos = -1;
  int k_idxs = -1;
  int v_idxs = -1;
  int mask = -1;
  int k_rot = -1;
  int v_rot = -1;
  int out_ids = -1;
};

// build_attn with a KV cache, from the roped Q, K and V [head_dim, heads,
// n_tok] to the attention output projected back to [hidden, n_tok].
int attention(Graph& g, const DecoderShape& s, const Inputs& in, int q, int k, int v,
              uint64_t n_tok) {
  const uint64_t ns = s.streams;
  if (s.k_rot > 0) {
    q = hadamard(g, q, in.k_rot, s.k_rot);
    k = hadamard(g, k, in.k_rot, s.k_rot);
  }
  if (s.v_rot > 0) v = hadamard(g, v, in.v_rot, s.v_rot);
  g.expand(q);
  g.expand(v);
  g.expand(k);

  const uint64_t kv_width = s.kv_heads * s.head_dim;
  // cpy_k: a 2-D view of K stored by set_rows into the cache.
  {
    const int k2 = g.view(k, {kv_width, n_tok, 1, 1}, {4, 4 * kv_width, 4 * kv_width * n_tok,
                                                         4 * kv_width * n_tok}, 0);
    const int cache = ns > 1 ? g.reshape(in.weight, {1, 1, 1, 1}) : in.weight;
    g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, {k2, in.k_idxs, cache}, "set_rows"));
  }
  // cpy_v: the same with flash attention; without, V is stored transposed
  // one element a row.
  if (s.flash_attn) {
    const int v2 = g.view(v, {kv_width, n_tok, 1, 1}, {4, 4 * kv_width, 4 * kv_width * n_tok,
                                                        4 * kv_width * n_tok}, 0);
    const int cache = ns > 1 ? g.reshape(in.weight, {1, 1, 1, 1}) : in.weight;
    g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, {v2, in.v_idxs, cache}, "set_rows"));
  } else {
    const int v2 = g.reshape(v, {kv_width, n_tok, 1, 1});
    const int v1 = g.reshape(v2, {1, kv_width * n_tok, 1, 1});
    const int cache = g.reshape(in.weight, {1, 1, 1, 1});
    g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, {v1, in.v_idxs, cache}, "set_rows"));
  }

  // build_attn_mha: Q split into streams and permuted; K and V are views
  // of the cache (external).
  const ggml_graph::Tensor& qt = g.at(q);
  const int q4 = g.view(q, {qt.ne[0], qt.ne[1], qt.ne[2] / ns, ns},
                        {qt.nb[0], qt.nb[1], qt.nb[2], qt.nb[3] / ns}, 0);
  const int qp = g.permute(q4, 0, 2, 1, 3);
  const int kp = g.permute(g.reshape(in.weight, {1, 1, 1, 1}), 0, 2, 1, 3);
  const int vp = g.permute(g.reshape(in.weight, {1, 1, 1, 1}), 0, 2, 1, 3);
  const uint64_t rows = n_tok / ns;
  int cur = -1;
  if (s.flash_attn) {
    const int fa = g.op(Op::kOther, Type::kF32, {s.head_dim, s.heads, rows, ns}, {qp, kp, vp, in.mask},
                        "flash_attn_ext");
    cur = g.reshape(fa, {s.head_dim * s.heads, n_tok, 1, 1});
  } else {
    const int kq = g.op(Op::kOther, Type::kF32, {s.n_kv, rows, s.heads, ns}, {kp, qp}, "kq");
    const int soft = g.op(Op::kSoftMax, Type::kF32, {s.n_kv, rows, s.heads, ns}, {kq, in.mask},
                          "kq_soft_max");
    const int kqv = g.op(Op::kOther, Type::kF32, {s.head_dim, rows, s.heads, ns}, {vp, soft}, "kqv");
    const int perm = g.permute(kqv, 0, 2, 1, 3);
    cur = g.op(Op::kOther, Type::kF32, {s.head_dim * s.heads, n_tok, 1, 1}, {perm}, "kqv_out");
  }
  g.expand(cur);
  if (s.v_rot > 0) cur = hadamard(g, cur, in.v_rot, s.v_rot);
  return mul_mat(g, in.weight, cur, s.hidden);
}

// build_moe_ffn with softmax gating and normalized weights (llama's and
// qwen3moe's): [hidden, n] -> [hidden, n].
int moe(Graph& g, const DecoderShape& s, const Inputs& in, int cur, uint64_t n) {
  const int logits = mul_mat(g, in.weight, cur, s.experts);
  const int probs = g.op(Op::kSoftMax, Type::kF32, {s.experts, n, 1, 1}, {logits}, "ffn_moe_probs");
  const int argsort = g.op(Op::kOther, Type::kI32, {s.experts, n, 1, 1}, {probs}, "ffn_moe_argsort");
  const ggml_graph::Tensor& at = g.at(argsort);
  const int selected = g.view(argsort, {s.used, n, 1, 1}, {at.nb[0], at.nb[1], at.nb[2], at.nb[3]}, 0);
  const int probs3 = g.reshape(probs, {1, s.experts, n, 1});
  int weights = g.op(Op::kOther, Type::kF32, {1, s.used, n, 1}, {probs3, selected}, "ffn_moe_weights");
  weights = g.reshape(weights, {s.used, n, 1, 1});
  int sum = g.op(Op::kOther, Type::kF32, {1, n, 1, 1}, {weights}, "ffn_moe_weights_sum");
  sum = g.op(Op::kClamp, Type::kF32, {1, n, 1, 1}, {sum});
  weights = g.op(Op::kDiv, Type::kF32, {s.used, n, 1, 1}, {weights, sum}, "ffn_moe_weights_norm");
  weights = g.reshape(weights, {1, s.used, n, 1});
  g.expand(weights);

  const int x = g.reshape(cur, {s.hidden, 1, n, 1});
  const int up = g.op(Op::kOther, Type::kF32, {s.expert_ffn, s.used, n, 1}, {in.weight, x, selected},
                      "ffn_moe_up");
  const int gate = g.op(Op::kOther, Type::kF32, {s.expert_ffn, s.used, n, 1}, {in.weight, x, selected},
                        "ffn_moe_gate");
  const int glu = g.op(Op::kOther, Type::kF32, {s.expert_ffn, s.used, n, 1}, {gate, up}, "ffn_moe_swiglu");
  int experts = g.op(Op::kOther, Type::kF32, {s.hidden, s.used, n, 1}, {in.weight, glu, selected},
                     "ffn_moe_down");
  experts = g.op(Op::kMul, Type::kF32, {s.hidden, s.used, n, 1}, {experts, weights}, "ffn_moe_weighted");
  g.expand(experts);
  const ggml_graph::Tensor& et = g.at(experts);
  std::vector<int> views;
  for (uint64_t i = 0; i < s.used; ++i) {
    views.push_back(g.view(experts, {s.hidden, n, 1, 1}, {et.nb[0], et.nb[2], et.nb[2] * n, et.nb[2] * n},
                           i * et.nb[1]));
    g.expand(views.back());
  }
  int out = views[0];
  for (size_t i = 1; i < views.size(); ++i) {
    out = g.op(Op::kAdd, Type::kF32, {s.hidden, n, 1, 1}, {out, views[i]}, "ffn_moe_out");
    g.expand(out);
  }
  if (views.size() == 1) out = g.op(Op::kOther, Type::kF32, {s.hidden, n, 1, 1}, {out}, "cont");
  return out;
}

// build_ffn, SiLU-gated in parallel: [hidden, n] -> [hidden, n].
int dense_ffn(Graph& g, const DecoderShape& s, const Inputs& in, int cur) {
  const int up = mul_mat(g, in.weight, cur, s.ffn);
  const int gate = mul_mat(g, in.weight, cur, s.ffn);
  const int glu = g.op(Op::kOther, Type::kF32, g.at(gate).ne, {gate, up}, "ffn_swiglu");
  return mul_mat(g, in.weight, glu, s.hidden);
}

// The graph of one ubatch of n_tok tokens (n_tok a multiple of the
// streams) keeping n_out output rows.
Graph build(const DecoderShape& s, uint64_t n_tok, uint64_t n_out) {
  Graph g;
  Inputs in;
  in.weight = g.external();
  const int tokens = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_tokens");
  const int embd_in = g.input(Type::kF32, {s.hidden, n_tok, 1, 1}, "inp_embd");
  int inp = g.op(Op::kOther, Type::kF32, {s.hidden, n_tok, 1, 1}, {in.weight, tokens}, "embd");
  g.expand(inp);
  g.expand(embd_in);
  in.pos = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_pos");
  in.k_idxs = g.input(Type::kI64, {n_tok, 1, 1, 1}, "k_idxs");
  in.v_idxs = g.input(Type::kI64, {s.flash_attn ? n_tok : n_tok * s.kv_heads * s.head_dim, 1, 1, 1},
                      "v_idxs");
  in.mask = g.input(s.flash_attn ? Type::kF16 : Type::kF32, {s.n_kv, n_tok / s.streams, 1, s.streams},
                    "attn_inp_kq_mask");
  if (s.k_rot > 0) in.k_rot = g.input(Type::kF32, {s.k_rot, s.k_rot, 1, 1}, "attn_inp_k_rot");
  if (s.v_rot > 0) in.v_rot = g.input(Type::kF32, {s.v_rot, s.v_rot, 1, 1}, "attn_inp_v_rot");
  in.out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");

  const uint64_t q_width = s.heads * s.head_dim;
  const uint64_t kv_width = s.kv_heads * s.head_dim;
  for (uint64_t il = 0; il < s.layers; ++il) {
    int residual = inp;
    const int x = rms_norm_mul(g, inp, in.weight);
    int q = g.reshape(mul_mat(g, in.weight, x, q_width), {s.head_dim, s.heads, n_tok, 1});
    int k = g.reshape(mul_mat(g, in.weight, x, kv_width), {s.head_dim, s.kv_heads, n_tok, 1});
    const int v = g.reshape(mul_mat(g, in.weight, x, kv_width), {s.head_dim, s.kv_heads, n_tok, 1});
    if (s.qk_norm) q = rms_norm_mul(g, q, in.weight);
    q = g.op(Op::kRope, Type::kF32, g.at(q).ne, {q, in.pos}, "Qcur");
    if (s.qk_norm) k = rms_norm_mul(g, k, in.weight);
    k = g.op(Op::kRope, Type::kF32, g.at(k).ne, {k, in.pos}, "Kcur");
    int cur = attention(g, s, in, q, k, v, n_tok);
    uint64_t rows = n_tok;
    if (il + 1 == s.layers) {
      cur = g.op(Op::kOther, Type::kF32, {s.hidden, n_out, 1, 1}, {cur, in.out_ids}, "get_rows");
      residual = g.op(Op::kOther, Type::kF32, {s.hidden, n_out, 1, 1}, {residual, in.out_ids}, "get_rows");
      rows = n_out;
    }
    const int ffn_inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {cur, residual}, "ffn_inp");
    const int y = rms_norm_mul(g, ffn_inp, in.weight);
    const int ffn_out = s.experts > 0 ? moe(g, s, in, y, rows) : dense_ffn(g, s, in, y);
    inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {ffn_out, ffn_inp}, "l_out");
  }
  const int result_norm = rms_norm_mul(g, inp, in.weight);
  const int logits = mul_mat(g, in.weight, result_norm, s.vocab);
  g.set_output(result_norm);
  g.set_output(logits);
  g.expand(logits);
  return g;
}

// The Hadamard size llama.cpp rotates a quantized K by: the largest power
// of two from 64 up that divides the head; 0 when none is rotated.
uint64_t k_rotation(GgmlType type, uint64_t head_dim) {
  if (ggml_type_traits(type).block_elements <= 1 || head_dim % 64 != 0) return 0;
  uint64_t n = 64;
  while (head_dim % (n * 2) == 0) n *= 2;
  return n;
}

bool known_architecture(std::string_view model_type, bool* qk_norm) {
  // GGUF general.architecture or config.json model_type.
  if (model_type == "llama" || model_type == "mistral" || model_type == "mixtral") {
    *qk_norm = false;
    return true;
  }
  if (model_type == "qwen3" || model_type == "qwen3moe" || model_type == "qwen3_moe") {
    *qk_norm = true;
    return true;
  }
  return false;
}

}  // namespace

Result<std::optional<uint64_t>> replayed_compute_bytes(const ModelSpec& spec, const LlamaCppContext& c,
                                                       const LlamaCppSettings& settings) {
  DecoderShape s;
  if (!known_architecture(spec.model_type, &s.qk_norm)) return std::optional<uint64_t>();
  if (spec.layers.empty() || spec.layers.size() > kMaxLayers || spec.nextn_layers > 0) {
    return std::optional<uint64_t>();
  }
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kFullAttention) return std::optional<uint64_t>();
  }
  const ModelGeometry& geo = spec.geometry;
  if (spec.moe.shared_experts > 0 || geo.heads == 0 || geo.kv_heads == 0 || geo.head_dim == 0 ||
      geo.hidden == 0 || geo.vocab == 0) {
    return std::optional<uint64_t>();
  }
  // Flash attention casts an f32 cache to f16 first (a copy this graph
  // does not model); without it a quantized V cannot run.
  const bool fa = c.flash_attn;
  const bool f32_cache = settings.cache_type_k == GgmlType::kF32 || settings.cache_type_v == GgmlType::kF32;
  const bool v_quantized = ggml_type_traits(settings.cache_type_v).block_elements > 1;
  if ((fa && f32_cache) || (!fa && v_quantized)) return std::optional<uint64_t>();

  s.layers = spec.layers.size();
  s.hidden = geo.hidden;
  s.heads = geo.heads;
  s.kv_heads = geo.kv_heads;
  s.head_dim = geo.head_dim;
  s.ffn = geo.intermediate;
  s.vocab = geo.vocab;
  if (spec.moe.experts > 0) {
    s.experts = spec.moe.experts;
    s.used = std::max<uint64_t>(spec.moe.experts_per_token, 1);
    s.expert_ffn = spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : geo.intermediate;
    if (s.used > s.experts) return std::optional<uint64_t>();
  } else if (s.ffn == 0) {
    return std::optional<uint64_t>();
  }
  s.n_kv = c.n_ctx_seq;
  s.streams = std::max<uint64_t>(c.streams, 1);
  s.flash_attn = fa;
  s.k_rot = k_rotation(settings.cache_type_k, s.head_dim);
  s.v_rot = ggml_type_traits(settings.cache_type_v).block_elements > 1 && s.head_dim % 64 == 0 ? 64 : 0;

  // Every product the graph forms stays far below 2^64 when each factor is
  // below 2^20 (tokens, widths, cells) and the vocabulary below 2^24: the
  // largest, the scores 4 x n_kv x n_tok x heads, is under 2^62.
  const uint64_t n_out = std::min(c.n_ctx, c.n_ubatch);
  const CheckedBytes n_tok_checked = round_up(n_out, s.streams);
  constexpr uint64_t kSmall = uint64_t{1} << 20;
  for (uint64_t v : {s.hidden, s.heads, s.kv_heads, s.head_dim, s.ffn, s.experts,
                     s.expert_ffn, s.n_kv, s.streams, n_out}) {
    if (v >= kSmall) return std::optional<uint64_t>();
  }
  if (!n_tok_checked.value() || *n_tok_checked.value() >= kSmall || s.vocab >= (uint64_t{1} << 24) ||
      s.heads * s.head_dim >= kSmall || s.kv_heads * s.head_dim >= kSmall ||
      s.used * s.expert_ffn >= kSmall) {
    return std::optional<uint64_t>();
  }
  const uint64_t n_tok = *n_tok_checked.value();

  // llama.cpp reserves the prompt graph, the one-token-per-sequence graph
  // and the prompt graph again; the buffer is the largest.
  uint64_t best = 0;
  const uint64_t tg_tok = c.n_seq;
  for (auto [tok, out] : {std::pair{n_tok, n_out}, std::pair{tg_tok, tg_tok}}) {
    if (tok % s.streams != 0) continue;
    Result<uint64_t> bytes = ggml_graph::replay_allocation(build(s, tok, out), kCpuTensorAlignment);
    if (!bytes) return bytes.error();
    best = std::max(best, *bytes);
  }
  return std::optional<uint64_t>(best);
}

}  // namespace memfit::llamacpp
