// The parameters of a BERT-style encoder counted from its config alone
// (transformers' BertModel, RobertaModel, XLMRobertaModel and their
// sequence-classification heads), for a folder with no weight file.
// docs/embedding-models.md works bert-base-uncased through by hand.
#ifndef MEMFIT_MODEL_CONFIG_ENCODER_PARAMS_H_
#define MEMFIT_MODEL_CONFIG_ENCODER_PARAMS_H_

#include <string_view>
#include <vector>

#include "memfit/model_spec.h"
#include "model/config/analytical_params.h"
#include "model/config/field_reader.h"

namespace memfit {

// True for the model types encoder_param_blocks counts: "bert",
// "roberta", "xlm-roberta" (nomic_bert's gated, bias-free layers are
// counted by the decoder rules instead).
bool counts_as_bert_encoder(std::string_view model_type);

// With h = hidden, f = intermediate, V = vocab, P = max_position_embeddings
// (512 when absent), T = type_vocab_size (2 when absent), n = labels
// (id2label's size, else num_labels, else 2):
//   embeddings   word [V, h], position [P, h], token_type [T, h], LayerNorm
//                weight and bias [h] each
//   per layer    query, key, value, attention output [h, h] with a bias
//                [h] each; attention LayerNorm 2 x [h]; intermediate [f, h]
//                + bias [f]; output [h, f] + bias [h]; output LayerNorm
//                2 x [h]
//   pooler       dense [h, h] + bias [h], on BertModel, RobertaModel,
//                XLMRobertaModel, BertForSequenceClassification and a
//                config that names no architecture (assumed, and said so)
//   classifier   BertForSequenceClassification: [n, h] + [n];
//                (XLM-)RobertaForSequenceClassification: dense [h, h] + [h],
//                out_proj [n, h] + [n] (they have no pooler)
// Other heads (…ForMaskedLM) are not counted, and an assumption says so.
// Empty when the geometry cannot be counted or a product overflows.
std::vector<ParamBlock> encoder_param_blocks(FieldReader& reader, const ModelSpec& spec);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_ENCODER_PARAMS_H_
