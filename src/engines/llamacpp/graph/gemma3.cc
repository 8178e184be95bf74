// The prompt and token graphs of the pinned llama.cpp's Gemma 3 (GGUF
// architecture gemma3) over its iSWA cache (llama_kv_cache_iswa: a
// sliding-window cache of swa_cells cells per stream for the windowed
// layers, a base cache of n_ctx_seq cells for the global ones, each with
// its own row indices, mask and rotations), built tensor by tensor in the
// order llama.cpp builds them, for the allocator replay (llamacpp/graph/ggml_graph.h).
// What differs from the decoder builder (llamacpp/graph/decoder.cc): the
// embeddings scaled by sqrt(hidden) (in place), Q and K RMS-normed before
// RoPE, Q scaled after it (in place), a norm after the attention and
// after the FFN, the last layer's output rows taken before the post-
// attention norm, a GELU-gated FFN. The final logit softcapping, when a
// model has it, is scale, tanh and scale in place over the logits: no
// bytes. The facts behind each step: docs/llamacpp-rules.md, "Compute
// buffers (replayed)".
#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/parts.h"

namespace memfit::llamacpp::graph {

namespace {

using ggml_graph::Op;
using ggml_graph::Type;

struct Gemma3Shape {
  uint64_t ffn = 0;
  uint64_t vocab = 0;
  std::vector<bool> windowed;  // per layer: reads the sliding-window cache
  AttentionShape base;         // n_kv = the base cache's cells
  AttentionShape swa;          // n_kv = the sliding-window cache's cells
};

Graph build(const Gemma3Shape& s, uint64_t n_tok, uint64_t n_out) {
  const uint64_t hidden = s.base.hidden;
  const uint64_t head_dim = s.base.head_dim;
  Graph g;
  g.reserve(64 + s.windowed.size() * 72);  // about 60 tensors a layer: no regrowth
  const int weight = g.external();
  const int embd = token_embeddings(g, weight, hidden, n_tok);
  int inp = g.op(Op::kScale, Type::kF32, {hidden, n_tok, 1, 1}, {embd}, "inp_scaled");
  const int pos = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_pos");
  // Each cache's inputs; a leaf enters the graph where a layer first reads it.
  const AttentionInputs base_in = attention_inputs(g, s.base, n_tok, weight);
  const AttentionInputs swa_in = attention_inputs(g, s.swa, n_tok, weight);
  const int out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");

  for (size_t il = 0; il < s.windowed.size(); ++il) {
    const AttentionShape& a = s.windowed[il] ? s.swa : s.base;
    const AttentionInputs& in = s.windowed[il] ? swa_in : base_in;
    const int x = rms_norm_mul(g, inp, weight);
    int q = g.reshape(mul_mat(g, weight, x, a.heads * head_dim), {head_dim, a.heads, n_tok, 1});
    int k = g.reshape(mul_mat(g, weight, x, a.kv_heads * head_dim), {head_dim, a.kv_heads, n_tok, 1});
    const int v = g.reshape(mul_mat(g, weight, x, a.kv_heads * head_dim), {head_dim, a.kv_heads, n_tok, 1});
    q = rms_norm_mul(g, q, weight);
    q = g.op(Op::kRope, Type::kF32, g.at(q).ne, {q, pos}, "Qcur");
    k = rms_norm_mul(g, k, weight);
    k = g.op(Op::kRope, Type::kF32, g.at(k).ne, {k, pos}, "Kcur");
    q = g.op(Op::kScale, Type::kF32, g.at(q).ne, {q}, "Qcur_scaled");
    int cur = attention(g, a, in, q, k, v, n_tok);
    uint64_t rows = n_tok;
    if (il + 1 == s.windowed.size()) rows = keep_output_rows(g, out_ids, hidden, n_out, cur, inp);
    cur = rms_norm_mul(g, cur, weight);  // attn_post_norm
    const int sa_out = g.op(Op::kAdd, Type::kF32, {hidden, rows, 1, 1}, {cur, inp}, "sa_out");
    const int y = rms_norm_mul(g, sa_out, weight);
    const int gate = mul_mat(g, weight, y, s.ffn);
    const int up = mul_mat(g, weight, y, s.ffn);
    const int glu = g.op(Op::kOther, Type::kF32, g.at(gate).ne, {gate, up}, "ffn_geglu");
    cur = rms_norm_mul(g, mul_mat(g, weight, glu, hidden), weight);  // ffn_post_norm
    inp = g.op(Op::kAdd, Type::kF32, {hidden, rows, 1, 1}, {cur, sa_out}, "l_out");
  }
  logits_output(g, weight, inp, s.vocab);
  return g;
}

}  // namespace

Result<std::optional<uint64_t>> replay_gemma3(const ModelSpec& spec, const LlamaCppContext& c,
                                              const LlamaCppSettings& settings) {
  const std::optional<uint64_t> none;
  // GGUF general.architecture or config.json model_type.
  const std::string_view arch = spec.model_type;
  if (arch != "gemma3" && arch != "gemma3_text") return none;
  if (spec.layers.empty() || spec.layers.size() > kMaxLayers || spec.nextn_layers > 0) return none;
  Gemma3Shape s;
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kFullAttention && l.kind != LayerKind::kSlidingWindow) return none;
    s.windowed.push_back(is_windowed(l));
  }
  if (!covers_cache_types(c, settings)) return none;

  const ModelGeometry& geo = spec.geometry;
  s.ffn = geo.intermediate;
  s.vocab = geo.vocab;
  s.base = attention_shape(geo, c, settings);
  const AttentionShape& a = s.base;
  s.swa = a;
  s.swa.n_kv = c.swa_cells;
  const bool any_windowed = std::find(s.windowed.begin(), s.windowed.end(), true) != s.windowed.end();

  for (uint64_t v : {a.hidden, a.heads, a.kv_heads, a.head_dim, a.n_kv, a.heads * a.head_dim,
                     a.kv_heads * a.head_dim, s.ffn}) {
    if (v == 0 || v >= kMaxFactor) return none;
  }
  if ((any_windowed && (s.swa.n_kv == 0 || s.swa.n_kv >= kMaxFactor)) || s.vocab == 0 ||
      s.vocab >= kMaxVocab || spec.moe.experts > 0) {
    return none;
  }
  return replayed(reserve_bytes(c, [&](uint64_t n_tok, uint64_t n_out) { return build(s, n_tok, n_out); }));
}

}  // namespace memfit::llamacpp::graph
