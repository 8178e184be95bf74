// The parameter blocks a config implies, for config-only weights
// (model/config/analytical_params.h).
#include "model/config/analytical_params.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "model/config/deepseek_v4_params.h"
#include "model/config/encoder_params.h"
#include "model/config/param_block_list.h"

namespace memfit {
namespace {

// The model types whose transformers config class defaults
// tie_word_embeddings to False (LlamaConfig and the configs written after
// it; DeepseekV2Config and DeepseekV3Config too: transformers'
// models/deepseek_v2/configuration_deepseek_v2.py and deepseek_v3/
// configuration_deepseek_v3.py, tie_word_embeddings = False);
// PretrainedConfig's own default, and SmolLM3's, is True.
bool unties_by_default(std::string_view model_type) {
  constexpr std::array<std::string_view, 9> kUntied = {"llama",     "mistral",   "mixtral",
                                                       "qwen2",     "qwen2_moe", "qwen3",
                                                       "qwen3_moe", "deepseek_v2", "deepseek_v3"};
  return std::find(kUntied.begin(), kUntied.end(), model_type) != kUntied.end();
}

uint64_t field(FieldReader& reader, std::initializer_list<std::string_view> aliases) {
  Result<std::optional<uint64_t>> v = reader.doc().u64(aliases);
  return v && v->has_value() ? **v : 0;
}

// A gated delta net's linear attention (transformers' Qwen3NextGatedDeltaNet
// and Qwen3_5GatedDeltaNet), with kd = key_heads x key_dim and vd =
// value_heads x value_dim: in_proj_qkvz [2 kd + 2 vd, hidden] (Qwen3.5
// stores it as in_proj_qkv and in_proj_z, the same rows), in_proj_ba
// [2 x value_heads, hidden], a depthwise conv1d over q, k and v [2 kd + vd,
// 1, kernel], dt_bias and A_log [value_heads] each, the gated RMSNorm
// [value_dim] and out_proj [hidden, vd]. Qwen3.5-27B (16 key heads and 48
// value heads of 128, kernel 4, hidden 5,120): 115,876,064 a layer.
void add_gated_delta(const GatedDeltaGeometry& d, uint64_t h, uint64_t layer, ParamBlockList& out) {
  const CheckedBytes kd = CheckedBytes(d.key_heads) * d.key_dim;
  const CheckedBytes vd = CheckedBytes(d.value_heads) * d.value_dim;
  out.add(ParamRole::kMixer, "linear_attn.in_proj_qkvz", layer, kd * 2 + vd * 2, h);
  out.add(ParamRole::kMixer, "linear_attn.in_proj_ba", layer, CheckedBytes(d.value_heads) * 2, h);
  out.add(ParamRole::kMixer, "linear_attn.conv1d", layer, kd * 2 + vd, d.kernel);
  out.add(ParamRole::kNorm, "linear_attn.dt_bias", layer, 1, d.value_heads);
  out.add(ParamRole::kNorm, "linear_attn.A_log", layer, 1, d.value_heads);
  out.add(ParamRole::kNorm, "linear_attn.norm", layer, 1, d.value_dim);
  out.add(ParamRole::kMixer, "linear_attn.out_proj", layer, h, vd);
}

// DeepSeek Sparse Attention's lightning indexer, in a layer of an MLA config
// that has index_topk (DeepSeek-V3.2, GLM-5: vLLM's deepseek_v2.py builds
// an Indexer where hasattr(config, "index_topk"), GlmMoeDsaForCausalLM
// being a DeepseekV2ForCausalLM). Its tensors (model.layers.N.self_attn.
// indexer.*): wq_b [index_n_heads x index_head_dim, q_lora_rank] and wk
// [index_head_dim, hidden], quantized as the checkpoint is; weights_proj
// [index_n_heads, hidden], built with quant_config=None, so 16-bit (priced
// as a router is: unquantized, whole on every rank); k_norm, a LayerNorm
// of index_head_dim with its bias. vLLM replicates all of them ("no tensor
// parallel, just replicated": ReplicatedLinear), as the tensor list's
// split does (engines/shared/parallel_tensors.cc).
void add_sparse_indexer(FieldReader& reader, uint64_t h, uint64_t q_rank, uint64_t layer, ParamBlockList& out) {
  if (field(reader, {"index_topk"}) == 0) return;
  const uint64_t heads = field(reader, {"index_n_heads"});
  const uint64_t dim = field(reader, {"index_head_dim"});
  out.add(ParamRole::kAttention, "self_attn.indexer.wq_b", layer, CheckedBytes(heads) * dim, q_rank);
  out.add(ParamRole::kAttention, "self_attn.indexer.wk", layer, dim, h);
  out.add(ParamRole::kRouter, "self_attn.indexer.weights_proj", layer, heads, h);
  out.add(ParamRole::kNorm, "self_attn.indexer.k_norm", layer, 2, dim);
}

// The attention of one layer: MLA's low-rank projections when the config
// has kv_lora_rank, else q/k/v/o.
void add_attention(FieldReader& reader, const ModelGeometry& g, bool qkv_bias, uint64_t layer,
                   ParamBlockList& out) {
  if (g.heads == 0 || g.head_dim == 0) return;
  const uint64_t h = g.hidden;
  const uint64_t rank = field(reader, {"kv_lora_rank"});
  if (rank == 0) {
    const CheckedBytes q = CheckedBytes(g.heads) * g.head_dim;
    const CheckedBytes kv = CheckedBytes(g.kv_heads) * g.head_dim;
    // A gated attention's q_proj also writes the output gate, one more
    // head_dim a head (transformers' Qwen3NextAttention, Qwen3_5Attention:
    // q_proj [heads x head_dim x 2, hidden], the gate's sigmoid scales the
    // attention output before o_proj).
    const uint64_t q_rows_per_q = gates_attention_output(reader) ? 2 : 1;
    out.add(ParamRole::kAttention, "self_attn.q_proj", layer, q * q_rows_per_q, h);
    out.add(ParamRole::kAttention, "self_attn.k_proj", layer, kv, h);
    out.add(ParamRole::kAttention, "self_attn.v_proj", layer, kv, h);
    out.add(ParamRole::kAttention, "self_attn.o_proj", layer, h, q);
    // ModelSpec::qkv_bias: they split with the heads.
    if (qkv_bias) {
      out.add(ParamRole::kAttention, "self_attn.q_proj.bias", layer, 1, q);
      out.add(ParamRole::kAttention, "self_attn.k_proj.bias", layer, 1, kv);
      out.add(ParamRole::kAttention, "self_attn.v_proj.bias", layer, 1, kv);
    }
    return;
  }
  const uint64_t q_rank = field(reader, {"q_lora_rank"});
  const uint64_t rope = field(reader, {"qk_rope_head_dim"});
  const uint64_t nope = field(reader, {"qk_nope_head_dim"});
  const uint64_t v = field(reader, {"v_head_dim"});
  const CheckedBytes q_heads = CheckedBytes(g.heads) * (CheckedBytes(nope) + rope);
  // The low-rank latents are normed before their up-projections
  // (transformers' DeepseekV3Attention: q_a_layernorm over q_lora_rank,
  // kv_a_layernorm over kv_lora_rank).
  if (q_rank > 0) {
    out.add(ParamRole::kAttention, "self_attn.q_a_proj", layer, q_rank, h);
    out.add(ParamRole::kNorm, "self_attn.q_a_layernorm", layer, 1, q_rank);
    out.add(ParamRole::kAttention, "self_attn.q_b_proj", layer, q_heads, q_rank);
  } else {
    out.add(ParamRole::kAttention, "self_attn.q_proj", layer, q_heads, h);
  }
  out.add(ParamRole::kAttention, "self_attn.kv_a_proj_with_mqa", layer, CheckedBytes(rank) + rope,
          h);
  out.add(ParamRole::kNorm, "self_attn.kv_a_layernorm", layer, 1, rank);
  out.add(ParamRole::kAttention, "self_attn.kv_b_proj", layer,
          CheckedBytes(g.heads) * (CheckedBytes(nope) + v), rank);
  out.add(ParamRole::kAttention, "self_attn.o_proj", layer, h, CheckedBytes(g.heads) * v);
  add_sparse_indexer(reader, h, q_rank, layer, out);
}

// A gated MLP of `inter` features, `copies` times.
void add_gated_mlp(ParamRole role, std::string_view gate, std::string_view up,
                   std::string_view down, uint64_t hidden, uint64_t inter, uint64_t layer,
                   uint64_t copies, ParamBlockList& out) {
  out.add(role, gate, layer, inter, hidden, copies);
  out.add(role, up, layer, inter, hidden, copies);
  out.add(role, down, layer, hidden, inter, copies);
}

// Whether layer `layer` of an MoE config routes to experts or keeps a dense
// MLP, as transformers builds it: DeepSeek / GLM-4.5 keep the first
// first_k_dense_replace layers dense and route every moe_layer_freq-th
// after; Qwen MoE routes every decoder_sparse_step-th layer not named in
// mlp_only_layers.
bool is_moe_layer(FieldReader& reader, uint64_t layer) {
  if (layer < field(reader, {"first_k_dense_replace"})) return false;
  const uint64_t freq = field(reader, {"moe_layer_freq"});
  if (freq > 1 && layer % freq != 0) return false;
  const uint64_t step = field(reader, {"decoder_sparse_step"});
  if (step > 1 && (layer + 1) % step != 0) return false;
  if (const nlohmann::json* dense = reader.doc().find("mlp_only_layers");
      dense != nullptr && dense->is_array()) {
    for (const nlohmann::json& v : *dense) {
      if (v.is_number_unsigned() && v.get<uint64_t>() == layer) return false;
    }
  }
  return true;
}

void add_mlp(FieldReader& reader, const ModelGeometry& g, uint64_t layer, ParamBlockList& out) {
  const uint64_t h = g.hidden;
  const uint64_t experts = field(reader, {"num_experts", "n_routed_experts", "num_local_experts"});
  if (experts == 0 || !is_moe_layer(reader, layer)) {
    add_gated_mlp(ParamRole::kMlp, "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", h,
                  g.intermediate, layer, 1, out);
    return;
  }
  uint64_t moe_inter = field(reader, {"moe_intermediate_size"});
  if (moe_inter == 0) moe_inter = g.intermediate;
  add_gated_mlp(ParamRole::kExperts, "mlp.experts.gate_proj", "mlp.experts.up_proj",
                "mlp.experts.down_proj", h, moe_inter, layer, experts, out);
  const uint64_t shared = field(reader, {"n_shared_experts", "num_shared_experts"});
  const uint64_t shared_inter = field(reader, {"shared_expert_intermediate_size"});
  add_gated_mlp(ParamRole::kSharedExperts, "mlp.shared_experts.gate_proj",
                "mlp.shared_experts.up_proj", "mlp.shared_experts.down_proj", h,
                shared_inter > 0 ? shared_inter : moe_inter, layer,
                shared_inter > 0 ? 1 : shared, out);
  out.add(ParamRole::kRouter, "mlp.gate", layer, experts, h);
}

// LFM2's short-convolution block (transformers' Lfm2ShortConv): in_proj
// [3 x hidden, hidden] (B, C and x), a depthwise Conv1d of conv_L_cache
// taps per channel [hidden, 1, L], out_proj [hidden, hidden]; biases of
// 3 x hidden, hidden and hidden when conv_bias.
bool is_gemma4(std::string_view model_type) {
  return model_type == "gemma4" || model_type == "gemma4_text";
}

// A Gemma 4 decoder layer as transformers' Gemma4TextDecoderLayer stores it
// and vLLM's models/gemma4.py (Gemma4DecoderLayer, Gemma4Attention,
// Gemma4Router, Gemma4MoE) loads it. With h the width, H the heads:
//   attention   q [H x d, h], k and v [kv x d, h], o [h, H x d]; q_norm and
//               k_norm d each (v_norm has no scale). A full-attention layer
//               has d = global_head_dim and, where the config sets them,
//               kv = num_global_key_value_heads (layer_plan.cc, global_shape);
//               with attention_k_eq_v it stores no v_proj (K serves as V)
//   MLP         gate, up [intermediate, h], down [h, intermediate]: on every
//               layer ("MLP runs unconditionally"), twice as wide on the
//               KV-shared layers with use_double_wide_mlp
//   MoE block   with enable_moe_block, beside the MLP: the experts
//               (moe_intermediate_size), the router's proj [experts, h] and
//               scale h, per_expert_scale (experts), and three more norms
//               (post_feedforward_layernorm_1, _2, pre_feedforward_layernorm_2)
//   norms       pre_ and post_feedforward_layernorm h each (input and
//               post_attention are added for every model)
//   per-layer   with hidden_size_per_layer_input p > 0 (E2B, E4B):
//   inputs      per_layer_input_gate [p, h], per_layer_projection [h, p],
//               post_per_layer_input_norm h (the model's own part is in
//               add_gemma4_per_layer_embeddings)
//   layer_scalar  one element (mlx-lm's gemma4_text.py DecoderLayer holds
//               it and loads it strictly; llama.cpp's converter writes it
//               as layer_output_scale)
void add_gemma4_layer(FieldReader& reader, const ModelGeometry& g, LayerKind kind, uint64_t layer,
                      ParamBlockList& out) {
  const uint64_t h = g.hidden;
  bool full = kind == LayerKind::kFullAttention;
  // A KV-shared layer (E2B, E4B) keeps its type in layer_types only.
  if (const nlohmann::json* types = reader.doc().find("layer_types");
      types != nullptr && types->is_array() && layer < types->size() && (*types)[layer].is_string()) {
    full = (*types)[layer].get_ref<const std::string&>() == "full_attention";
  }
  const uint64_t global_dim = field(reader, {"global_head_dim"});
  const uint64_t global_kv = field(reader, {"num_global_key_value_heads"});
  const uint64_t d = full && global_dim != 0 ? global_dim : g.head_dim;
  const uint64_t kv = full && global_kv != 0 ? global_kv : g.kv_heads;
  Result<std::optional<bool>> k_eq_v = reader.doc().boolean("attention_k_eq_v");
  const bool no_v = full && k_eq_v && k_eq_v->value_or(false);
  const CheckedBytes q = CheckedBytes(g.heads) * d;
  out.add(ParamRole::kAttention, "self_attn.q_proj", layer, q, h);
  out.add(ParamRole::kAttention, "self_attn.k_proj", layer, CheckedBytes(kv) * d, h);
  if (!no_v) out.add(ParamRole::kAttention, "self_attn.v_proj", layer, CheckedBytes(kv) * d, h);
  out.add(ParamRole::kAttention, "self_attn.o_proj", layer, h, q);
  out.add(ParamRole::kNorm, "self_attn.q_norm, k_norm", layer, 2, d);
  // use_double_wide_mlp doubles the MLP of the KV-shared layers, the last
  // num_kv_shared_layers (Gemma4DecoderLayer).
  const uint64_t shared = field(reader, {"num_kv_shared_layers"});
  Result<std::optional<bool>> wide = reader.doc().boolean("use_double_wide_mlp");
  const bool doubled = wide && wide->value_or(false) && shared > 0 && layer + shared >= g.layers;
  add_gated_mlp(ParamRole::kMlp, "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", h,
                g.intermediate * (doubled ? 2 : 1), layer, 1, out);
  out.add(ParamRole::kNorm, "pre_feedforward_layernorm, post_feedforward_layernorm", layer, 2, h);
  out.add(ParamRole::kNorm, "layer_scalar", layer, 1, 1);
  if (const uint64_t p = field(reader, {"hidden_size_per_layer_input"}); p != 0) {
    out.add(ParamRole::kMlp, "per_layer_input_gate", layer, p, h);
    out.add(ParamRole::kMlp, "per_layer_projection", layer, h, p);
    out.add(ParamRole::kNorm, "post_per_layer_input_norm", layer, 1, h);
  }
  Result<std::optional<bool>> moe = reader.doc().boolean("enable_moe_block");
  const uint64_t experts = field(reader, {"num_experts"});
  if (!moe || !moe->value_or(false) || experts == 0) return;
  const uint64_t width = field(reader, {"moe_intermediate_size"});
  add_gated_mlp(ParamRole::kExperts, "experts.gate_proj", "experts.up_proj", "experts.down_proj",
                h, width, layer, experts, out);
  out.add(ParamRole::kRouter, "router.proj", layer, experts, h);
  // The router's scale and per_expert_scale are plain vectors (mlx-lm's
  // gemma4_text.py Router: mx.ones, no Linear, so quantize_model's
  // to_quantized test passes them by): never quantized, as a norm.
  out.add(ParamRole::kNorm, "router.scale, per_expert_scale", layer, 1, CheckedBytes(h) + experts);
  out.add(ParamRole::kNorm, "post_feedforward_layernorm_1, _2, pre_feedforward_layernorm_2", layer,
          3, h);
}

// A Gemma 4 model's per-layer embeddings (hidden_size_per_layer_input p >
// 0: E2B, E4B), as transformers' Gemma4TextModel stores them and mlx-lm's
// gemma4_text.py (Gemma4TextModel) loads them, with L layers, h the width:
// embed_tokens_per_layer [vocab_size_per_layer_input, L x p] (an
// Embedding: mlx_lm.convert quantizes it, its groups along L x p),
// per_layer_model_projection [L x p, h] and per_layer_projection_norm p.
void add_gemma4_per_layer_embeddings(FieldReader& reader, const ModelGeometry& g,
                                     ParamBlockList& out) {
  if (!is_gemma4(reader.model_type())) return;
  const uint64_t p = field(reader, {"hidden_size_per_layer_input"});
  if (p == 0) return;
  const uint64_t vocab = field(reader, {"vocab_size_per_layer_input"});
  const CheckedBytes width = CheckedBytes(g.layers) * p;
  out.add(ParamRole::kEmbedding, "embed_tokens_per_layer", std::nullopt,
          vocab != 0 ? vocab : g.vocab, width);
  out.add(ParamRole::kMlp, "per_layer_model_projection", std::nullopt, width, g.hidden);
  out.add(ParamRole::kNorm, "per_layer_projection_norm", std::nullopt, 1, p);
}

void add_short_conv(FieldReader& reader, const ModelGeometry& g, uint64_t layer,
                    ParamBlockList& out) {
  const uint64_t h = g.hidden;
  Result<uint64_t> taps = reader.u64_or({"conv_L_cache"}, 3, "Lfm2Config's default");
  out.add(ParamRole::kMixer, "conv.in_proj", layer, CheckedBytes(3) * h, h);
  out.add(ParamRole::kMixer, "conv.conv", layer, h, taps ? *taps : 3);
  out.add(ParamRole::kMixer, "conv.out_proj", layer, h, h);
  Result<std::optional<bool>> bias = reader.doc().boolean("conv_bias");
  if (bias && bias->value_or(false)) {
    out.add(ParamRole::kNorm, "conv.in_proj.bias", layer, 1, CheckedBytes(3) * h);
    out.add(ParamRole::kNorm, "conv.conv.bias", layer, 1, h);
    out.add(ParamRole::kNorm, "conv.out_proj.bias", layer, 1, h);
  }
}

// The norms a layer keeps besides input_layernorm and
// post_attention_layernorm: Gemma 2 and 3 norm the MLP's input and output
// too (pre_ and post_feedforward_layernorm, [hidden] each), and Gemma 3 and
// LFM2 norm each head's query and key ([head_dim] each) on attention
// layers (transformers' modeling_gemma3.py, modeling_lfm2.py).
void add_family_norms(std::string_view model_type, const ModelGeometry& g, bool attention,
                      uint64_t layer, ParamBlockList& out) {
  const bool gemma3 = model_type == "gemma3" || model_type == "gemma3_text";
  if (gemma3 || model_type == "gemma2") {
    out.add(ParamRole::kNorm, "pre_feedforward_layernorm", layer, 1, g.hidden);
    out.add(ParamRole::kNorm, "post_feedforward_layernorm", layer, 1, g.hidden);
  }
  if (attention && (gemma3 || model_type == "lfm2")) {
    out.add(ParamRole::kNorm, "self_attn.q_norm", layer, 1, g.head_dim);
    out.add(ParamRole::kNorm, "self_attn.k_norm", layer, 1, g.head_dim);
  }
}

// gpt-oss's vectors beside its matrices, 16-bit in the checkpoint
// (transformers' GptOssAttention and GptOssMLP; vLLM's
// model_executor/models/gpt_oss.py): the q/k/v/o biases when
// attention_bias (GptOssConfig's default True), one attention sink per
// head, the router's bias, and each routed expert's gate_up bias (2 x its
// width) and down bias (hidden). Attention's vectors split with their
// heads, the experts' with their width: roles that TP splits and MXFP4
// leaves unquantized.
void add_gpt_oss_vectors(FieldReader& reader, const ModelGeometry& g, uint64_t layer,
                         ParamBlockList& out) {
  if (reader.model_type() != "gpt_oss") return;
  const CheckedBytes q = CheckedBytes(g.heads) * g.head_dim;
  const CheckedBytes kv = CheckedBytes(g.kv_heads) * g.head_dim;
  Result<std::optional<bool>> bias = reader.doc().boolean("attention_bias");
  if (!bias || bias->value_or(true)) {
    out.add(ParamRole::kAttention, "self_attn.q_proj.bias", layer, 1, q);
    out.add(ParamRole::kAttention, "self_attn.k_proj.bias", layer, 1, kv);
    out.add(ParamRole::kAttention, "self_attn.v_proj.bias", layer, 1, kv);
    out.add(ParamRole::kAttention, "self_attn.o_proj.bias", layer, 1, g.hidden);
  }
  out.add(ParamRole::kAttention, "self_attn.sinks", layer, 1, g.heads);
  const uint64_t experts = field(reader, {"num_local_experts"});
  out.add(ParamRole::kRouter, "mlp.router.bias", layer, 1, experts);
  out.add(ParamRole::kMlp, "mlp.experts.gate_up_proj_bias", layer, 1,
          CheckedBytes(2) * g.intermediate, experts);
  out.add(ParamRole::kMlp, "mlp.experts.down_proj_bias", layer, 1, g.hidden, experts);
}

uint64_t json_u64(const nlohmann::json& object, std::string_view key, uint64_t fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_unsigned() ? it->get<uint64_t>() : fallback;
}

// A string field of `object`; `fallback` when absent, null or not a string.
std::string_view json_text(const nlohmann::json& object, std::string_view key,
                           std::string_view fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : fallback;
}

// The config's vision_config object; nullptr when absent or not an
// object.
const nlohmann::json* vision_config(const ConfigDocument& doc) {
  auto it = doc.top().find("vision_config");
  return it == doc.top().end() || !it->is_object() ? nullptr : &*it;
}

// A Gemma 3 config's vision tower, a SigLIP encoder without its head
// (transformers' SiglipVisionTransformer, vision_use_head false), and the
// projector into the text model (Gemma3MultiModalProjector). With v the
// vision width, f its MLP width, p the patch and n = (image / p)^2 patches:
//   patch_embedding  [v, channels x p x p] + bias v
//   position_embedding [n, v]
//   per layer        q, k, v, out [v, v] + bias v each; fc1 [f, v] + f;
//                    fc2 [v, f] + v; layer_norm1 and 2, weight and bias
//   post_layernorm   weight and bias
//   projector        mm_input_projection [v, text hidden]; mm_soft_emb_norm v
// Nothing for another model or a vision_config this does not describe.
void add_gemma3_vision(const ConfigDocument& doc, const ModelGeometry& g, ParamBlockList& out) {
  if (json_text(doc.top(), "model_type", "") != "gemma3") return;
  const nlohmann::json* found = vision_config(doc);
  if (found == nullptr) return;
  const nlohmann::json& vision = *found;
  if (json_text(vision, "model_type", "siglip_vision_model") != "siglip_vision_model") return;
  const uint64_t v = json_u64(vision, "hidden_size", 0);
  const uint64_t f = json_u64(vision, "intermediate_size", 0);
  const uint64_t layers = json_u64(vision, "num_hidden_layers", 0);
  const uint64_t patch = json_u64(vision, "patch_size", 0);
  const uint64_t image = json_u64(vision, "image_size", 0);
  const uint64_t channels = json_u64(vision, "num_channels", 3);
  if (v == 0 || patch == 0) return;
  const uint64_t side = image / patch;
  out.add(ParamRole::kVision, "vision_tower.embeddings.patch_embedding", std::nullopt, v,
          CheckedBytes(channels) * patch * patch);
  out.add(ParamRole::kVision, "vision_tower.embeddings.patch_embedding.bias", std::nullopt, 1, v);
  out.add(ParamRole::kVision, "vision_tower.embeddings.position_embedding", std::nullopt,
          CheckedBytes(side) * side, v);
  // Each encoder layer's blocks, `layers` copies of each.
  for (std::string_view proj : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                "self_attn.out_proj"}) {
    out.add(ParamRole::kVision, proj, std::nullopt, v, v, layers);
    out.add(ParamRole::kVision, proj, std::nullopt, 1, v, layers);  // its bias
  }
  out.add(ParamRole::kVision, "mlp.fc1", std::nullopt, f, v, layers);
  out.add(ParamRole::kVision, "mlp.fc1.bias", std::nullopt, 1, f, layers);
  out.add(ParamRole::kVision, "mlp.fc2", std::nullopt, v, f, layers);
  out.add(ParamRole::kVision, "mlp.fc2.bias", std::nullopt, 1, v, layers);
  out.add(ParamRole::kVision, "layer_norm", std::nullopt, 4, v, layers);  // two, weight and bias
  out.add(ParamRole::kVision, "vision_tower.post_layernorm", std::nullopt, 2, v);
  out.add(ParamRole::kVision, "multi_modal_projector.mm_input_projection_weight", std::nullopt, v,
          g.hidden);
  out.add(ParamRole::kVision, "multi_modal_projector.mm_soft_emb_norm", std::nullopt, 1, v);
}

// The geometry both Qwen vision towers (Qwen2.5-VL's and Qwen3-VL's) read
// from vision_config: v the width, f the MLP width, the blocks, the spatial
// and temporal patch, the channels (in_chans, else in_channels, else 3), o
// the text width and m the spatial merge. Nothing when any is missing or 0.
struct QwenVisionGeometry {
  uint64_t v = 0, f = 0, depth = 0, patch = 0, temporal = 0, channels = 0, o = 0, merge = 0;
};
std::optional<QwenVisionGeometry> qwen_vision_geometry(const nlohmann::json& vision) {
  QwenVisionGeometry g;
  g.v = json_u64(vision, "hidden_size", 0);
  g.f = json_u64(vision, "intermediate_size", 0);
  g.depth = json_u64(vision, "depth", 0);
  g.patch = json_u64(vision, "patch_size", 0);
  g.temporal = json_u64(vision, "temporal_patch_size", 0);
  g.channels = json_u64(vision, "in_chans", json_u64(vision, "in_channels", 3));
  g.o = json_u64(vision, "out_hidden_size", 0);
  g.merge = json_u64(vision, "spatial_merge_size", 0);
  if (g.v == 0 || g.f == 0 || g.depth == 0 || g.patch == 0 || g.temporal == 0 || g.o == 0 || g.merge == 0) {
    return std::nullopt;
  }
  return g;
}

// Each block's attention in both towers: qkv [3v, v] + 3v, proj [v, v] + v.
void add_qwen_vision_attention(const QwenVisionGeometry& g, ParamBlockList& out) {
  out.add(ParamRole::kVision, "attn.qkv", std::nullopt, CheckedBytes(3) * g.v, g.v, g.depth);
  out.add(ParamRole::kVision, "attn.qkv.bias", std::nullopt, 1, CheckedBytes(3) * g.v, g.depth);
  out.add(ParamRole::kVision, "attn.proj", std::nullopt, g.v, g.v, g.depth);
  out.add(ParamRole::kVision, "attn.proj.bias", std::nullopt, 1, g.v, g.depth);
}

// A Qwen3-VL or Qwen3.5 config's vision tower (transformers'
// Qwen3VLVisionModel; vLLM's Qwen3_VisionTransformer in
// vllm/model_executor/models/qwen3_vl.py, which Qwen3.5's models reuse and
// load: only the "mtp." weights are skipped, qwen3_5.py load_weights).
// With v the vision width, f its MLP width, c channels, t the temporal and
// p the spatial patch, n position embeddings, o the text width, m the
// spatial merge and vm = v m^2:
//   patch_embed      Conv3d [v, c x t x p x p] + bias v
//   pos_embed        [n, v]
//   per block        norm1, norm2 (LayerNorm: weight and bias); qkv [3v, v]
//                    + 3v; proj [v, v] + v; linear_fc1 [f, v] + f;
//                    linear_fc2 [v, f] + v
//   merger           norm (v: weight and bias); linear_fc1 [vm, vm] + vm;
//                    linear_fc2 [o, vm] + o
//   deepstack        one merger per deepstack_visual_indexes entry, its
//                    norm over vm (use_postshuffle_norm)
// vLLM splits the linear layers over tensor parallelism (Column/Row
// ParallelLinear) and keeps the patch and position embeddings and the norms
// whole on every rank, some 1 % of the tower (model_spec.cc counts them in
// replicated_params: qwen_vision_whole_on_rank names them).
// Nothing for a vision_config this does not describe.
void add_qwen3_vl_vision(const ConfigDocument& doc, ParamBlockList& out) {
  const std::string_view type = json_text(doc.top(), "model_type", "");
  if (type != "qwen3_vl" && type != "qwen3_vl_moe" && type != "qwen3_5" && type != "qwen3_5_moe") {
    return;
  }
  const nlohmann::json* found = vision_config(doc);
  if (found == nullptr) return;
  const nlohmann::json& vision = *found;
  const std::optional<QwenVisionGeometry> g = qwen_vision_geometry(vision);
  if (!g) return;
  const auto [v, f, depth, patch, temporal, channels, o, merge] = *g;
  const uint64_t positions = json_u64(vision, "num_position_embeddings", 0);
  auto deepstack = vision.find("deepstack_visual_indexes");
  const uint64_t stacks = deepstack != vision.end() && deepstack->is_array() ? deepstack->size() : 0;
  const CheckedBytes vm = CheckedBytes(v) * merge * merge;
  out.add(ParamRole::kVision, "visual.patch_embed.proj", std::nullopt, v,
          CheckedBytes(channels) * temporal * patch * patch);
  out.add(ParamRole::kVision, "visual.patch_embed.proj.bias", std::nullopt, 1, v);
  out.add(ParamRole::kVision, "visual.pos_embed", std::nullopt, positions, v);
  add_qwen_vision_attention(*g, out);
  out.add(ParamRole::kVision, "mlp.linear_fc1", std::nullopt, f, v, depth);
  out.add(ParamRole::kVision, "mlp.linear_fc1.bias", std::nullopt, 1, f, depth);
  out.add(ParamRole::kVision, "mlp.linear_fc2", std::nullopt, v, f, depth);
  out.add(ParamRole::kVision, "mlp.linear_fc2.bias", std::nullopt, 1, v, depth);
  out.add(ParamRole::kVision, "norm1, norm2", std::nullopt, 4, v, depth);  // weight and bias each
  // The merger (its norm over v), then the deepstack mergers as `stacks`
  // copies of one (their norms over vm): no block per array entry.
  out.add(ParamRole::kVision, "merger.norm", std::nullopt, 2, v);
  out.add(ParamRole::kVision, "deepstack_merger_list.norm", std::nullopt, 2, vm, stacks);
  for (const auto& [name, copies] : {std::pair<std::string_view, uint64_t>{"merger", 1},
                                     {"deepstack_merger_list", stacks}}) {
    out.add(ParamRole::kVision, name, std::nullopt, vm, vm, copies);  // linear_fc1
    out.add(ParamRole::kVision, name, std::nullopt, 1, vm, copies);   // its bias
    out.add(ParamRole::kVision, name, std::nullopt, o, vm, copies);   // linear_fc2
    out.add(ParamRole::kVision, name, std::nullopt, 1, o, copies);    // its bias
  }
}

// A Qwen2.5-VL config's vision tower (transformers'
// Qwen2_5_VisionTransformerPretrainedModel; vLLM's Qwen2_5_VisionTransformer
// in vllm/model_executor/models/qwen2_5_vl.py, the same tensors). With v
// the vision width (hidden_size), f its MLP width, c channels (in_chans),
// t the temporal and p the spatial patch, o the text width
// (out_hidden_size), m the spatial merge and vm = v m^2:
//   patch_embed      Conv3d [v, c x t x p x p], no bias
//   per block        norm1, norm2 (RMSNorm: weight v); qkv [3v, v] + 3v;
//                    proj [v, v] + v; gate_proj, up_proj [f, v] + f each;
//                    down_proj [v, f] + v
//   merger           ln_q (RMSNorm over v); mlp.0 [vm, vm] + vm; mlp.2 [o,
//                    vm] + o
// The rotary table is a buffer, not a weight; window attention
// (window_size, fullatt_block_indexes) adds none. Qwen2-VL's tower
// (qwen2_vl.py: LayerNorms with biases, a two-layer fc1/fc2 MLP) is not
// this one and is not counted. vLLM splits the linear layers over tensor
// parallelism and keeps the patch embedding and the norms whole, as for
// Qwen3-VL above.
// Nothing for a vision_config this does not describe.
void add_qwen25_vl_vision(const ConfigDocument& doc, ParamBlockList& out) {
  if (json_text(doc.top(), "model_type", "") != "qwen2_5_vl") return;
  const nlohmann::json* found = vision_config(doc);
  if (found == nullptr) return;
  const std::optional<QwenVisionGeometry> g = qwen_vision_geometry(*found);
  if (!g) return;
  const auto [v, f, depth, patch, temporal, channels, o, merge] = *g;
  const CheckedBytes vm = CheckedBytes(v) * merge * merge;
  out.add(ParamRole::kVision, "visual.patch_embed.proj", std::nullopt, v,
          CheckedBytes(channels) * temporal * patch * patch);
  add_qwen_vision_attention(*g, out);
  out.add(ParamRole::kVision, "mlp.gate_proj, up_proj", std::nullopt, CheckedBytes(2) * f, v, depth);
  out.add(ParamRole::kVision, "mlp.gate_proj, up_proj bias", std::nullopt, 1, CheckedBytes(2) * f,
          depth);
  out.add(ParamRole::kVision, "mlp.down_proj", std::nullopt, v, f, depth);
  out.add(ParamRole::kVision, "mlp.down_proj.bias", std::nullopt, 1, v, depth);
  out.add(ParamRole::kVision, "norm1, norm2", std::nullopt, 2, v, depth);  // weight only
  out.add(ParamRole::kVision, "visual.merger.ln_q", std::nullopt, 1, v);
  out.add(ParamRole::kVision, "visual.merger.mlp.0", std::nullopt, vm, vm);
  out.add(ParamRole::kVision, "visual.merger.mlp.0.bias", std::nullopt, 1, vm);
  out.add(ParamRole::kVision, "visual.merger.mlp.2", std::nullopt, o, vm);
  out.add(ParamRole::kVision, "visual.merger.mlp.2.bias", std::nullopt, 1, o);
}

// A Gemma 4 config's vision tower (transformers' Gemma4VisionModel,
// vision_config model_type gemma4_vision) and its embedder into the text
// model (Gemma4MultimodalEmbedder, "embed_vision"). With v the vision
// width, f its MLP width, p the patch, n position_embedding_size, d the
// attention head width (head_dim), h and kv the heads and o the text width:
//   patch_embedder   input_proj [v, 3 x p x p] (no bias); the position
//                    table [2 x n, v]
//   per layer        q and o [h x d, v], k and v [kv x d, v] (no biases);
//                    q_norm and k_norm d each (v_norm has no scale);
//                    gate, up [f, v] and down [v, f]; four RMSNorms v
//   standardize      std_bias and std_scale, v each, when the config says so
//   embed_vision     embedding_projection [o, v] (its norm has no scale)
// Nothing for a vision_config this does not describe.
void add_gemma4_vision(const ConfigDocument& doc, const ModelGeometry& g, ParamBlockList& out) {
  if (json_text(doc.top(), "model_type", "") != "gemma4") return;
  const nlohmann::json* found = vision_config(doc);
  if (found == nullptr) return;
  const nlohmann::json& vision = *found;
  if (json_text(vision, "model_type", "") != "gemma4_vision") return;
  const uint64_t v = json_u64(vision, "hidden_size", 0);
  const uint64_t f = json_u64(vision, "intermediate_size", 0);
  const uint64_t layers = json_u64(vision, "num_hidden_layers", 0);
  const uint64_t patch = json_u64(vision, "patch_size", 0);
  const uint64_t positions = json_u64(vision, "position_embedding_size", 0);
  const uint64_t heads = json_u64(vision, "num_attention_heads", 0);
  const uint64_t kv = json_u64(vision, "num_key_value_heads", heads);
  const uint64_t d = json_u64(vision, "head_dim", heads == 0 ? 0 : v / heads);
  if (v == 0 || f == 0 || layers == 0 || patch == 0 || heads == 0 || d == 0) return;
  out.add(ParamRole::kVision, "vision_tower.patch_embedder.input_proj", std::nullopt, v,
          CheckedBytes(3) * patch * patch);
  out.add(ParamRole::kVision, "vision_tower.patch_embedder.position_embedding_table",
          std::nullopt, CheckedBytes(2) * positions, v);
  out.add(ParamRole::kVision, "self_attn.q_proj", std::nullopt, CheckedBytes(heads) * d, v, layers);
  out.add(ParamRole::kVision, "self_attn.k_proj", std::nullopt, CheckedBytes(kv) * d, v, layers);
  out.add(ParamRole::kVision, "self_attn.v_proj", std::nullopt, CheckedBytes(kv) * d, v, layers);
  out.add(ParamRole::kVision, "self_attn.o_proj", std::nullopt, v, CheckedBytes(heads) * d, layers);
  out.add(ParamRole::kVision, "self_attn.q_norm, k_norm", std::nullopt, 2, d, layers);
  out.add(ParamRole::kVision, "mlp.gate_proj", std::nullopt, f, v, layers);
  out.add(ParamRole::kVision, "mlp.up_proj", std::nullopt, f, v, layers);
  out.add(ParamRole::kVision, "mlp.down_proj", std::nullopt, v, f, layers);
  out.add(ParamRole::kVision, "layernorms", std::nullopt, 4, v, layers);
  auto standardize = vision.find("standardize");
  if (standardize != vision.end() && standardize->is_boolean() && standardize->get<bool>()) {
    out.add(ParamRole::kVision, "vision_tower.std_bias, std_scale", std::nullopt, 2, v);
  }
  out.add(ParamRole::kVision, "embed_vision.embedding_projection", std::nullopt, g.hidden, v);
}

}  // namespace

