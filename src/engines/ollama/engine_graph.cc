// The own engine's reserved graph (engine_graph.h), tensor by tensor in the
// order ggml_build_forward_expand lists model/models/qwen3/model.go's
// Forward at v0.24.0, replayed by memfit's ggml-alloc model. The pieces it
// shares with llama.cpp's qwen3 graph (matrix products, RMS norms, the
// routed experts) are llamacpp/graph's builders.
#include "engines/ollama/engine_graph.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/ggml_graph.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::ollama {
namespace {

using ggml_graph::Graph;
using ggml_graph::Op;
using ggml_graph::Type;
namespace lg = llamacpp::graph;

// What one graph reads from the model, checked below the builders' bounds.
struct Qwen3Shape {
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  uint64_t ffn = 0;         // dense FFN width
  uint64_t experts = 0;     // 0: dense
  uint64_t used = 0;
  uint64_t expert_ffn = 0;
  uint64_t vocab = 0;
};

// The graph's inputs as the device that runs the blocks sees them: on a
// GPU the scheduler's copies of the host's tensors (placed at the split's
// start, freed after their last reader); on the host the Input() buffers
// themselves (external: counted in no record) and the token rows the host
// gathers (token_embd is an input-layer tensor: "inputs always use cpu").
struct Inputs {
  int weight = -1;
  int rows = -1;     // [hidden, n_tok] f32
  int pos = -1;      // i32 [n_tok]
  int slots = -1;    // the cache slots set_rows writes, i32 [n_tok]
  int outputs = -1;  // i32 [parallel]
  int mask = -1;     // f32 [cells, n_tok]; cast to f16 under flash attention
};

Inputs graph_inputs(Graph& g, const Qwen3Shape& s, const EngineGraphRun& run, uint64_t n_tok,
                    uint64_t n_out, bool with_mask = true) {
  Inputs in;
  in.weight = g.external();
  if (run.on_gpu) {
    in.rows = g.input(Type::kF32, {s.hidden, n_tok, 1, 1}, "rows#copy");
    in.pos = g.input(Type::kI32, {n_tok, 1, 1, 1}, "positions#copy");
    in.slots = g.input(Type::kI32, {n_tok, 1, 1, 1}, "slots#copy");
    in.outputs = g.input(Type::kI32, {n_out, 1, 1, 1}, "outputs#copy");
    // The mask's copy: F32 when the graph casts it, else of the mask's
    // type (F16 under flash attention).
    const Type mask_type = run.mask_cast || !run.flash_attention ? Type::kF32 : Type::kF16;
    if (with_mask) in.mask = g.input(mask_type, {run.cells, n_tok, 1, 1}, "mask#copy");
  } else {
    const int tokens = g.external("tokens");
    in.rows = g.op(Op::kOther, Type::kF32, {s.hidden, n_tok, 1, 1}, {in.weight, tokens}, "token_embd");
    in.pos = g.external("positions");
    in.slots = g.external("slots");
    in.outputs = g.external("outputs");
    if (with_mask) in.mask = g.external("mask");
  }
  return in;
}

// nn.Attention over the causal cache: Put's two set_rows, then flash
// attention (ggml.go ScaledDotProductAttention: Q permuted, K and V views
// of the cache) or the scores, softmax and product, permuted contiguous;
// then attn_output.
int attention(Graph& g, const Qwen3Shape& s, const Inputs& in, int mask, int q, int k, int v,
              const EngineGraphRun& run, uint64_t n_tok) {
  g.expand(q);
  g.expand(k);
  g.expand(v);
  const uint64_t kv_width = s.kv_heads * s.head_dim;
  g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1},
                {g.reshape(k, {kv_width, n_tok, 1, 1}), in.slots, in.weight}, "set_rows_k"));
  g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1},
                {g.reshape(v, {kv_width, n_tok, 1, 1}), in.slots, in.weight}, "set_rows_v"));
  const int qp = g.permute(q, 0, 2, 1, 3);
  int cur = -1;
  if (run.flash_attention) {
    const int fa = g.op(Op::kOther, Type::kF32, {s.head_dim, s.heads, n_tok, 1}, {qp, in.weight, in.weight, mask},
                        "flash_attn_ext");
    cur = g.reshape(fa, {s.head_dim * s.heads, n_tok, 1, 1});
  } else {
    const int kq = g.op(Op::kOther, Type::kF32, {run.cells, n_tok, s.heads, 1}, {in.weight, qp}, "kq");
    const int soft = g.op(Op::kSoftMax, Type::kF32, {run.cells, n_tok, s.heads, 1}, {kq, mask}, "kq_soft_max");
    const int kqv = g.op(Op::kOther, Type::kF32, {s.head_dim, n_tok, s.heads, 1}, {in.weight, soft}, "kqv");
    cur = g.op(Op::kOther, Type::kF32, {s.head_dim * s.heads, n_tok, 1, 1}, {g.permute(kqv, 0, 2, 1, 3)},
               "kqv_cont");
  }
  return lg::mul_mat(g, in.weight, cur, s.hidden);
}

