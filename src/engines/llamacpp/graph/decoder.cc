// The prompt and token graphs of the pinned llama.cpp's decoder-only
// transformers with one full-attention KV cache (llama, Mistral and
// Mixtral as llama.cpp converts them, qwen3, qwen3moe), built tensor by
// tensor in the order llama.cpp builds them, for the allocator replay
// (llamacpp/graph/ggml_graph.h). The facts behind each step: docs/llamacpp-rules.md,
// "Compute buffers (replayed)".
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "engines/llamacpp/graph/builders.h"

namespace memfit::llamacpp::graph {

namespace {

using ggml_graph::Op;
using ggml_graph::Type;

// The shape of one graph: everything the builder reads, already checked.
struct DecoderShape {
  bool qk_norm = false;      // qwen3: RMS norms on Q and K before RoPE
  uint64_t layers = 0;
  uint64_t ffn = 0;          // dense FFN width
  uint64_t experts = 0;      // 0: dense
  uint64_t used = 0;         // experts per token
  uint64_t expert_ffn = 0;   // one expert's width
  uint64_t vocab = 0;
  AttentionShape attn;
};

// The inputs one graph reads besides the attention's.
struct Inputs {
  int weight = -1;  // every external tensor: weights and the KV cache
  int pos = -1;
  int out_ids = -1;
};

// build_moe_ffn with softmax gating and normalized weights (llama's and
// qwen3moe's): [hidden, n] -> [hidden, n].
int moe(Graph& g, const DecoderShape& s, const Inputs& in, int cur, uint64_t n) {
  const MoeShape moe{.hidden = s.attn.hidden, .experts = s.experts, .used = s.used, .expert_ffn = s.expert_ffn,
                     .weights_norm = true};
  return moe_ffn(g, moe, in.weight, cur, n);
}

// More than the tensors build() makes: about 45 a layer, 30 more with
// experts and 2 per expert used, and the inputs and output.
uint64_t tensor_bound(const DecoderShape& s) {
  return 64 + s.layers * (48 + (s.experts > 0 ? 32 + 2 * s.used : 0));
}

// The graph of one ubatch of n_tok tokens (a multiple of the streams)
// keeping n_out output rows.
Graph build(const DecoderShape& s, uint64_t n_tok, uint64_t n_out) {
  const AttentionShape& a = s.attn;
  Graph g;
  g.reserve(tensor_bound(s));
  Inputs in;
  in.weight = g.external();
  int inp = token_embeddings(g, in.weight, a.hidden, n_tok);
  in.pos = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_pos");
  const AttentionInputs attn_in = attention_inputs(g, a, n_tok, in.weight);
  in.out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");

  for (uint64_t il = 0; il < s.layers; ++il) {
    int residual = inp;
    const int x = rms_norm_mul(g, inp, in.weight);
    int q = g.reshape(mul_mat(g, in.weight, x, a.heads * a.head_dim), {a.head_dim, a.heads, n_tok, 1});
    int k = g.reshape(mul_mat(g, in.weight, x, a.kv_heads * a.head_dim), {a.head_dim, a.kv_heads, n_tok, 1});
    const int v = g.reshape(mul_mat(g, in.weight, x, a.kv_heads * a.head_dim), {a.head_dim, a.kv_heads, n_tok, 1});
    if (s.qk_norm) q = rms_norm_mul(g, q, in.weight);
    q = g.op(Op::kRope, Type::kF32, g.at(q).ne, {q, in.pos}, "Qcur");
    if (s.qk_norm) k = rms_norm_mul(g, k, in.weight);
    k = g.op(Op::kRope, Type::kF32, g.at(k).ne, {k, in.pos}, "Kcur");
    int cur = attention(g, a, attn_in, q, k, v, n_tok);
    uint64_t rows = n_tok;
    if (il + 1 == s.layers) rows = keep_output_rows(g, in.out_ids, a.hidden, n_out, cur, residual);
    const int ffn_inp = g.op(Op::kAdd, Type::kF32, {a.hidden, rows, 1, 1}, {cur, residual}, "ffn_inp");
    const int y = rms_norm_mul(g, ffn_inp, in.weight);
    const int ffn_out = s.experts > 0 ? moe(g, s, in, y, rows) : swiglu_ffn(g, in.weight, y, s.ffn, a.hidden);
    inp = g.op(Op::kAdd, Type::kF32, {a.hidden, rows, 1, 1}, {ffn_out, ffn_inp}, "l_out");
  }
  logits_output(g, in.weight, inp, s.vocab);
  return g;
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

Result<std::optional<uint64_t>> replay_decoder(const ModelSpec& spec, const LlamaCppContext& c,
                                               const LlamaCppSettings& settings) {
  const std::optional<uint64_t> none;
  DecoderShape s;
  if (!known_architecture(spec.model_type, &s.qk_norm)) return none;
  if (spec.layers.empty() || spec.layers.size() > kMaxLayers || spec.nextn_layers > 0) return none;
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kFullAttention) return none;
  }
  const ModelGeometry& geo = spec.geometry;
  if (!covers_cache_types(c, settings)) return none;

  s.layers = spec.layers.size();
  s.ffn = geo.intermediate;
  s.vocab = geo.vocab;
  if (spec.moe.experts > 0) {
    s.experts = spec.moe.experts;
    s.used = std::max<uint64_t>(spec.moe.experts_per_token, 1);
    s.expert_ffn = spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : geo.intermediate;
  }
  s.attn = attention_shape(geo, c, settings);
  const AttentionShape& a = s.attn;

  // Shapes the builder can take: every factor nonzero where it is read and
  // below kMaxFactor (so no product overflows), a shared expert-free MoE.
  for (uint64_t v : {a.hidden, a.heads, a.kv_heads, a.head_dim, a.n_kv, a.heads * a.head_dim,
                     a.kv_heads * a.head_dim}) {
    if (v == 0 || v >= kMaxFactor) return none;
  }
  if (s.vocab == 0 || s.vocab >= kMaxVocab || spec.moe.shared_experts > 0) return none;
  if (s.experts > 0) {
    if (s.used > s.experts || s.experts >= kMaxFactor || s.expert_ffn == 0 ||
        s.used * s.expert_ffn >= kMaxFactor) {
      return none;
    }
  } else if (s.ffn == 0 || s.ffn >= kMaxFactor) {
    return none;
  }
  if (tensor_bound(s) > kMaxTensors) return none;
  return replayed(reserve_bytes(c, [&](uint64_t n_tok, uint64_t n_out) { return build(s, n_tok, n_out); }));
}

}  // namespace memfit::llamacpp::graph
