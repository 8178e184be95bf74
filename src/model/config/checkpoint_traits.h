// What a config says about its checkpoint beyond the cache: the weight
// quantization (MLX `quantization`, `quantization_config` of GPTQ, AWQ,
// FP8 block scales, MXFP4, compressed-tensors, bitsandbytes) and the
// mixture-of-experts shape.
#ifndef MEMFIT_MODEL_CONFIG_CHECKPOINT_TRAITS_H_
#define MEMFIT_MODEL_CONFIG_CHECKPOINT_TRAITS_H_

#include "memfit/model_spec.h"
#include "model/config/config_document.h"

namespace memfit {

// Never fails: fields of the wrong type are left unstated (0 / "").
QuantizationInfo read_quantization(const ConfigDocument& doc);

// Whether an FP8 checkpoint's routed experts are MXFP4 instead (4-bit
// values, an 8-bit scale per 32): DeepSeek V4's expert_dtype "fp4", its
// default when the key is absent (vLLM's DeepseekV4FP8Config,
// models/deepseek_v4.py).
bool deepseek_v4_fp4_experts(const ConfigDocument& doc);
MoeInfo read_moe(const ConfigDocument& doc);
// The MLA widths of a config that has a kv_lora_rank (DeepSeek V2/V3, Kimi
// K2; `model_type` the text model's); zero otherwise.
MlaGeometry read_mla(const ConfigDocument& doc, std::string_view model_type);
// DeepSeek V4's compressed attention (`model_type` deepseek_v4): the first
// num_hidden_layers entries of compress_ratios (the rest are the MTP and
// draft layers'), sliding_window, head_dim, index_head_dim,
// qk_rope_head_dim and whether compress_rope_theta differs from
// rope_theta (rope_theta absent: it does). Empty for
// every other model type, and when compress_ratios is missing, shorter
// than the layers, or holds anything but non-negative integers.
CompressedAttentionGeometry read_compressed_attention(const ConfigDocument& doc,
                                                      std::string_view model_type);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_CHECKPOINT_TRAITS_H_
