// Embedding traits of a config (model/config/embedding_traits.h). The
// architecture names follow vLLM's pooling model conversion table
// (docs.vllm.ai, "Pooling Models", v0.11 to v0.18: *Model and
// *EmbeddingModel convert to embed, *ForSequenceClassification to
// classify) and transformers' encoder classes.
#include "model/config/embedding_traits.h"

#include <string>

namespace memfit {
namespace {

// The first entry of the top-level "architectures" list; "" when there is
// none or it is not a string.
std::string first_architecture(const ConfigDocument& doc) {
  auto it = doc.top().find("architectures");
  if (it == doc.top().end() || !it->is_array() || it->empty() || !(*it)[0].is_string()) return "";
  return (*it)[0].get<std::string>();
}

// Bare "<Name>Model" names that are text generators all the same.
bool is_generator_model_class(std::string_view arch) {
  return arch.ends_with("LMHeadModel") || arch == "ChatGLMModel";
}

}  // namespace

bool is_jina_bert_architecture(const ConfigDocument& doc) {
  return first_architecture(doc).starts_with("JinaBert");
}

bool is_encoder_model_type(std::string_view model_type) {
  return model_type == "bert" || model_type == "roberta" || model_type == "xlm-roberta" ||
         model_type == "nomic_bert" || model_type == "nomic-bert" || model_type == "jina_bert_v2";
}

EmbeddingInfo embedding_traits_of_config(const ConfigDocument& doc, std::string_view model_type) {
  EmbeddingInfo info;
  const std::string arch = first_architecture(doc);
  if (is_encoder_model_type(model_type)) {
    info.bidirectional = true;
    info.by_architecture = true;
  }
  if (arch.ends_with("ForSequenceClassification")) {
    info.reranker = true;
    info.by_architecture = true;
    info.pooling = "rank";
  } else if (arch.ends_with("EmbeddingModel") ||
             (arch.ends_with("Model") && !is_generator_model_class(arch))) {
    info.by_architecture = true;
  }
  return info;
}

}  // namespace memfit