// More than the tensors build() makes (as llamacpp/graph/decoder.cc).
uint64_t tensor_bound(const Qwen3Shape& s) {
  return 64 + s.layers * (48 + (s.experts > 0 ? 32 + 2 * s.used : 0));
}

Graph build(const Qwen3Shape& s, const EngineGraphRun& run, uint64_t n_tok, uint64_t n_out) {
  Graph g;
  g.reserve(tensor_bound(s));
  const Inputs in = graph_inputs(g, s, run, n_tok, n_out);
  // buildMask's cast, made once and read by every layer.
  const int mask = run.flash_attention && run.mask_cast
                       ? g.op(Op::kOther, Type::kF16, {run.cells, n_tok, 1, 1}, {in.mask}, "mask_f16")
                       : in.mask;
  int h = in.rows;
  uint64_t rows = n_tok;
  for (uint64_t il = 0; il < s.layers; ++il) {
    int residual = h;
    const int x = lg::rms_norm_mul(g, h, in.weight);
    int q = g.reshape(lg::mul_mat(g, in.weight, x, s.heads * s.head_dim), {s.head_dim, s.heads, n_tok, 1});
    int k = g.reshape(lg::mul_mat(g, in.weight, x, s.kv_heads * s.head_dim), {s.head_dim, s.kv_heads, n_tok, 1});
    const int v =
        g.reshape(lg::mul_mat(g, in.weight, x, s.kv_heads * s.head_dim), {s.head_dim, s.kv_heads, n_tok, 1});
    q = lg::rms_norm_mul(g, q, in.weight);
    k = lg::rms_norm_mul(g, k, in.weight);
    q = g.op(Op::kRope, Type::kF32, g.at(q).ne, {q, in.pos}, "q_rope");
    k = g.op(Op::kRope, Type::kF32, g.at(k).ne, {k, in.pos}, "k_rope");
    int cur = attention(g, s, in, mask, q, k, v, run, n_tok);
    if (il + 1 == s.layers) rows = lg::keep_output_rows(g, in.outputs, s.hidden, n_out, cur, residual);
    const int ffn_inp = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {cur, residual}, "ffn_inp");
    const int y = lg::rms_norm_mul(g, ffn_inp, in.weight);
    int ffn_out = -1;
    if (s.experts > 0) {
      const lg::MoeShape moe{.hidden = s.hidden, .experts = s.experts, .used = s.used,
                             .expert_ffn = s.expert_ffn, .weights_norm = true};
      ffn_out = lg::moe_ffn(g, moe, in.weight, y, rows);
    } else {
      ffn_out = lg::swiglu_ffn(g, in.weight, y, s.ffn, s.hidden);
    }
    h = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {ffn_out, ffn_inp}, "l_out");
  }
  if (run.output_layer) {
    lg::logits_output(g, in.weight, h, s.vocab);
  } else {
    g.set_output(h);  // read by the host's split: kept to the graph's end
    g.expand(h);
  }
  return g;
}

