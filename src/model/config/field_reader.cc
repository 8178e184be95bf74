// FieldReader (model/config/field_reader.h) and the transformers defaults
// per model type it falls back to.
#include "model/config/field_reader.h"

#include <fmt/format.h>

#include <algorithm>

namespace memfit {

// Values from the transformers configuration classes' constructors, for
// the fields real configs of these families are seen to omit.
std::vector<FieldDefault> family_defaults(std::string_view model_type) {
  if (model_type == "gemma2") {
    // Gemma2Config: layers alternate sliding/full (pattern 2).
    return {{"num_hidden_layers", 26}, {"hidden_size", 2304}, {"intermediate_size", 9216},
            {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256},
            {"vocab_size", 256000},     {"sliding_window", 4096},    {"sliding_window_pattern", 2}};
  }
  if (model_type == "gemma3_text" || model_type == "gemma3") {
    // Gemma3TextConfig: five sliding layers, then one full (pattern 6).
    return {{"num_hidden_layers", 26}, {"hidden_size", 2304}, {"intermediate_size", 9216},
            {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256},
            {"vocab_size", 262208},     {"sliding_window", 4096},    {"sliding_window_pattern", 6}};
  }
  if (model_type == "cohere2") {
    return {{"sliding_window", 4096}, {"sliding_window_pattern", 4}};
  }
  if (model_type == "mistral") {
    // MistralConfig windows every layer at 4096 unless the config says null.
    return {{"sliding_window", 4096}};
  }
  if (model_type == "gpt_oss") {
    return {{"sliding_window", 128}, {"sliding_window_pattern", 2}};
  }
  if (model_type == "mamba" || model_type == "falcon_mamba") {
    return {{"state_size", 16}, {"conv_kernel", 4}, {"expand", 2}};
  }
  if (model_type == "mamba2") {
    return {{"num_heads", 128}, {"head_dim", 64},    {"state_size", 128},
            {"n_groups", 8},    {"conv_kernel", 4},  {"expand", 2}};
  }
  if (model_type == "deepseek_v2" || model_type == "deepseek_v3" ||
      model_type == "deepseek_v32" || model_type == "kimi_k2") {
    return {{"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 128}, {"v_head_dim", 128}};
  }
  if (model_type == "qwen3_next" || model_type == "qwen3_5_text" || model_type == "qwen3_5" ||
      model_type == "qwen3_5_moe" || model_type == "qwen3_5_moe_text") {
    return {{"linear_conv_kernel_dim", 4}, {"full_attention_interval", 4}};
  }
  if (model_type == "lfm2" || model_type == "lfm2_moe") {
    return {{"conv_L_cache", 3}};
  }
  if (model_type == "rwkv5" || model_type == "rwkv6") {
    return {{"head_size", 64}};
  }
  if (model_type == "nemotron_h") {
    return {{"mamba_num_heads", 128}, {"mamba_head_dim", 64}, {"n_groups", 8},
            {"ssm_state_size", 128},  {"conv_kernel", 4}};
  }
  if (model_type == "granitemoehybrid" || model_type == "falcon_h1") {
    // GraniteMoeHybridConfig / FalconH1Config; mamba_d_head "auto" is
    // (mamba_d_ssm or mamba_expand x hidden) / mamba_n_heads.
    return {{"mamba_n_heads", 128}, {"mamba_n_groups", 1}, {"mamba_d_state", 256},
            {"mamba_d_conv", 4},    {"mamba_expand", 2}};
  }
  if (model_type == "rwkv7") {
    return {{"head_dim", 64}};
  }
  if (model_type == "llama4" || model_type == "llama4_text") {
    return {{"attention_chunk_size", 8192}};
  }
  if (model_type == "jamba") {
    return {{"attn_layer_period", 8}, {"attn_layer_offset", 4}, {"mamba_d_state", 16},
            {"mamba_d_conv", 4},      {"mamba_expand", 2}};
  }
  return {};
}

FieldReader::FieldReader(const ConfigDocument& doc, std::string model_type,
                         std::vector<std::string>& assumptions)
    : doc_(doc),
      model_type_(std::move(model_type)),
      defaults_(doc.takes_family_defaults() ? family_defaults(model_type_)
                                            : std::vector<FieldDefault>()),
      assumptions_(assumptions) {}

void FieldReader::assume(std::string text) {
  if (std::find(assumptions_.begin(), assumptions_.end(), text) == assumptions_.end()) {
    assumptions_.push_back(std::move(text));
  }
}

Result<std::optional<uint64_t>> FieldReader::u64(std::initializer_list<std::string_view> aliases) {
  Result<std::optional<uint64_t>> value = doc_.u64(aliases);
  if (!value || value->has_value()) return value;
  std::string_view primary = *aliases.begin();
  for (const FieldDefault& d : defaults_) {
    if (d.field != primary) continue;
    assume(fmt::format("{} = {} ({} default)", primary, d.value, model_type_));
    return std::optional<uint64_t>(d.value);
  }
  return value;
}

Result<uint64_t> FieldReader::u64_or(std::initializer_list<std::string_view> aliases,
                                     uint64_t fallback, std::string_view why) {
  Result<std::optional<uint64_t>> value = u64(aliases);
  if (!value) return value.error();
  if (value->has_value()) return **value;
  assume(fmt::format("{} = {} ({})", *aliases.begin(), fallback, why));
  return fallback;
}

}  // namespace memfit
