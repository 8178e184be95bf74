// mlx_lm.convert's config for a base config (engines/mlxlm/convert_config.h).
// The rules: mlx_lm/utils.py, quantize_model (a module is quantized when it
// has to_quantized and the group divides its input width; the model's
// quant_predicate may give it its own bits), and the models'
// quant_predicate properties, read at mlx-lm 0.31.3 and, for gemma4, at
// its newest commit read (8239c72d, 2026-06-06) (docs/engine-mlxlm.md,
// "Converted checkpoints").
#include "engines/mlxlm/convert_config.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

using Json = nlohmann::json;

// A model whose quant_predicate sets the bits of some modules of each MoE
// layer: those modules' paths under "model.layers.<i>.".
struct RouterRule {
  std::string_view model_type;
  std::array<std::string_view, 2> paths;  // "" past the last
};

// qwen3_moe.py and qwen3_next.py: {"group_size": 64, "bits": 8} for a path
// ending in "mlp.gate" (and, in Qwen3-Next, "shared_expert_gate").
constexpr std::array<RouterRule, 2> kRouterRules = {{
    {"qwen3_moe", {"mlp.gate", ""}},
    {"qwen3_next", {"mlp.gate", "mlp.shared_expert_gate"}},
}};
constexpr uint64_t kRouterBits = 8;
constexpr uint64_t kRouterGroupSize = 64;

// The other model types whose mlx-lm model sets a quant_predicate at
// 0.31.3 (mlx_lm/models/<type>.py): not modelled, so refused.
constexpr std::array<std::string_view, 17> kUnmodelledPredicates = {
    "Klear",         "afmoe",        "bailing_moe", "bailing_moe_linear", "gpt_oss",
    "granitemoe",    "granitemoehybrid",   "jamba", "kimi_linear",   "lfm2_moe",
    "longcat_flash", "longcat_flash_ngram", "minimax", "qwen3_5",     "qwen3_vl_moe",
    "rwkv7",         "step3p5"};

// Gemma 4 (gemma4_text.py's Model.quant_predicate, unchanged since the
// model came in "Add gemma 4", #1093, v0.31.2): {"group_size": 64,
// "bits": 8} for a path ending in "router.proj". DecoderLayer builds a
// Router on every layer when enable_moe_block is set (26B-A4B), none
// otherwise (E2B, E4B, 31B). gemma4.py's wrapper holds the text model as
// language_model, so quantize_model's paths are
// "language_model.model.layers.<i>.router.proj"; gemma4_text's own are
// "model.layers.<i>.router.proj". The wrapper's fields are those of its
// text_config (gemma4.py, ModelArgs).
bool is_gemma4(std::string_view model_type) {
  return model_type == "gemma4" || model_type == "gemma4_text";
}

// A whole number >= 0 of `object`; `fallback` when absent or anything else.
uint64_t u64_or(const Json& object, std::string_view key, uint64_t fallback) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return fallback;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  const int64_t v = it->get<int64_t>();
  return v >= 0 ? static_cast<uint64_t>(v) : fallback;
}

// Whether decoder layer `layer` is a MoE layer, as qwen3_moe.py and
// qwen3_next.py build it: not in mlp_only_layers, num_experts > 0 and
// (layer + 1) divisible by decoder_sparse_step (default 1).
bool routes_experts(const Json& base, uint64_t layer) {
  if (u64_or(base, "num_experts", 0) == 0) return false;
  const uint64_t step = u64_or(base, "decoder_sparse_step", 1);
  if (step > 1 && (layer + 1) % step != 0) return false;
  if (auto dense = base.find("mlp_only_layers"); dense != base.end() && dense->is_array()) {
    for (const Json& v : *dense) {
      if (v.is_number_integer() && v.get<int64_t>() >= 0 &&
          static_cast<uint64_t>(v.get<int64_t>()) == layer) {
        return false;
      }
    }
  }
  return true;
}

const RouterRule* router_rule(std::string_view model_type) {
  for (const RouterRule& r : kRouterRules) {
    if (r.model_type == model_type) return &r;
  }
  return nullptr;
}

}  // namespace