// model/models/gptoss/model.go's Forward (v0.11.0 to v0.24.0), as Ollama's
// own gpt-oss GGUF holds it (471 tensors for gpt-oss-120b: attn_qkv and
// ffn_gate_up_exps fused, each with a bias): per layer the RMS norm, the
// fused QKV product and its bias, Q, K and V as views of it, RoPE (new
// tensors: a view is never taken over), the cache's writes, flash
// attention with the sinks (ScaledDotProductAttention: Q permuted; the
// sinks a source, no tensor; without flash attention the scores,
// soft-maxed with the mask and sinks, and their product with V, permuted
// contiguous) over the sliding-window cache's cells on even
// layers and the causal cache's on odd ones (kvcache.WrapperCache,
// SetLayerType(i % 2)), attn_out and its bias, the residual; in the last
// layer the Outputs' rows of the hidden state (Rows, after attention); the
// MLP: RMS norm, the router and its bias, TopK (an I32 argsort, its first
// `used` columns a view), the chosen weights gathered and soft-maxed, the
// fused gate-up product over the chosen experts (mul_mat_id) and its
// bias (add_id, in place), gate and up made contiguous from strided views,
// SwiGLU-OAI (a GLU: not in place), the down product and its bias, times
// the routing weights, the experts' rows summed (the first add reads a
// view: a new tensor; the rest in place), the residual.
struct GptOssShape {
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  uint64_t experts = 0;
  uint64_t used = 0;
  uint64_t expert_ffn = 0;
  uint64_t vocab = 0;
  uint64_t window = 0;  // the sliding-window cache's tokens a sequence (own_engine_swa_memory)
};

// The two masks' F16 forms (each sub-cache's buildMask: one cast each when
// the release casts in the graph, else the mask inputs themselves).
struct GptOssMasks {
  int swa = -1;
  int causal = -1;
};

GptOssMasks gptoss_masks(Graph& g, const EngineGraphRun& run, uint64_t swa_cells, uint64_t n_tok) {
  const bool cast = run.flash_attention && run.mask_cast;
  const Type copy = cast || !run.flash_attention ? Type::kF32 : Type::kF16;
  GptOssMasks m;
  for (auto [cells, slot, name] : {std::tuple{swa_cells, &m.swa, "swa"}, std::tuple{run.cells, &m.causal, "causal"}}) {
    const int in = run.on_gpu ? g.input(copy, {cells, n_tok, 1, 1}, std::string(name) + " mask#copy")
                              : g.external(std::string(name) + " mask");
    *slot = cast ? g.op(Op::kOther, Type::kF16, {cells, n_tok, 1, 1}, {in}, std::string(name) + " mask_f16") : in;
  }
  return m;
}

// One layer's attention block (the residual added): returns the hidden state.
int gptoss_attention(Graph& g, const GptOssShape& s, const Inputs& in, int mask, uint64_t cells, int h,
                     bool flash_attention, uint64_t n_tok) {
  const int residual = h;
  const int x = lg::rms_norm_mul(g, h, in.weight);
  const uint64_t width = s.head_dim * (s.heads + 2 * s.kv_heads);
  int qkv = lg::mul_mat(g, in.weight, x, width);
  qkv = g.op(Op::kAdd, Type::kF32, g.at(qkv).ne, {qkv, in.weight}, "qkv_bias");
  const ggml_graph::Dims nb = {4, 4 * s.head_dim, 4 * width, 4 * width * n_tok};
  const int query = g.view(qkv, {s.head_dim, s.heads, n_tok, 1}, nb, 0);
  const int key = g.view(qkv, {s.head_dim, s.kv_heads, n_tok, 1}, nb, 4 * s.head_dim * s.heads);
  const int value = g.view(qkv, {s.head_dim, s.kv_heads, n_tok, 1}, nb, 4 * s.head_dim * (s.heads + s.kv_heads));
  const int q = g.op(Op::kRope, Type::kF32, {s.head_dim, s.heads, n_tok, 1}, {query, in.pos}, "q_rope");
  const int k = g.op(Op::kRope, Type::kF32, {s.head_dim, s.kv_heads, n_tok, 1}, {key, in.pos}, "k_rope");
  g.expand(q);
  g.expand(k);
  g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, {k, in.slots, in.weight}, "cache_k"));
  g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, {value, in.slots, in.weight}, "cache_v"));
  const int qp = g.permute(q, 0, 2, 1, 3);
  int cur = -1;
  if (flash_attention) {
    const int fa = g.op(Op::kOther, Type::kF32, {s.head_dim, s.heads, n_tok, 1}, {qp, in.weight, in.weight, mask},
                        "flash_attn_ext");
    cur = g.reshape(fa, {s.head_dim * s.heads, n_tok, 1, 1});
  } else {
    // The scores over the cache's cells, soft-maxed with the mask and the
    // sinks (ggml_soft_max_ext, ggml_soft_max_add_sinks), their product
    // with V, permuted contiguous.
    const int kq = g.op(Op::kOther, Type::kF32, {cells, n_tok, s.heads, 1}, {in.weight, qp}, "kq");
    const int soft = g.op(Op::kSoftMax, Type::kF32, {cells, n_tok, s.heads, 1}, {kq, mask}, "kq_soft_max");
    const int kqv = g.op(Op::kOther, Type::kF32, {s.head_dim, n_tok, s.heads, 1}, {in.weight, soft}, "kqv");
    cur = g.op(Op::kOther, Type::kF32, {s.head_dim * s.heads, n_tok, 1, 1}, {g.permute(kqv, 0, 2, 1, 3)},
               "kqv_cont");
  }
  int out = lg::mul_mat(g, in.weight, cur, s.hidden);
  out = g.op(Op::kAdd, Type::kF32, g.at(out).ne, {out, in.weight}, "attn_out_bias");
  return g.op(Op::kAdd, Type::kF32, g.at(out).ne, {out, residual}, "attn_residual");
}