std::vector<ParamBlock> analytical_param_blocks(FieldReader& reader, const ModelSpec& spec) {
  if (counts_as_bert_encoder(reader.model_type())) return encoder_param_blocks(reader, spec);
  if (!spec.compressed_attention.compress_ratios.empty()) return deepseek_v4_param_blocks(reader, spec);
  const ModelGeometry& g = spec.geometry;
  if (g.layers == 0 || g.hidden == 0) return {};
  const uint64_t h = g.hidden;
  ParamBlockList out;
  for (uint64_t i = 0; i < spec.layers.size(); ++i) {
    const LayerKind kind = spec.layers[i].kind;
    switch (kind) {
      case LayerKind::kConv: add_short_conv(reader, g, i, out); break;
      case LayerKind::kLinearAttention:
        if (spec.gated_delta.key_heads > 0) {
          add_gated_delta(spec.gated_delta, h, i, out);
          break;
        }
        [[fallthrough]];
      case LayerKind::kSsm: {
        const CheckedBytes d =
            g.intermediate > 0 ? CheckedBytes(g.intermediate) : CheckedBytes(2) * h;
        out.add(ParamRole::kMixer, "mixer.in_proj", i, CheckedBytes(2) * d, h);
        out.add(ParamRole::kMixer, "mixer.out_proj", i, h, d);
        break;
      }
      default:
        if (is_gemma4(reader.model_type())) {
          add_gemma4_layer(reader, g, kind, i, out);
          break;
        }
        add_attention(reader, g, spec.qkv_bias, i, out);
        break;
    }
    // A Mamba / RWKV block is its mixer; a Gemma 4 layer's MLP is above.
    if (spec.layout != "ssm" && !is_gemma4(reader.model_type())) add_mlp(reader, g, i, out);
    out.add(ParamRole::kNorm, "input_layernorm", i, 1, h);
    out.add(ParamRole::kNorm, "post_attention_layernorm", i, 1, h);
    const bool attention = kind != LayerKind::kConv && kind != LayerKind::kSsm &&
                           kind != LayerKind::kLinearAttention;
    add_family_norms(reader.model_type(), g, attention, i, out);
    add_gpt_oss_vectors(reader, g, i, out);
  }
  add_gemma3_vision(reader.doc(), g, out);
  add_qwen3_vl_vision(reader.doc(), out);
  add_qwen25_vl_vision(reader.doc(), out);
  add_gemma4_vision(reader.doc(), g, out);
  add_gemma4_per_layer_embeddings(reader, g, out);
  out.add(ParamRole::kEmbedding, "embed_tokens", std::nullopt, g.vocab, h);
  Result<std::optional<bool>> tied = reader.doc().boolean("tie_word_embeddings");
  if (tied && !tied->has_value() && !reader.doc().text_key().empty()) {
    // A composite (multimodal) config may state it beside its text config
    // only, for the whole model: Qwen3.5's Qwen3_5*ForConditionalGeneration
    // configs say false at the top and nothing in text_config, and their
    // GGUFs carry an output.weight (the Q8_0 dump of Qwen3.5-35B-A3B,
    // llamacpp-mrsnow-qwen35-35b-a3b-q8_0-4x-a6000.log: 733 tensors).
    const nlohmann::json& top = reader.doc().top();
    auto it = top.find("tie_word_embeddings");
    if (it != top.end() && it->is_boolean()) *tied = it->get<bool>();
  }
  if (tied && !tied->has_value() && reader.doc().takes_family_defaults() &&
      unties_by_default(reader.model_type())) {
    // transformers' LlamaConfig (and Mistral's, Mixtral's, the Qwen2/3
    // and their MoE configs) default tie_word_embeddings to False, unlike
    // PretrainedConfig's True: a config that leaves it out has an lm_head.
    reader.assume(fmt::format("tie_word_embeddings = false ({} default)", reader.model_type()));
    *tied = false;
  }
  if (tied && tied->has_value() && !**tied) {
    out.add(ParamRole::kLmHead, "lm_head", std::nullopt, g.vocab, h);
  }
  out.add(ParamRole::kNorm, "norm", std::nullopt, 1, h);
  return out.take();
}

bool gates_attention_output(FieldReader& reader) {
  Result<std::optional<bool>> gate = reader.doc().boolean("attn_output_gate");
  if (gate && gate->has_value()) return **gate;
  return reader.model_type() == "qwen3_next";
}

uint64_t count_parameters(const std::vector<ParamBlock>& blocks) {
  CheckedBytes total = 0;
  for (const ParamBlock& b : blocks) total += CheckedBytes(b.rows) * b.cols * b.copies;
  return total.saturated();
}

}  // namespace memfit