Result<nlohmann::json> mlx_converted_config(const nlohmann::json& base,
                                            const MlxConversion& conversion) {
  if (!base.is_object()) return Error("the config to convert is not a JSON object");
  if (base.contains("quantization") || base.contains("quantization_config")) {
    return Error("the config already declares a quantization: it is a quantized checkpoint's, "
                 "not the base model's mlx_lm.convert starts from");
  }
  auto type_it = base.find("model_type");
  if (type_it == base.end() || !type_it->is_string()) {
    return Error("the config names no model_type: mlx_lm.convert's rules depend on it");
  }
  const std::string& model_type = type_it->get_ref<const std::string&>();
  if (std::find(kUnmodelledPredicates.begin(), kUnmodelledPredicates.end(), model_type) !=
      kUnmodelledPredicates.end()) {
    return Error(fmt::format("mlx-lm's {} model quantizes some modules by its own rule "
                             "(quant_predicate), which memfit does not model",
                             quote_untrusted(model_type)));
  }
  const uint64_t layers = u64_or(base, "num_hidden_layers", 0);
  if (layers > kMaxConvertedLayers) {
    return Error(fmt::format("the config claims {} layers, more than the {} memfit converts",
                             layers, kMaxConvertedLayers));
  }
  const bool gemma4 = is_gemma4(model_type);
  const Json* text = &base;
  if (model_type == "gemma4") {
    auto it = base.find("text_config");
    if (it == base.end() || !it->is_object()) {
      return Error("the gemma4 config holds no text_config: mlx-lm's gemma4 model builds its "
                   "language model from it");
    }
    text = &*it;
  }
  const uint64_t text_layers = gemma4 ? u64_or(*text, "num_hidden_layers", 0) : layers;
  if (text_layers > kMaxConvertedLayers) {
    return Error(fmt::format("the config claims {} layers, more than the {} memfit converts",
                             text_layers, kMaxConvertedLayers));
  }
  const RouterRule* rule = router_rule(model_type);
  if ((rule != nullptr || gemma4) && !conversion.quantize_embeddings) {
    return Error(fmt::format("a conversion under an MLX before v0.11.0 (Linear layers only) "
                             "predates mlx-lm's {} quant_predicate: memfit does not model it",
                             quote_untrusted(model_type)));
  }
  Json block = Json::object();
  block["group_size"] = conversion.group_size;
  block["bits"] = conversion.bits;
  // MLX before v0.11.0 quantized Linear layers only (mlx #994): the
  // Embedding has no scales in the weights, and mlx-lm's load reads the
  // module as unquantized; a false entry says so to the weights' pricing.
  if (!conversion.quantize_embeddings) block["model.embed_tokens"] = false;
  // quantize_model asks the predicate only of a module the group divides
  // (a router's input width is hidden_size).
  const uint64_t hidden = u64_or(base, "hidden_size", 0);
  if (rule != nullptr && hidden > 0 && conversion.group_size > 0 &&
      hidden % conversion.group_size == 0) {
    for (uint64_t layer = 0; layer < layers; ++layer) {
      if (!routes_experts(base, layer)) continue;
      for (std::string_view path : rule->paths) {
        if (path.empty()) continue;
        block[fmt::format("model.layers.{}.{}", layer, path)] =
            Json{{"group_size", kRouterGroupSize}, {"bits", kRouterBits}};
      }
    }
  }
  if (gemma4) {
    auto moe = text->find("enable_moe_block");
    const bool routes = moe != text->end() && moe->is_boolean() && moe->get<bool>() &&
                        u64_or(*text, "num_experts", 0) > 0;
    const uint64_t width = u64_or(*text, "hidden_size", 0);
    if (routes && (width == 0 || text_layers == 0)) {
      return Error("the gemma4 config's MoE block names no hidden_size or num_hidden_layers: "
                   "its routers cannot be placed");
    }
    const std::string_view prefix =
        model_type == "gemma4" ? "language_model.model.layers" : "model.layers";
    if (routes && conversion.group_size > 0 && width % conversion.group_size == 0) {
      for (uint64_t layer = 0; layer < text_layers; ++layer) {
        block[fmt::format("{}.{}.router.proj", prefix, layer)] =
            Json{{"group_size", kRouterGroupSize}, {"bits", kRouterBits}};
      }
    }
  }
  Json converted = base;
  converted["quantization"] = block;
  converted["quantization_config"] = block;  // utils.save_config writes both
  return converted;
}

}  // namespace memfit