// One layer's MLP block over `rows` rows (the residual added).
int gptoss_mlp(Graph& g, const GptOssShape& s, int weight, int h, uint64_t rows) {
  const int residual = h;
  const int x = lg::rms_norm_mul(g, h, weight);
  int router = lg::mul_mat(g, weight, x, s.experts);
  router = g.op(Op::kAdd, Type::kF32, g.at(router).ne, {router, weight}, "router_bias");
  const int order = g.op(Op::kOther, Type::kI32, {s.experts, rows, 1, 1}, {router}, "argsort");
  const int chosen = g.view(order, {s.used, rows, 1, 1}, {4, 4 * s.experts, 4 * s.experts * rows, 4 * s.experts * rows}, 0);
  int rw = g.op(Op::kOther, Type::kF32, {1, s.used, rows, 1}, {g.reshape(router, {1, s.experts, rows, 1}), chosen},
                "routing_rows");
  rw = g.op(Op::kSoftMax, Type::kF32, {s.used, rows, 1, 1}, {g.reshape(rw, {s.used, rows, 1, 1})}, "routing_soft_max");
  rw = g.reshape(rw, {1, s.used, rows, 1});
  const int xr = g.reshape(x, {s.hidden, 1, rows, 1});
  int gu = g.op(Op::kOther, Type::kF32, {2 * s.expert_ffn, s.used, rows, 1}, {weight, xr, chosen}, "gate_up_exps");
  gu = g.op(Op::kAdd, Type::kF32, g.at(gu).ne, {gu, weight, chosen}, "gate_up_bias");
  const uint64_t row = 4 * 2 * s.expert_ffn;
  const ggml_graph::Dims nb = {4, 8, row, row * s.used};
  const ggml_graph::Dims ne = {1, s.expert_ffn, s.used, rows};
  const int gate = g.op(Op::kOther, Type::kF32, {s.expert_ffn, s.used, rows, 1}, {g.view(gu, ne, nb, 0)}, "gate_cont");
  const int up = g.op(Op::kOther, Type::kF32, {s.expert_ffn, s.used, rows, 1}, {g.view(gu, ne, nb, 4)}, "up_cont");
  const int act = g.op(Op::kOther, Type::kF32, {s.expert_ffn, s.used, rows, 1}, {gate, up}, "swiglu_oai");
  int down = g.op(Op::kOther, Type::kF32, {s.hidden, s.used, rows, 1}, {weight, act, chosen}, "down_exps");
  down = g.op(Op::kAdd, Type::kF32, g.at(down).ne, {down, weight, chosen}, "down_bias");
  const int experts = g.op(Op::kMul, Type::kF32, g.at(down).ne, {down, rw}, "routed");
  const ggml_graph::Dims enb = g.at(experts).nb;
  const ggml_graph::Dims vnb = {4, enb[2], enb[2] * rows, enb[2] * rows};
  int next = g.view(experts, {s.hidden, rows, 1, 1}, vnb, 0);
  for (uint64_t i = 1; i < s.used; ++i) {
    next = g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {next, g.view(experts, {s.hidden, rows, 1, 1}, vnb, i * enb[1])},
                "experts_sum");
  }
  return g.op(Op::kAdd, Type::kF32, {s.hidden, rows, 1, 1}, {next, residual}, "l_out");
}

