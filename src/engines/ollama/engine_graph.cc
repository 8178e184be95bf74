// The own engine's reserved graph (engine_graph.h), tensor by tensor in the
// order ggml_build_forward_expand lists model/models/qwen3/model.go's
// Forward at v0.24.0, replayed by memfit's ggml-alloc model. The pieces it
// shares with llama.cpp's qwen3 graph (matrix products, RMS norms, the
// routed experts) are llamacpp/graph's builders.
#include "engines/ollama/engine_graph.h"

#include <algorithm>
#include <string_view>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/ggml_graph.h"
#include "engines/llamacpp/parts.h"

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
                    uint64_t n_out) {
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
    in.mask = g.input(mask_type, {run.cells, n_tok, 1, 1}, "mask#copy");
  } else {
    const int tokens = g.external("tokens");
    in.rows = g.op(Op::kOther, Type::kF32, {s.hidden, n_tok, 1, 1}, {in.weight, tokens}, "token_embd");
    in.pos = g.external("positions");
    in.slots = g.external("slots");
    in.outputs = g.external("outputs");
    in.mask = g.external("mask");
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

}  // namespace

bool mirrors_engine_graph(const ModelSpec& spec) {
  return qwen3_shape(spec).has_value() || bert_shape(spec).has_value();
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

}  // namespace memfit::ollama
