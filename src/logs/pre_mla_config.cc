// pre_mla_config (logs/pre_mla_config.h). llama.cpp's deepseek2 support
// (#7519, 2024-05) ran DeepSeek-V2/V3 as multi-head attention: the GGUF's
// head_count_kv is the model's heads, key_length qk_nope + qk_rope and
// value_length v_head_dim, and llama_kv_cache_init sized K and V from them
// (n_embd_k_gqa = 128 x 192 = 24576 and n_embd_v_gqa = 128 x 128 = 16384
// for DeepSeek-V3, as ollama/ollama #9170's print_meta lines show). #8501
// turned context shifting off for deepseek2 and #12801 turned it back on
// when it added MLA, so a deepseek2 KV line with can_shift = 0 was printed
// by a build without MLA, and its cache is the decompressed one.
#include "logs/pre_mla_config.h"

#include <fmt/format.h>

#include "model/config/config_document.h"

namespace memfit::logs {

bool deepseek2_cannot_shift(const RuntimeLog& log) {
  const LogSetting* shift = log.setting("can_shift");
  return shift != nullptr && shift->value == "0";
}

Result<std::string> pre_mla_config(const RuntimeLog& log, const std::string& config_json,
                                   std::vector<std::string>& notes) {
  if (!deepseek2_cannot_shift(log)) return config_json;
  Result<ConfigDocument> doc = ConfigDocument::parse(config_json);
  if (!doc) return doc.error();
  nlohmann::json top = doc->top();
  const auto type = top.find("model_type");
  // DeepSeek-V3 and R1 alone were converted before #12801 (Kimi K2,
  // DeepSeek-V3.2 and the GLM MLA models came after it); DeepSeek-V2's
  // config is priced decompressed already.
  if (type == top.end() || !type->is_string() || *type != "deepseek_v3" || !top.contains("kv_lora_rank")) {
    return config_json;
  }
  top["model_type"] = "deepseek_v2";
  notes.push_back(
      "the log's deepseek2 cache could not shift (can_shift = 0): a llama.cpp build before MLA "
      "(#12801; #8501 had turned shifting off for deepseek2), which caches every head's K and V: "
      "the config is priced decompressed, as a GGUF without the MLA keys");
  return top.dump();
}

}  // namespace memfit::logs