uint64_t gptoss_tensor_bound(const GptOssShape& s) { return 64 + s.layers * (64 + 2 * s.used); }

Graph build_gptoss(const GptOssShape& s, const EngineGraphRun& run, uint64_t swa_cells, uint64_t n_tok,
                   uint64_t n_out) {
  Graph g;
  g.reserve(gptoss_tensor_bound(s));
  const Qwen3Shape rows_shape{.hidden = s.hidden};
  const Inputs in = graph_inputs(g, rows_shape, run, n_tok, n_out, /*mask=*/false);
  const GptOssMasks masks = gptoss_masks(g, run, swa_cells, n_tok);
  int h = in.rows;
  uint64_t rows = n_tok;
  for (uint64_t il = 0; il < s.layers; ++il) {
    const bool windowed = il % 2 == 0;
    h = gptoss_attention(g, s, in, windowed ? masks.swa : masks.causal, windowed ? swa_cells : run.cells, h,
                         run.flash_attention, n_tok);
    if (il + 1 == s.layers) {
      h = g.op(Op::kOther, Type::kF32, {s.hidden, n_out, 1, 1}, {h, in.outputs}, "output_rows");
      rows = n_out;
    }
    h = gptoss_mlp(g, s, in.weight, h, rows);
  }
  if (run.output_layer) {
    lg::logits_output(g, in.weight, h, s.vocab);
  } else {
    g.set_output(h);
    g.expand(h);
  }
  return g;
}

// model/models/bert/embed.go's Forward (all-MiniLM, BERT's encoders; no
// cache, no RoPE): the token rows plus the token type's row and the
// position rows, a LayerNorm; per layer Q, K, V with their biases,
// nn.Attention expanding Q, then K and V, and ScaledDotProductAttention
// without a cache or flash attention (V permuted contiguous, the scores soft-maxed in place, their product
// permuted contiguous), the output projection, residual and LayerNorm, the
// GELU FFN, residual and LayerNorm; then mean pooling (transposed
// contiguous, mean, transposed back) and the L2 norm. ggml_norm does not
// run in place (Op::kOther); the bias adds, GELU and softmax do.
struct BertShape {
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t head_dim = 0;
  uint64_t ffn = 0;
};

int layer_norm(Graph& g, int x, int w) {
  const int norm = g.op(Op::kOther, Type::kF32, g.at(x).ne, {x}, "norm");
  return g.op(Op::kAdd, Type::kF32, g.at(x).ne, {g.op(Op::kMul, Type::kF32, g.at(x).ne, {norm, w}), w});
}

// nn.Linear with a bias: the product, then the bias added in place.
int linear(Graph& g, int w, int x, uint64_t rows) {
  const int y = lg::mul_mat(g, w, x, rows);
  return g.op(Op::kAdd, Type::kF32, g.at(y).ne, {y, w});
}

