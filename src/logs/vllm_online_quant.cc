#include "logs/vllm_online_quant.h"

#include "model/config/config_document.h"

namespace memfit::logs {

Result<std::string> with_online_quantization(std::string_view config_json,
                                             const nlohmann::json& quantization_config,
                                             std::string_view note, std::vector<std::string>& notes) {
  Result<ConfigDocument> doc = ConfigDocument::parse(config_json);
  if (!doc) return doc.error();
  if (doc->find("quantization_config") != nullptr || doc->top().contains("quantization_config")) {
    return std::string(config_json);
  }
  nlohmann::json top = doc->top();
  top["quantization_config"] = quantization_config;
  notes.emplace_back(note);
  return top.dump();
}

}  // namespace memfit::logs
