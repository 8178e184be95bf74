// vLLM's in-flight bitsandbytes (vllm/model_executor/model_loader/
// bitsandbytes_loader.py, BitsAndBytesModelLoader; loader.py before the
// loaders were split): --quantization bitsandbytes (which forces
// --load-format bitsandbytes, engine/arg_utils.py) on a checkpoint without
// a quantization_config reads each 16-bit weight of the layers it targets
// and quantizes it on the GPU with bitsandbytes'
// quantize_4bit(loaded_weight, compress_statistics=True, quant_type="nf4")
// before "Model loading took" is measured: NF4, blocks of 64, the absmax
// itself quantized to 8 bits (double quantization). From v0.9.2 (vLLM PR
// #19742) load_weights then calls dequantize_dq on every quant state: the
// absmax becomes float32 (dequantize_blockwise of the 8-bit absmax plus
// the offset) and the nested state is dropped, so the loaded weights hold
// one float32 absmax a 64 weights, the checkpoint a quantization_config
// without bnb_4bit_use_double_quant describes. The targets are the
// LinearBase layers; the embedding and the LM head (VocabParallelEmbedding,
// ParallelLMHead) stay 16-bit. That is the checkpoint a bitsandbytes
// quantization_config of load_in_4bit, nf4 and bnb_4bit_use_double_quant
// describes, which memfit's config pricing already prices
// (model/config/analytical_weights.cc, bnb_4bit_matrix_bytes).
#include "logs/vllm_online_bnb.h"

#include "logs/vllm_online_quant.h"

namespace memfit::logs {

bool online_bnb_nested_absmax(const std::optional<VllmRelease>& release) {
  if (!release) return false;
  if (release->major != 0) return false;
  if (release->minor != 9) return release->minor < 9;
  return !release->has_patch || release->patch < 2;  // "0.9": the line's v0.9.0
}

Result<std::string> online_bnb_config(std::string_view config_json, bool nested_absmax,
                                      std::vector<std::string>& notes) {
  return with_online_quantization(
      config_json,
      {{"quant_method", "bitsandbytes"},
       {"load_in_4bit", true},
       {"bnb_4bit_quant_type", "nf4"},
       {"bnb_4bit_use_double_quant", nested_absmax}},
      nested_absmax
          ? "the log quantizes a 16-bit checkpoint with bitsandbytes at load (--quantization "
            "bitsandbytes with no quantization_config): priced as NF4 with double quantization on the "
            "linear layers (before v0.9.2 the loaded weights keep the 8-bit absmax), the embedding and "
            "LM head 16-bit (BitsAndBytesModelLoader, quantize_4bit)"
          : "the log quantizes a 16-bit checkpoint with bitsandbytes at load (--quantization "
            "bitsandbytes with no quantization_config): priced as NF4 on the linear layers with a "
            "float32 absmax a 64 weights (from v0.9.2 the loader dequantizes the double-quantized "
            "absmax once loaded: dequantize_dq, vLLM PR #19742), the embedding and LM head 16-bit "
            "(BitsAndBytesModelLoader, quantize_4bit)",
      notes);
}

}  // namespace memfit::logs
