// Family slugs and the model types memfit knows (model/config/family.h).
#include "model/config/family.h"

namespace memfit {

std::string family_slug(std::string_view model_type) {
  if (model_type.empty()) return "unknown";
  std::string slug(model_type);
  const std::string_view text_suffix = "_text";
  if (slug.size() > text_suffix.size() &&
      slug.compare(slug.size() - text_suffix.size(), text_suffix.size(), text_suffix) == 0) {
    slug.resize(slug.size() - text_suffix.size());
  }
  if (slug == "qwen3_5_moe") return "qwen3_5";
  return slug;
}

bool is_known_model_type(std::string_view model_type) {
  static constexpr std::string_view kKnown[] = {
      "llama", "llama4", "llama4_text", "mistral", "mistral3", "ministral", "mixtral",
      "qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen3", "qwen3_moe", "qwen3_vl",
      "qwen3_vl_text", "qwen3_vl_moe", "qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe",
      "qwen3_5_moe_text", "gemma", "gemma2", "gemma3", "gemma3_text", "gemma3n",
      "gemma3n_text", "gemma4", "gemma4_text", "cohere", "cohere2", "phi", "phi3", "phimoe",
      "olmo", "olmo2", "olmo3", "olmoe",
      "smollm3", "deepseek_v2", "deepseek_v3", "deepseek_v32", "glm_moe_dsa", "kimi_k2", "glm", "glm4",
      "glm4_moe", "glm4_moe_lite", "chatglm", "gpt_oss", "gpt2", "gpt_neox", "gptj", "falcon",
      "starcoder2", "granite", "granitemoe", "granitemoehybrid", "internlm2", "minimax",
      "minimax_m2", "mamba", "mamba2", "falcon_mamba", "falcon_h1", "jamba", "nemotron",
      "nemotron_h", "nemotron-nas", "deci", "lfm2", "lfm2_moe", "rwkv", "rwkv5", "rwkv6",
      "rwkv7", "exaone", "exaone4", "baichuan", "stablelm", "hunyuan_v1_dense", "hunyuan_v1_moe", "dots1", "minicpm", "bailing_moe", "bailing_moe_v2", "grove_moe", "ernie4_5",
      "ernie4_5_moe", "seed_oss", "bamba", "zamba2", "dbrx", "arcee", "apertus", "bert", "roberta",
      "xlm-roberta", "nomic_bert", "jina_bert_v2"};
  for (std::string_view known : kKnown) {
    if (known == model_type) return true;
  }
  return false;
}

bool is_paged_family(std::string_view family) {
  return family == "llama" || family == "llama4" || family == "qwen3" || family == "qwen3_5" ||
         family == "gemma3";
}

}  // namespace memfit
