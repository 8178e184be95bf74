// What an SGLang rank holds at "Load weight end" past the checkpoint's
// tensors and the allocator's rounding (docs/engine-sglang.md, "Rules",
// weights): the rotary cos/sin cache as SGLang keeps it, and an MLA
// model's absorbed copies of kv_b_proj (w_kc, w_vc). Private to the
// library.
#ifndef MEMFIT_ENGINES_SGLANG_HELD_WEIGHTS_H_
#define MEMFIT_ENGINES_SGLANG_HELD_WEIGHTS_H_

#include <cstdint>

#include "memfit/model_spec.h"

namespace memfit::sglang {

// The rotary cache SGLang builds (layers/rotary_embedding/base.py,
// RotaryEmbedding.__init__: "cache needs to be in FP32 for numerical
// stability", kept float32 on CUDA and cast to the model's dtype
// elsewhere, since sgl-project/sglang#3134): the rows and widths of
// rope_cache_bytes (engines/shared/rope_cache.h) at 4 bytes where
// `float32`, else 2; an MLA model's one table is qk_rope_head_dim wide
// (DeepseekScalingRotaryEmbedding's rotary_dim), not the config's head
// width. gpt-oss (already float32) and DeepSeek V4 (its own float32
// tables) as rope_cache_bytes prices them.
uint64_t rope_cache_bytes(const ModelSpec& spec, bool float32);

// An MLA model's w_kc and w_vc (models/deepseek_common/
// deepseek_weight_loader.py, post_load_weights): kv_b_proj's rank share,
// heads / attention TP x (qk_nope_head_dim + v_head_dim) x kv_lora_rank,
// copied out beside the kv_b_proj SGLang keeps, per MLA layer. An FP8
// checkpoint's 128 x 128 blocks are dequantized to bf16 on CUDA
// (block_quant_dequant: 2 bytes) and requantized per tensor on ROCm
// (block_quant_to_tensor_quant: 1 byte), a per-channel FP8 one requantized
// per tensor (1 byte); any other checkpoint's copies are 16-bit. 0 for a
// model without MLA (kv_lora_rank 0) and for DeepSeek V4.
uint64_t absorbed_kv_b_bytes(const ModelSpec& spec, uint64_t attention_tp, bool rocm);

// What a rank holds past its TP share of an MLA model's shared experts
// under --moe-a2a-backend deepep: DeepseekV2MoE builds the shared MLP
// with tp_size=1 there (whole on every rank, not fused into the routed
// experts), so per MoE layer its gate_up (2 x width x hidden) and down
// (hidden x width), width moe_intermediate x n_shared_experts, whole
// rather than 1 / tensor_parallel, 16-bit or FP8 (1 byte and with
// weight_block_size a fp32 scale a block). 0 without DeepEP, for a model
// without MLA or shared experts, or another quantization.
uint64_t deepep_shared_expert_bytes(const ModelSpec& spec, uint64_t tensor_parallel, bool deepep);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_HELD_WEIGHTS_H_
