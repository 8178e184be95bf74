// The tensors llama.cpp's converter (convert_hf_to_gguf.py: BertModel,
// JinaBertV2Model) writes for the encoders memfit converts, BERT and Jina's
// BERT v2, as llama.cpp's loader creates them (src/llama-model.cpp,
// load_tensors, LLM_ARCH_BERT and LLM_ARCH_JINA_BERT_V2). Private to the
// library; engines/llamacpp/quantize_plan.h's converted_tensors() is the
// way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_ENCODERS_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_ENCODERS_H_

#include <vector>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {

enum class ConvertedEncoder {
  kNone,        // not an encoder memfit converts
  kBert,        // model_type "bert", not a JinaBert* checkpoint
  kJinaBertV2,  // the GGUF's jina-bert-v2, or a JinaBert* checkpoint
  kNomicBert,   // model_type "nomic_bert" (the GGUF's nomic-bert), dense
};

// Which encoder `spec` is: model_type "jina_bert_v2" or family
// "jina_bert_v2" (a JinaBert* checkpoint's config says model_type "bert")
// is Jina's; model_type "bert" otherwise BERT; a dense "nomic_bert"
// Nomic's. RoBERTa and XLM-R, which
// the converter also writes as bert with their position rows cut, are not
// among them.
ConvertedEncoder converted_encoder(const ModelSpec& spec);

// Appends the encoder's tensors to `out`: those outside the blocks first,
// by name, then block by block, by name within each. Requires
// converted_encoder(spec) != kNone and a geometry converted_tensors()
// accepts. `token_types`: token_types' rows (ConverterHints; 0 for 2).
void add_encoder_tensors(const ModelSpec& spec, ConvertedEncoder kind, uint64_t token_types,
                         std::vector<ConvertedTensor>& out);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_ENCODERS_H_
