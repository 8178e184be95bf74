// BERT-style encoder parameters from the config (model/config/encoder_params.h).
// Shapes read from transformers' models/bert/modeling_bert.py and
// models/xlm_roberta/modeling_xlm_roberta.py (BertEmbeddings, BertLayer,
// BertPooler, the ...ForSequenceClassification heads).
#include "model/config/encoder_params.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

// Blocks with a checked shape; an overflowed dimension empties the list.
class EncoderBlocks {
 public:
  void add(ParamRole role, std::string_view module, std::optional<uint64_t> layer,
           CheckedBytes rows, CheckedBytes cols, uint64_t copies = 1) {
    if (!rows.value() || !cols.value()) {
      overflowed_ = true;
      return;
    }
    if (*rows.value() == 0 || *cols.value() == 0) return;
    blocks_.push_back({role, module, layer, *rows.value(), *cols.value(), copies});
  }
  // A Linear layer of [out, in] and its bias [out].
  void linear(ParamRole role, std::string_view module, std::string_view bias,
              std::optional<uint64_t> layer, uint64_t out, uint64_t in) {
    add(role, module, layer, out, in);
    add(ParamRole::kNorm, bias, layer, 1, out);
  }
  std::vector<ParamBlock> take() { return overflowed_ ? std::vector<ParamBlock>{} : std::move(blocks_); }

 private:
  std::vector<ParamBlock> blocks_;
  bool overflowed_ = false;
};

std::string first_architecture(const ConfigDocument& doc) {
  auto it = doc.top().find("architectures");
  if (it == doc.top().end() || !it->is_array() || it->empty() || !(*it)[0].is_string()) return "";
  return (*it)[0].get<std::string>();
}

// id2label's size, else num_labels, else PretrainedConfig's 2.
uint64_t label_count(const ConfigDocument& doc) {
  if (const nlohmann::json* labels = doc.find("id2label"); labels != nullptr && labels->is_object() &&
                                                           !labels->empty()) {
    return labels->size();
  }
  if (const nlohmann::json* n = doc.find("num_labels"); n != nullptr && n->is_number_unsigned()) {
    return n->get<uint64_t>();
  }
  return 2;
}

// A count the config may leave out, else `fallback`; a config.json that
// leaves it out gets the assumption said (a GGUF's metadata, which takes no
// family defaults, does not).
uint64_t count_or(FieldReader& reader, std::string_view name, uint64_t fallback) {
  Result<std::optional<uint64_t>> value = reader.doc().u64({name});
  if (value && value->has_value()) return **value;
  if (reader.doc().takes_family_defaults()) {
    reader.assume(fmt::format("{} = {} (BertConfig's default)", name, fallback));
  }
  return fallback;
}

void add_layer(const ModelGeometry& g, uint64_t i, EncoderBlocks& out) {
  const uint64_t h = g.hidden;
  const uint64_t q = (CheckedBytes(g.heads) * g.head_dim).saturated();
  out.linear(ParamRole::kAttention, "attention.self.query", "attention.self.query.bias", i, q, h);
  out.linear(ParamRole::kAttention, "attention.self.key", "attention.self.key.bias", i, q, h);
  out.linear(ParamRole::kAttention, "attention.self.value", "attention.self.value.bias", i, q, h);
  out.linear(ParamRole::kAttention, "attention.output.dense", "attention.output.dense.bias", i, h, q);
  out.add(ParamRole::kNorm, "attention.output.LayerNorm", i, 1, h, 2);  // weight and bias
  out.linear(ParamRole::kMlp, "intermediate.dense", "intermediate.dense.bias", i, g.intermediate, h);
  out.linear(ParamRole::kMlp, "output.dense", "output.dense.bias", i, h, g.intermediate);
  out.add(ParamRole::kNorm, "output.LayerNorm", i, 1, h, 2);
}

// The pooler and classification heads the architecture builds.
void add_heads(FieldReader& reader, const ModelGeometry& g, EncoderBlocks& out) {
  const std::string arch = first_architecture(reader.doc());
  const uint64_t h = g.hidden;
  const bool bert = reader.model_type() == "bert";
  const bool classifier = arch.ends_with("ForSequenceClassification");
  const bool pooler = arch.empty() || arch == "BertModel" || arch == "RobertaModel" ||
                      arch == "XLMRobertaModel" || (classifier && bert);
  if (arch.empty() && reader.doc().takes_family_defaults()) {
    reader.assume("no architectures: counted as the bare encoder with its pooler");
  }
  if (pooler) out.linear(ParamRole::kMlp, "pooler.dense", "pooler.dense.bias", std::nullopt, h, h);
  if (classifier) {
    const uint64_t labels = label_count(reader.doc());
    if (!bert) out.linear(ParamRole::kMlp, "classifier.dense", "classifier.dense.bias", std::nullopt, h, h);
    out.linear(ParamRole::kMlp, bert ? "classifier" : "classifier.out_proj",
               bert ? "classifier.bias" : "classifier.out_proj.bias", std::nullopt, labels, h);
  }
  if (!pooler && !classifier) {
    reader.assume(fmt::format("{}: its head is not counted, the encoder alone is", arch));
  }
}

}  // namespace

bool counts_as_bert_encoder(std::string_view model_type) {
  return model_type == "bert" || model_type == "roberta" || model_type == "xlm-roberta";
}

std::vector<ParamBlock> encoder_param_blocks(FieldReader& reader, const ModelSpec& spec) {
  const ModelGeometry& g = spec.geometry;
  if (g.layers == 0 || g.hidden == 0) return {};
  const uint64_t h = g.hidden;
  EncoderBlocks out;
  out.add(ParamRole::kEmbedding, "embeddings.word_embeddings", std::nullopt, g.vocab, h);
  out.add(ParamRole::kEmbedding, "embeddings.position_embeddings", std::nullopt,
          count_or(reader, "max_position_embeddings", 512), h);
  out.add(ParamRole::kEmbedding, "embeddings.token_type_embeddings", std::nullopt,
          count_or(reader, "type_vocab_size", 2), h);
  out.add(ParamRole::kNorm, "embeddings.LayerNorm", std::nullopt, 1, h, 2);
  for (uint64_t i = 0; i < g.layers; ++i) add_layer(g, i, out);
  add_heads(reader, g, out);
  return out.take();
}

}  // namespace memfit
