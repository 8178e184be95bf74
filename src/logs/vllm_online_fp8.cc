// vLLM's online FP8 (vllm/model_executor/layers/quantization/fp8.py,
// Fp8Config with is_checkpoint_fp8_serialized false): --quantization fp8
// on a checkpoint without a quantization_config creates each linear layer's
// weight at the model's dtype, loads it, and in
// process_weights_after_loading replaces it with its FP8 copy
// (ops.scaled_fp8_quant, one fp32 scale a tensor) before "Model loading
// took" is measured; the fused MoE experts likewise (Fp8MoEMethod, a scale
// an expert). Fp8Config quantizes LinearBase and FusedMoE layers only: the
// embedding and the LM head (VocabParallelEmbedding, ParallelLMHead) stay
// 16-bit, and so do the MoE routers, built with quant_config=None
// (qwen3_moe.py, Qwen3MoeSparseMoeBlock's gate). That is the checkpoint an
// FP8 quantization_config of one scale a tensor describes, which memfit's
// config pricing already prices (model/config/analytical_weights.cc).
#include "logs/vllm_online_fp8.h"

#include "logs/vllm_online_quant.h"

namespace memfit::logs {

Result<std::string> online_fp8_config(std::string_view config_json, std::vector<std::string>& notes) {
  return with_online_quantization(
      config_json, {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}},
      "the log quantizes a 16-bit checkpoint to FP8 at load (--quantization fp8 with no "
      "quantization_config): priced as FP8 of one scale a tensor on the linear layers and experts, "
      "the embedding, LM head and routers 16-bit (Fp8Config, online)",
      notes);
}

}  // namespace memfit::logs
