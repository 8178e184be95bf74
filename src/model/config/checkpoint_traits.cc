// A config's weight quantization and mixture-of-experts shape
// (model/config/checkpoint_traits.h).
#include "model/config/checkpoint_traits.h"

#include <algorithm>

namespace memfit {
namespace {

using Json = nlohmann::json;

uint64_t u64_field(const Json& object, std::string_view name) {
  if (!object.is_object()) return 0;
  auto it = object.find(name);
  if (it == object.end()) return 0;
  Result<uint64_t> v = json_to_u64(*it, name);
  return v ? *v : 0;
}

bool true_field(const Json& object, std::string_view name) {
  if (!object.is_object()) return false;
  auto it = object.find(name);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

// The quantization block: the text config's, else the top level's.
const Json* find_block(const ConfigDocument& doc, std::string_view name) {
  for (const Json* scope : {&doc.text(), &doc.top()}) {
    auto it = scope->find(name);
    if (it != scope->end() && it->is_object()) return &*it;
  }
  return nullptr;
}

// Appends the strings of the array `object[name]` (other entries skipped),
// up to kMaxQuantModules in `out`.
void append_strings(const Json& object, std::string_view name, std::vector<std::string>& out) {
  if (!object.is_object()) return;
  auto it = object.find(name);
  if (it == object.end() || !it->is_array()) return;
  for (const Json& v : *it) {
    if (out.size() >= kMaxQuantModules) return;
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
}

// MLX per-module settings: every key of the quantization block other than
// its own fields, holding {"bits", "group_size"} or false.
void read_mlx_overrides(const Json& mlx, QuantizationInfo& q) {
  for (const auto& [key, value] : mlx.items()) {
    if (q.module_overrides.size() >= kMaxQuantModules) return;
    if (key == "bits" || key == "group_size" || key == "mode") continue;
    if (value.is_boolean() && !value.get<bool>()) {
      q.module_overrides.push_back({key, 0, 0});
    } else if (value.is_object()) {
      uint64_t bits = u64_field(value, "bits");
      q.module_overrides.push_back({key, bits > 0 ? bits : q.bits, u64_field(value, "group_size")});
    }
  }
}

// compressed-tensors: config_groups.<group>.weights.{num_bits, group_size}.
void read_compressed_tensors(const Json& config, QuantizationInfo& q) {
  auto groups = config.find("config_groups");
  if (groups == config.end() || !groups->is_object()) return;
  for (const auto& [name, group] : groups->items()) {
    auto weights = group.find("weights");  // end() when group is not an object
    if (weights == group.end()) continue;
    q.bits = u64_field(*weights, "num_bits");
    q.group_size = u64_field(*weights, "group_size");
    return;
  }
}

}  // namespace

QuantizationInfo read_quantization(const ConfigDocument& doc) {
  QuantizationInfo q;
  if (const Json* config = find_block(doc, "quantization_config")) {
    auto method = config->find("quant_method");
    if (method != config->end() && method->is_string()) q.method = method->get<std::string>();
    q.bits = u64_field(*config, "bits");
    q.group_size = u64_field(*config, "group_size");
    if (q.method == "compressed-tensors") read_compressed_tensors(*config, q);
    if (true_field(*config, "load_in_8bit") || true_field(*config, "_load_in_8bit")) {
      q.method = "bitsandbytes";
      q.bits = 8;
    } else if (true_field(*config, "load_in_4bit") || true_field(*config, "_load_in_4bit")) {
      q.method = "bitsandbytes";
      q.bits = 4;
    }
    for (std::string_view list :
         {"modules_to_not_convert", "ignored_layers", "ignore", "llm_int8_skip_modules"}) {
      append_strings(*config, list, q.unquantized_modules);
    }
    q.lm_head_quantized = true_field(*config, "lm_head");
    q.double_quant = true_field(*config, "bnb_4bit_use_double_quant");
    if (q.method == "mxfp4" && q.bits == 0) q.bits = 4;
    if (q.method == "fp8" && q.bits == 0) q.bits = 8;
    auto block = config->find("weight_block_size");
    if (block != config->end() && block->is_array()) {
      for (const Json& dim : *block) {
        Result<uint64_t> v = json_to_u64(dim, "weight_block_size");
        if (v) q.block_size.push_back(*v);
      }
    }
  }
  // MLX: "quantization": {"group_size": 64, "bits": 4}; it wins, since an
  // MLX checkpoint's copy of quantization_config carries no quant_method.
  if (const Json* mlx = find_block(doc, "quantization")) {
    q = QuantizationInfo{};
    q.method = "mlx_affine";
    q.bits = u64_field(*mlx, "bits");
    q.group_size = u64_field(*mlx, "group_size");
    read_mlx_overrides(*mlx, q);
  }
  if (q.method.empty() && (q.bits != 0 || q.group_size != 0)) q.method = "unnamed";
  return q;
}

// DeepSeek V4 stores its routed experts as MXFP4 beside FP8 block linears
// unless its config says expert_dtype "fp8" (the Flash-Base checkpoints):
// vLLM's DeepseekV4FP8Config reads expert_dtype, "fp4" when absent, and
// gives the experts Mxfp4MoEMethod (models/deepseek_v4.py).
bool deepseek_v4_fp4_experts(const ConfigDocument& doc) {
  for (const Json* scope : {&doc.text(), &doc.top()}) {
    auto type = scope->find("model_type");
    if (type == scope->end() || !type->is_string() || type->get<std::string>() != "deepseek_v4") continue;
    auto dtype = scope->find("expert_dtype");
    return dtype == scope->end() || !dtype->is_string() || dtype->get<std::string>() != "fp8";
  }
  return false;
}

MoeInfo read_moe(const ConfigDocument& doc) {
  MoeInfo moe;
  auto first = [&](std::initializer_list<std::string_view> aliases) -> uint64_t {
    Result<std::optional<uint64_t>> v = doc.u64(aliases);
    return v && v->has_value() ? **v : 0;
  };
  moe.experts = first({"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"});
  if (moe.experts <= 1) return MoeInfo{};
  moe.experts_per_token =
      first({"num_experts_per_tok", "num_experts_per_token", "moe_topk", "top_k", "moe_k"});
  // ERNIE 4.5's MoE config names it moe_num_shared_experts (its
  // converter writes it as expert_shared_count).
  moe.shared_experts = first({"n_shared_experts", "num_shared_experts", "moe_num_shared_experts"});
  moe.expert_intermediate = first({"moe_intermediate_size"});
  // Qwen2-MoE's shared_expert_intermediate_size; NemotronHConfig's
  // moe_shared_expert_intermediate_size and GraniteMoeHybridConfig's (and
  // GraniteMoeSharedConfig's) shared_intermediate_size name the same width
  // (transformers' configuration_nemotron_h.py, configuration_granitemoehybrid.py;
  // their GGUFs' expert_shared_feed_forward_length).
  moe.shared_expert_intermediate = first(
      {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size", "shared_intermediate_size"});
  if (moe.shared_experts == 0 && moe.shared_expert_intermediate > 0) moe.shared_experts = 1;
  // transformers divides by the step: 0 would not load; read as 1.
  // Llama 4's interleave_moe_layer_step (its GGUF's
  // <arch>.interleave_moe_layer_step) routes every step-th layer the same
  // way (llama_model_llama4::load_arch_tensors: (i + 1) % step == 0).
  moe.decoder_sparse_step =
      std::max<uint64_t>(1, first({"decoder_sparse_step", "interleave_moe_layer_step"}));
  if (const nlohmann::json* dense = doc.find("mlp_only_layers"); dense && dense->is_array()) {
    // Layer indices; one past kMaxLayers or not an index names no layer.
    for (const nlohmann::json& layer : *dense) {
      if (layer.is_number_unsigned() && layer.get<uint64_t>() < kMaxLayers &&
          moe.mlp_only_layers.size() < kMaxLayers) {
        moe.mlp_only_layers.push_back(layer.get<uint64_t>());
      }
    }
  }
  // first_k_dense_replace (GGUF: <arch>.leading_dense_block_count): the
  // leading layers' feed-forward is a dense MLP (GLM-4.5's first), as a
  // layer in mlp_only_layers is.
  // LFM2-MoE names it num_dense_layers (Lfm2MoeConfig; its converter
  // writes it as leading_dense_block_count).
  // ERNIE 4.5's MoE config, moe_layer_start_index (Ernie4_5MoeModel writes
  // it as leading_dense_block_count).
  const uint64_t dense = std::min<uint64_t>(
      first({"first_k_dense_replace", "num_dense_layers", "moe_layer_start_index"}), kMaxLayers);
  for (uint64_t layer = 0; layer < dense && moe.mlp_only_layers.size() < kMaxLayers; ++layer) {
    if (std::find(moe.mlp_only_layers.begin(), moe.mlp_only_layers.end(), layer) == moe.mlp_only_layers.end()) {
      moe.mlp_only_layers.push_back(layer);
    }
  }
  return moe;
}

MlaGeometry read_mla(const ConfigDocument& doc, std::string_view model_type) {
  auto first = [&](std::string_view field) -> uint64_t {
    Result<std::optional<uint64_t>> v = doc.u64({field});
    return v && v->has_value() ? **v : 0;
  };
  MlaGeometry mla;
  mla.kv_lora_rank = first("kv_lora_rank");
  if (mla.kv_lora_rank == 0) return MlaGeometry{};
  mla.q_lora_rank = first("q_lora_rank");  // null: a full-rank query
  mla.qk_nope = first("qk_nope_head_dim");
  mla.qk_rope = first("qk_rope_head_dim");
  mla.v_head = first("v_head_dim");
  mla.leading_dense = first("first_k_dense_replace");
  const nlohmann::json* topk = doc.find("topk_method");
  mla.expert_bias = model_type == "deepseek_v3" || model_type == "kimi_k2" ||
                    (topk != nullptr && topk->is_string() && topk->get<std::string>() == "noaux_tc");
  return mla;
}

CompressedAttentionGeometry read_compressed_attention(const ConfigDocument& doc,
                                                      std::string_view model_type) {
  if (model_type != "deepseek_v4") return {};
  auto first = [&](std::string_view field) -> uint64_t {
    Result<std::optional<uint64_t>> v = doc.u64({field});
    return v && v->has_value() ? **v : 0;
  };
  const uint64_t layers = first("num_hidden_layers");
  const nlohmann::json* ratios = doc.find("compress_ratios");
  if (layers == 0 || layers > kMaxLayers || ratios == nullptr || !ratios->is_array() ||
      ratios->size() < layers) {
    return {};
  }
  CompressedAttentionGeometry g;
  g.compress_ratios.reserve(layers);
  for (uint64_t i = 0; i < layers; ++i) {
    const nlohmann::json& r = (*ratios)[i];
    if (!r.is_number_unsigned()) return {};
    g.compress_ratios.push_back(r.get<uint64_t>());
  }
  g.window_tokens = first("sliding_window");
  g.head_dim = first("head_dim");
  g.index_head_dim = first("index_head_dim");
  g.rope_dim = first("qk_rope_head_dim");
  const nlohmann::json* base = doc.find("rope_theta");
  const nlohmann::json* compressed_base = doc.find("compress_rope_theta");
  g.second_rope_base = compressed_base != nullptr && compressed_base->is_number() &&
                       (base == nullptr || !base->is_number() ||
                        compressed_base->get<double>() != base->get<double>());
  return g;
}

}  // namespace memfit