Graph build_bert(const BertShape& s, uint64_t n_tok) {
  Graph g;
  g.reserve(64 + s.layers * 48);
  const int w = g.external();
  const int tokens = g.external("tokens");
  const int positions = g.external("positions");
  int h = g.op(Op::kOther, Type::kF32, {s.hidden, n_tok, 1, 1}, {w, tokens}, "token_embd");
  h = g.op(Op::kAdd, Type::kF32, {s.hidden, n_tok, 1, 1}, {h, w}, "token_types");
  const int pos = g.op(Op::kOther, Type::kF32, {s.hidden, n_tok, 1, 1}, {w, positions}, "position_embd");
  h = layer_norm(g, g.op(Op::kAdd, Type::kF32, {s.hidden, n_tok, 1, 1}, {h, pos}), w);
  for (uint64_t il = 0; il < s.layers; ++il) {
    const int residual = h;
    const int q = g.reshape(linear(g, w, h, s.heads * s.head_dim), {s.head_dim, s.heads, n_tok, 1});
    const int k = g.reshape(linear(g, w, h, s.heads * s.head_dim), {s.head_dim, s.heads, n_tok, 1});
    const int v = g.reshape(linear(g, w, h, s.heads * s.head_dim), {s.head_dim, s.heads, n_tok, 1});
    // nn.Attention's ctx.Forward(query), then ctx.Forward(key, value).
    g.expand(q);
    g.expand(k);
    g.expand(v);
    const int v_cont = g.op(Op::kOther, Type::kF32, {n_tok, s.head_dim, s.heads, 1}, {g.permute(v, 1, 2, 0, 3)},
                            "v_cont");
    const int kq = g.op(Op::kOther, Type::kF32, {n_tok, n_tok, s.heads, 1},
                        {g.permute(k, 0, 2, 1, 3), g.permute(q, 0, 2, 1, 3)}, "kq");
    const int soft = g.op(Op::kSoftMax, Type::kF32, g.at(kq).ne, {kq}, "kq_soft_max");
    const int kqv = g.op(Op::kOther, Type::kF32, {s.head_dim, n_tok, s.heads, 1}, {v_cont, soft}, "kqv");
    const int attn = g.op(Op::kOther, Type::kF32, {s.head_dim * s.heads, n_tok, 1, 1}, {g.permute(kqv, 0, 2, 1, 3)},
                          "kqv_cont");
    const int out = linear(g, w, attn, s.hidden);
    h = layer_norm(g, g.op(Op::kAdd, Type::kF32, g.at(out).ne, {out, residual}), w);
    const int residual2 = h;
    const int up = g.op(Op::kUnary, Type::kF32, {s.ffn, n_tok, 1, 1}, {linear(g, w, h, s.ffn)}, "gelu");
    const int down = linear(g, w, up, s.hidden);
    h = layer_norm(g, g.op(Op::kAdd, Type::kF32, g.at(down).ne, {down, residual2}), w);
  }
  const int t = g.op(Op::kOther, Type::kF32, {n_tok, s.hidden, 1, 1}, {g.permute(h, 1, 0, 2, 3)}, "pool_cont");
  const int mean = g.op(Op::kOther, Type::kF32, {1, s.hidden, 1, 1}, {t}, "mean");
  const int back = g.op(Op::kOther, Type::kF32, {s.hidden, 1, 1, 1}, {g.permute(mean, 1, 0, 2, 3)}, "pool_out");
  g.expand(g.op(Op::kOther, Type::kF32, {s.hidden, 1, 1, 1}, {back}, "l2_norm"));
  return g;
}

std::optional<BertShape> bert_shape(const ModelSpec& spec) {
  // BERT proper (all-MiniLM, bge): not nomic-bert or Jina (other Forwards).
  if (spec.model_type != "bert" || spec.family == "jina_bert_v2" || spec.layers.empty() ||
      spec.layers.size() > lg::kMaxLayers) {
    return {};
  }
  const ModelGeometry& geo = spec.geometry;
  BertShape s{.layers = spec.layers.size(), .hidden = geo.hidden, .heads = geo.heads,
              .head_dim = geo.head_dim, .ffn = geo.intermediate};
  for (uint64_t v : {s.hidden, s.heads, s.head_dim, s.heads * s.head_dim, s.ffn}) {
    if (v == 0 || v >= lg::kMaxFactor) return {};
  }
  if (64 + s.layers * 48 > lg::kMaxTensors) return {};
  return s;
}

bool is_qwen3(std::string_view model_type) {
  return model_type == "qwen3" || model_type == "qwen3moe" || model_type == "qwen3_moe";
}

