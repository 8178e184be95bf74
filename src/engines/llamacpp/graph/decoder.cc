// The prompt and token graphs of the pinned llama.cpp's decoder-only
// transformers with one full-attention KV cache (llama, Mistral and
// Mixtral as llama.cpp converts them, qwen3, qwen3moe, phi3), built tensor by
// tensor in the order llama.cpp builds them, for the allocator replay
// (llamacpp/graph/ggml_graph.h). The facts behind each step: docs/llamacpp-rules.md,
// "Compute buffers (replayed)".
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/metal_reorder.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp::graph {

namespace {

using ggml_graph::Op;
using ggml_graph::Type;
using ggml_graph::Dims;

// The shape of one graph: everything the builder reads, already checked.
struct DecoderShape {
  bool qk_norm = false;      // qwen3: RMS norms on Q and K before RoPE
  bool qkv_bias = false;     // qwen2: biases added to Q, K and V (in place)
  // glm4: RMS norms after the attention and after the FFN (in place over
  // their outputs) and one merged up matrix (merged_swiglu_ffn).
  bool glm4 = false;
  // phi3 (llm_build_phi3 with wqkv): one QKV product whose Q, K and V are
  // views, Q scaled by 1/sqrt(head_dim) after RoPE (ggml_scale, in
  // place), and one merged up matrix.
  bool phi3 = false;
  // phi3's Q, K and V as the build made them (releases.cc): before #14568
  // each a ggml_cont of a 2-D view of the QKV product (qk_cont, v_cont);
  // from it to #15662 V alone (v_cont); from #15662 all three views.
  bool qk_cont = false;
  bool v_cont = false;
  bool input_leaf = true;    // the vector-input leaf (#18898)
  // Llama 3's RoPE frequency factors (rope_freqs.weight): each block's
  // RoPE reads its own duplicate (llama-model.cpp, TENSOR_DUPLICATED past
  // block 0) as src[2]. Set where op offload places weights
  // (replay_decoder_offload): a host block's copy of it starts a split.
  bool rope_freqs = false;
  bool fused_glu = true;     // the FFN's fused SwiGLU (#14158)
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
// experts and 2 per expert used, 6 more for phi3's copies of Q, K and V
// (a copy and its reshape each), and the inputs and output.
uint64_t tensor_bound(const DecoderShape& s) {
  return 64 + s.layers * (48 + (s.qk_cont || s.v_cont ? 6 : 0) + (s.experts > 0 ? 32 + 2 * s.used : 0));
}

// Q, K and V as llm_build_phi3 views them in its one QKV product (rows of
// heads + 2 kv_heads heads of head_dim): each head's row contiguous, the
// tokens a product's row apart, K after Q's heads, V after K's.
void fused_qkv_views(Graph& g, const AttentionShape& a, int qkv, uint64_t n_tok, int& q, int& k, int& v) {
  const uint64_t row = g.at(qkv).nb[1];
  const Dims nb = {4, 4 * a.head_dim, row, row * n_tok};
  q = g.view(qkv, {a.head_dim, a.heads, n_tok, 1}, nb, 0);
  k = g.view(qkv, {a.head_dim, a.kv_heads, n_tok, 1}, nb, 4 * a.heads * a.head_dim);
  v = g.view(qkv, {a.head_dim, a.kv_heads, n_tok, 1}, nb, 4 * (a.heads + a.kv_heads) * a.head_dim);
}

// The graph of one ubatch of n_tok tokens (a multiple of the streams)
// keeping n_out output rows.
Graph build(const DecoderShape& s, uint64_t n_tok, uint64_t n_out, bool named_weights = false) {
  const AttentionShape& a = s.attn;
  Graph g;
  g.reserve(tensor_bound(s));
  g.set_named_weights(named_weights);
  Inputs in;
  in.weight = g.external();
  int inp = token_embeddings(g, in.weight, a.hidden, n_tok, s.input_leaf);
  in.pos = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_pos");
  const AttentionInputs attn_in = attention_inputs(g, a, n_tok, in.weight);
  in.out_ids = g.input(Type::kI32, {n_out, 1, 1, 1}, "inp_out_ids");

  for (uint64_t il = 0; il < s.layers; ++il) {
    g.set_layer(static_cast<int>(il));
    // This block's weight `kind` (its GGUF name where the graph names them).
    const auto w = [&](std::string_view kind, std::string_view suffix = "weight") {
      return g.weight(in.weight, block_tensor(static_cast<int>(il), kind, suffix));
    };
    int residual = inp;
    const int x = rms_norm_mul(g, inp, w("attn_norm"));
    // Each projection, with its bias where the model has one (an add over
    // the product, in place).
    const auto project = [&](uint64_t rows, std::string_view kind) {
      const int mm = mul_mat(g, w(kind), x, rows);
      return s.qkv_bias ? g.op(Op::kAdd, Type::kF32, g.at(mm).ne, {mm, w(kind, "bias")}) : mm;
    };
    int q = -1;
    int k = -1;
    int v = -1;
    if (s.phi3) {
      fused_qkv_views(g, a, mul_mat(g, w("attn_qkv"), x, (a.heads + 2 * a.kv_heads) * a.head_dim), n_tok, q, k, v);
      // An older build's ggml_cont of each 2-D view (n_embd or n_embd_gqa
      // by n_tok), reshaped to heads: a new contiguous F32 tensor.
      const auto cont = [&](int view) {
        const Dims ne = g.at(view).ne;
        return g.reshape(g.op(Op::kOther, Type::kF32, ne, {view}, "cont"), ne);
      };
      if (s.qk_cont) {
        q = cont(q);
        k = cont(k);
      }
      if (s.v_cont) v = cont(v);
    } else {
      q = g.reshape(project(a.heads * a.head_dim, "attn_q"), {a.head_dim, a.heads, n_tok, 1});
      k = g.reshape(project(a.kv_heads * a.head_dim, "attn_k"), {a.head_dim, a.kv_heads, n_tok, 1});
      v = g.reshape(project(a.kv_heads * a.head_dim, "attn_v"), {a.head_dim, a.kv_heads, n_tok, 1});
    }
    if (s.qk_norm) q = rms_norm_mul(g, q, w("attn_q_norm"));
    // ggml_rope_ext(x, pos, freq_factors): the factors a weight of the block.
    const auto rope_src = [&](int x) {
      return s.rope_freqs ? std::vector<int>{x, in.pos, w("rope_freqs")} : std::vector<int>{x, in.pos};
    };
    q = g.op(Op::kRope, Type::kF32, g.at(q).ne, rope_src(q), "Qcur");
    if (s.phi3) q = g.op(Op::kScale, Type::kF32, g.at(q).ne, {q}, "Qcur");
    if (s.qk_norm) k = rms_norm_mul(g, k, w("attn_k_norm"));
    k = g.op(Op::kRope, Type::kF32, g.at(k).ne, rope_src(k), "Kcur");
    int cur = attention(g, a, attn_in, q, k, v, n_tok);
    uint64_t rows = n_tok;
    if (il + 1 == s.layers) rows = keep_output_rows(g, in.out_ids, a.hidden, n_out, cur, residual);
    if (s.glm4) cur = rms_norm_mul(g, cur, w("post_attention_norm"));
    const int ffn_inp = g.op(Op::kAdd, Type::kF32, {a.hidden, rows, 1, 1}, {cur, residual}, "ffn_inp");
    const int y = rms_norm_mul(g, ffn_inp, w("ffn_norm"));
    int ffn_out = s.experts > 0 ? moe(g, s, in, y, rows)
                  : s.glm4 || s.phi3 ? merged_swiglu_ffn(g, in.weight, y, s.ffn, a.hidden, s.fused_glu)
                                : swiglu_ffn(g, in.weight, y, s.ffn, a.hidden, s.fused_glu);
    if (s.glm4) ffn_out = rms_norm_mul(g, ffn_out, w("post_ffw_norm"));
    // phi3 adds the FFN's output to the residual (ggml_add(residual, cur)):
    // the residual is the first source, the one the sum may take over.
    const std::vector<int> sum = s.phi3 ? std::vector<int>{ffn_inp, ffn_out} : std::vector<int>{ffn_out, ffn_inp};
    inp = g.op(Op::kAdd, Type::kF32, {a.hidden, rows, 1, 1}, sum, "l_out");
  }
  g.set_layer(static_cast<int>(s.layers));
  logits_output(g, in.weight, inp, s.vocab);
  return g;
}

// `device_graph` takes the architectures only the device replay builds:
// qwen2 (Q, K and V biases, llm_build_qwen2) and glm4 (llm_build_glm4).
bool known_architecture(std::string_view model_type, bool device_graph, DecoderShape* s) {
  // GGUF general.architecture or config.json model_type.
  if (model_type == "llama" || model_type == "mistral" || model_type == "mixtral") return true;
  if (model_type == "qwen3" || model_type == "qwen3moe" || model_type == "qwen3_moe") {
    s->qk_norm = true;
    return true;
  }
  if (device_graph && model_type == "qwen2") {
    s->qkv_bias = true;
    return true;
  }
  if (model_type == "phi3") {
    s->phi3 = true;
    return true;
  }
  if (device_graph && model_type == "glm4") {
    s->glm4 = true;
    return true;
  }
  return false;
}

// The shape of the model's graphs; nullopt where the builder does not
// cover it.
std::optional<DecoderShape> decoder_shape(const ModelSpec& spec, const LlamaCppContext& c,
                                          const LlamaCppSettings& settings, bool device_graph) {
  const std::optional<DecoderShape> none;
  DecoderShape s;
  if (!known_architecture(spec.model_type, device_graph, &s)) return none;
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
  return s;
}

// The shape at the build's graph (releases.cc): the mask's cast, the KV
// store's indices, the vector-input leaf, the fused SwiGLU. false where
// the build's graph differs in a way the builder does not mirror: a build
// before #6017 kept the graph inputs in a buffer of their own, one before
// #6122 had no output ids. A quantized cache rotates Q, K and V from
// #21038 (attn_rotation: before it no rotation node); the rotations are
// the pinned build's, so a rotated cache in a build with the F32 mask's
// cast (#21038 to #23764) is not replayed.
bool at_build_graph(DecoderShape& s, const LlamaCppSettings& settings) {
  if (separate_input_buffer(settings) || early_graph_phases(settings)) return false;
  s.input_leaf = vector_input_leaf(settings);
  s.fused_glu = !split_glu_in_place(settings);
  s.attn.f32_mask_cast = f32_mask_cast(settings);
  s.attn.kv_indices = set_rows_kv_store(settings);
  s.qk_cont = s.phi3 && fused_qkv_qk_cont(settings);
  s.v_cont = s.phi3 && fused_qkv_v_cont(settings);
  if (!attn_rotation(settings)) {
    // Before #21038 a quantized cache rotates nothing.
    s.attn.k_rot = 0;
    s.attn.v_rot = 0;
  }
  return !((s.attn.k_rot > 0 || s.attn.v_rot > 0) && s.attn.f32_mask_cast);
}

}  // namespace

Result<std::optional<uint64_t>> replay_decoder(const ModelSpec& spec, const LlamaCppContext& c,
                                               const LlamaCppSettings& settings) {
  std::optional<DecoderShape> s = decoder_shape(spec, c, settings, false);
  if (!s || !at_build_graph(*s, settings)) return std::optional<uint64_t>();
  return replayed(reserve_bytes(c, [&](uint64_t n_tok, uint64_t n_out) { return build(*s, n_tok, n_out); }));
}

Result<std::optional<uint64_t>> replay_decoder_device(const ModelSpec& spec, const LlamaCppContext& c,
                                                      const LlamaCppSettings& settings,
                                                      const std::vector<int>& device_of_layer, int device,
                                                      bool metal) {
  std::optional<DecoderShape> s = decoder_shape(spec, c, settings, true);
  if (!s || !at_build_graph(*s, settings)) return std::optional<uint64_t>();
  if (metal && s->attn.flash_attn) {
    if (!set_metal_cache_rows(s->attn, settings)) return std::optional<uint64_t>();
    s->attn.metal_scratch = true;
  }
  const uint64_t seqs = std::max<uint64_t>(c.streams, 1);
  return replayed(reserve_bytes(c, seqs, kGpuTensorAlignment, [&](uint64_t n_tok, uint64_t n_out) {
    ggml_graph::Graph split = ggml_graph::device_split(build(*s, n_tok, n_out), device_of_layer, device);
    return metal ? ggml_graph::metal_reorder(split) : split;
  }));
}

namespace {

// One cache tensor's bytes (a K or V of one block, every stream): the
// view build_attn_mha reads is the whole of it (ggml_nbytes), and that is
// what a GPU's copy of it takes. nullopt for a row that is not whole
// blocks of its type.
std::optional<uint64_t> cache_tensor_bytes(const AttentionShape& a, GgmlType type) {
  const GgmlTypeTraits& t = ggml_type_traits(type);
  const uint64_t width = a.kv_heads * a.head_dim;
  if (t.block_elements == 0 || width % t.block_elements != 0) return std::nullopt;
  return (CheckedBytes(width / t.block_elements) * t.block_bytes * a.n_kv * a.streams).value();
}

}  // namespace

bool set_homes(Graph& g, uint64_t layers, const WeightHomes& homes, const std::vector<int>& device_of_layer,
               uint64_t k_bytes, uint64_t v_bytes) {
  const auto device_of = [&](uint64_t layer) {
    return layer < device_of_layer.size() ? device_of_layer[layer] : device_of_layer.back();
  };
  for (size_t t = 0; t < g.size(); ++t) {
    const ggml_graph::Tensor& x = g.at(static_cast<int>(t));
    const int id = static_cast<int>(t);
    if (x.cache_slot >= 0) {
      const uint64_t slot = static_cast<uint64_t>(x.cache_slot);
      g.set_home(id, device_of(slot / 2), slot % 2 == 0 ? k_bytes : v_bytes);
      continue;
    }
    if (!x.weight) continue;
    auto it = homes.find(x.name);
    if (x.name.ends_with(".rope_freqs.weight") && homes.contains("rope_freqs.weight")) {
      // Each block's duplicate lives with the block (TENSOR_DUPLICATED).
      g.set_home(id, device_of(static_cast<uint64_t>(std::max(x.layer, 0))), homes.find("rope_freqs.weight")->second.bytes);
    } else if (it != homes.end()) {
      g.set_home(id, it->second.device, it->second.bytes, it->second.offloadable);
    } else if (x.name == "output.weight" && homes.contains("token_embd.weight")) {
      const WeightHome& table = homes.find("token_embd.weight")->second;
      g.set_home(id, device_of(layers), table.bytes, table.offloadable);
    } else {
      return false;
    }
  }
  return true;
}

Result<std::optional<uint64_t>> replay_decoder_offload(const ModelSpec& spec, const LlamaCppContext& c,
                                                       const LlamaCppSettings& settings,
                                                       const std::vector<int>& device_of_layer,
                                                       const WeightHomes& homes, int offload_gpu, int device,
                                                       bool offload_get_rows) {
  std::optional<DecoderShape> s = decoder_shape(spec, c, settings, true);
  if (!s || !at_build_graph(*s, settings) || device_of_layer.empty()) return std::optional<uint64_t>();
  const std::optional<uint64_t> k_bytes = cache_tensor_bytes(s->attn, settings.cache_type_k);
  const std::optional<uint64_t> v_bytes = cache_tensor_bytes(s->attn, settings.cache_type_v);
  if (!k_bytes || !v_bytes) return std::optional<uint64_t>();
  const uint64_t seqs = std::max<uint64_t>(c.streams, 1);
  s->rope_freqs = homes.contains("rope_freqs.weight");
  bool covered = true;
  const ggml_graph::OffloadPlan plan{.offload_gpu = offload_gpu, .min_batch = 32, .get_rows = offload_get_rows};
  Result<uint64_t> bytes = reserve_bytes(c, seqs, kGpuTensorAlignment, [&](uint64_t n_tok, uint64_t n_out) {
    Graph full = build(*s, n_tok, n_out, true);
    covered = covered && set_homes(full, s->layers, homes, device_of_layer, *k_bytes, *v_bytes);
    if (!covered) return Graph();
    Result<Graph> split = ggml_graph::offload_split(full, plan, device);
    return split ? std::move(*split) : Graph();
  });
  if (!covered) return std::optional<uint64_t>();
  return replayed(std::move(bytes));
}

}  // namespace memfit::llamacpp::graph
