// vLLM's in-flight bitsandbytes (vllm/model_executor/model_loader/
// bitsandbytes_loader.py, BitsAndBytesModelLoader; loader.py before the
// loaders were split): --quantization bitsandbytes (which forces
// --load-format bitsandbytes, engine/arg_utils.py) on a checkpoint without
// a quantization_config reads each 16-bit weight of the layers it targets
// and quantizes it on the GPU with bitsandbytes'
// quantize_4bit(loaded_weight, compress_statistics=True, quant_type="nf4")
// before "Model loading took" is measured: NF4, blocks of 64, the absmax
// itself quantized to 8 bits (double quantization). The targets are the
// LinearBase layers; the embedding and the LM head (VocabParallelEmbedding,
// ParallelLMHead) stay 16-bit. That is the checkpoint a bitsandbytes
// quantization_config of load_in_4bit, nf4 and bnb_4bit_use_double_quant
// describes, which memfit's config pricing already prices
// (model/config/analytical_weights.cc, bnb_4bit_matrix_bytes).
#include "logs/vllm_online_bnb.h"

#include "logs/vllm_online_quant.h"

namespace memfit::logs {

Result<std::string> online_bnb_config(std::string_view config_json, std::vector<std::string>& notes) {
  return with_online_quantization(
      config_json,
      {{"quant_method", "bitsandbytes"},
       {"load_in_4bit", true},
       {"bnb_4bit_quant_type", "nf4"},
       {"bnb_4bit_use_double_quant", true}},
      "the log quantizes a 16-bit checkpoint with bitsandbytes at load (--quantization bitsandbytes "
      "with no quantization_config): priced as NF4 with double quantization on the linear layers, "
      "the embedding and LM head 16-bit (BitsAndBytesModelLoader, quantize_4bit)",
      notes);
}

}  // namespace memfit::logs