std::optional<Qwen3Shape> qwen3_shape(const ModelSpec& spec) {
  if (!is_qwen3(spec.model_type) || spec.layers.empty() || spec.layers.size() > lg::kMaxLayers) return {};
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kFullAttention) return {};
  }
  const ModelGeometry& geo = spec.geometry;
  Qwen3Shape s{.layers = spec.layers.size(), .hidden = geo.hidden, .heads = geo.heads,
               .kv_heads = geo.kv_heads, .head_dim = geo.head_dim, .ffn = geo.intermediate,
               .vocab = geo.vocab};
  if (spec.moe.experts > 0) {
    if (spec.moe.shared_experts > 0) return {};
    s.experts = spec.moe.experts;
    s.used = std::max<uint64_t>(spec.moe.experts_per_token, 1);
    s.expert_ffn = spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : geo.intermediate;
    if (s.used > s.experts || s.experts >= lg::kMaxFactor || s.used * s.expert_ffn >= lg::kMaxFactor) return {};
  }
  for (uint64_t v : {s.hidden, s.heads, s.kv_heads, s.head_dim, s.heads * s.head_dim, s.ffn}) {
    if (v == 0 || v >= lg::kMaxFactor) return {};
  }
  if (s.vocab == 0 || s.vocab >= lg::kMaxVocab || tensor_bound(s) > lg::kMaxTensors) return {};
  return s;
}

// gpt-oss as Ollama runs it: even layers windowed, odd layers full
// (model.go: "Even layers are sliding window attention"), the routed
// experts without shared ones.
std::optional<GptOssShape> gptoss_shape(const ModelSpec& spec) {
  if ((spec.model_type != "gpt_oss" && spec.model_type != "gptoss") || spec.layers.empty() ||
      spec.layers.size() > lg::kMaxLayers || spec.moe.experts == 0 || spec.moe.shared_experts > 0) {
    return {};
  }
  const ModelGeometry& geo = spec.geometry;
  GptOssShape s{.layers = spec.layers.size(), .hidden = geo.hidden, .heads = geo.heads, .kv_heads = geo.kv_heads,
                .head_dim = geo.head_dim, .experts = spec.moe.experts,
                .used = std::max<uint64_t>(spec.moe.experts_per_token, 1),
                .expert_ffn = spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : geo.intermediate,
                .vocab = geo.vocab};
  for (size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerCache& l = spec.layers[i];
    const LayerKind want = i % 2 == 0 ? LayerKind::kSlidingWindow : LayerKind::kFullAttention;
    if (l.kind != want) return {};
    if (want == LayerKind::kSlidingWindow) s.window = l.window_tokens;
  }
  for (uint64_t v : {s.hidden, s.heads, s.kv_heads, s.head_dim, s.experts, s.expert_ffn, s.window,
                     s.head_dim * (s.heads + 2 * s.kv_heads), 2 * s.expert_ffn * s.used}) {
    if (v == 0 || v >= lg::kMaxFactor) return {};
  }
  if (s.used > s.experts || s.vocab == 0 || s.vocab >= lg::kMaxVocab || gptoss_tensor_bound(s) > lg::kMaxTensors) {
    return {};
  }
  return s;
}

// The sliding-window cache's cells (kvcache/causal.go Init): its memory a
// sequence for every sequence plus a batch, padded, at most the causal
// cache's cells.
uint64_t swa_cache_cells(const EngineGraphRun& run, uint64_t window) {
  const CheckedBytes wanted = CheckedBytes(run.parallel) * window + run.num_batch;
  const uint64_t padded = round_up(wanted, std::max<uint64_t>(run.padding, 1)).value().value_or(run.cells);
  return std::min(padded, run.cells);
}

}  // namespace

bool mirrors_engine_graph(const ModelSpec& spec) {
  return qwen3_shape(spec).has_value() || bert_shape(spec).has_value() || gptoss_shape(spec).has_value();
}

