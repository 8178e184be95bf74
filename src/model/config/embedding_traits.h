// Embedding and reranking models read from a config.json: which model
// types are bidirectional encoders, and what the architecture says of the
// pooling (docs/embedding-models.md).
#ifndef MEMFIT_MODEL_CONFIG_EMBEDDING_TRAITS_H_
#define MEMFIT_MODEL_CONFIG_EMBEDDING_TRAITS_H_

#include <string_view>

#include "memfit/model_spec.h"
#include "model/config/config_document.h"

namespace memfit {

// True for the encoder model types memfit reads: "bert", "roberta",
// "xlm-roberta" (transformers' BertModel, RobertaModel, XLMRobertaModel)
// "nomic_bert" / "nomic-bert" (the GGUF architecture's spelling) and
// "jina_bert_v2" (the GGUF's jina-bert-v2, arch_rules.cc).
// Their every layer attends both ways and keeps no KV cache.
bool is_encoder_model_type(std::string_view model_type);

// The traits the config itself states (EmbeddingInfo::by_architecture,
// bidirectional, reranker, pooling) from its model_type and its first
// "architectures" entry:
//   - an encoder model type: bidirectional, a pooling model by architecture
//   - architectures[0] ends in "ForSequenceClassification": a reranker
//   - architectures[0] is a bare "<Name>Model" (not "<Name>LMHeadModel",
//     not ChatGLMModel, a generator) or ends in "EmbeddingModel": a pooling
//     model by architecture (vLLM's --runner auto and --convert embed)
// A config that says none of these gives the empty traits. Never fails: a
// malformed "architectures" is read as absent.
EmbeddingInfo embedding_traits_of_config(const ConfigDocument& doc, std::string_view model_type);

// Whether architectures[0] is one of Jina's BERT v2 classes ("JinaBert...").
bool is_jina_bert_architecture(const ConfigDocument& doc);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_EMBEDDING_TRAITS_H_