Result<std::optional<uint64_t>> engine_graph_bytes(const ModelSpec& spec, const EngineGraphRun& run) {
  if (run.num_batch == 0 || run.num_batch >= lg::kMaxFactor || run.parallel == 0 ||
      run.parallel >= lg::kMaxFactor || run.cells >= lg::kMaxFactor) {
    return std::optional<uint64_t>();
  }
  const uint64_t align = run.on_gpu ? llamacpp::kGpuTensorAlignment : llamacpp::kCpuTensorAlignment;
  uint64_t best = 0;
  if (const std::optional<BertShape> bert = bert_shape(spec)) {
    // An encoder's batch is its context ("model does not support caching,
    // setting batch size to context length", runner.go): the load
    // request's KvSize when it is the larger, and the one-token graph.
    const uint64_t batch = std::max(run.num_batch, run.context);
    if (batch >= lg::kMaxFactor) return std::optional<uint64_t>();
    for (uint64_t n_tok : {batch, uint64_t{1}}) {
      Result<uint64_t> bytes = ggml_graph::replay_allocation(build_bert(*bert, n_tok), align);
      if (!bytes) return bytes.error();
      best = std::max(best, *bytes);
    }
    return std::optional<uint64_t>(best);
  }
  if (const std::optional<GptOssShape> oss = gptoss_shape(spec); oss && run.cells > 0) {
    const uint64_t swa_cells = swa_cache_cells(run, oss->window);
    for (uint64_t n_tok : {run.num_batch, uint64_t{1}}) {
      Result<uint64_t> bytes =
          ggml_graph::replay_allocation(build_gptoss(*oss, run, swa_cells, n_tok, run.parallel), align);
      if (!bytes) return bytes.error();
      best = std::max(best, *bytes);
    }
    return std::optional<uint64_t>(best);
  }
  const std::optional<Qwen3Shape> s = qwen3_shape(spec);
  if (!s || run.cells == 0) return std::optional<uint64_t>();
  // The prompt batch (num_batch tokens, `parallel` outputs), then one token
  // (reserveWorstCaseGraph(false)); Outputs stays `parallel` rows
  // in both (Empty(ml.DTypeI32, s.parallel)).
  for (uint64_t n_tok : {run.num_batch, uint64_t{1}}) {
    Result<uint64_t> bytes = ggml_graph::replay_allocation(build(*s, run, n_tok, run.parallel), align);
    if (!bytes) return bytes.error();
    best = std::max(best, *bytes);
  }
  return std::optional<uint64_t>(best);
}

std::optional<std::vector<WeightProduct>> engine_graph_products(const ModelSpec& spec, const EngineGraphRun& run,
                                                                bool weights_quantized) {
  const std::optional<Qwen3Shape> s = qwen3_shape(spec);
  if (!s || s->experts > 0 || run.cells == 0 || run.cells >= lg::kMaxFactor || run.num_batch == 0 ||
      run.num_batch >= lg::kMaxFactor || run.parallel == 0 || run.parallel >= lg::kMaxFactor) {
    return std::nullopt;
  }
  std::vector<WeightProduct> products;
  for (uint64_t n_tok : {run.num_batch, uint64_t{1}}) {
    const Graph g = build(*s, run, n_tok, run.parallel);
    for (int t : g.nodes()) {
      const ggml_graph::Tensor& node = g.at(t);
      if (node.op != Op::kMulMat || node.src.size() < 2 || !g.is_external(node.src[0])) continue;
      const ggml_graph::Tensor& act = g.at(node.src[1]);
      products.push_back({.k = act.ne[0], .n = node.ne[0], .m = act.ne[1] * act.ne[2] * act.ne[3],
                          .quantized = weights_quantized});
    }
  }
  return products;
}

std::optional<FlashAttentionNode> engine_graph_attention(const ModelSpec& spec, const EngineGraphRun& run) {
  const std::optional<Qwen3Shape> s = qwen3_shape(spec);
  if (!s || !run.flash_attention || run.cells == 0 || run.cells >= lg::kMaxFactor || run.num_batch == 0 ||
      run.num_batch >= lg::kMaxFactor) {
    return std::nullopt;
  }
  return FlashAttentionNode{.tokens = run.num_batch, .heads = s->heads, .kv_heads = s->kv_heads,
                            .cells = run.cells, .head_dim_v = s->head_dim};
}

}  // namespace memfit::ollama
