// The weights a rank holds past memfit's tensor-parallel split under
// SGLang's --enable-dp-attention (docs/engine-sglang.md, "Rules", weights).
// The DP ranks split one TP group, and the attention runs on the attention
// TP group (TP / DP ranks): its projections are split by that smaller
// group (QKVParallelLinear and RowParallelLinear given attn_tp_rank and
// attn_tp_size, get_attention_tp_size), and the token embedding is built
// whole on every rank (VocabParallelEmbedding(enable_tp=not
// is_dp_attention_enabled()), models/qwen2.py and the models that support
// DP attention); the LM head stays split by TP unless --enable-dp-lm-head
// (off by default) splits it by the attention TP group too
// (ParallelLMHead's use_attn_tp_group, layers/vocab_parallel_embedding.py;
// LogitsProcessor's use_attn_tp_group = enable_dp_lm_head). Private to the
// library.
#ifndef MEMFIT_ENGINES_SGLANG_DP_ATTENTION_WEIGHTS_H_
#define MEMFIT_ENGINES_SGLANG_DP_ATTENTION_WEIGHTS_H_

#include <cstdint>

#include "memfit/model_spec.h"

namespace memfit::sglang {

// The bytes one rank holds beyond its TP share of `tensor_parallel` when
// its attention is split by `attention_tp` instead: per attention layer
// q and o (heads x head_dim x hidden each) at 1 / attention_tp rather than
// 1 / tensor_parallel, k and v at max(1, kv_heads / attention_tp) heads
// rather than max(1, kv_heads / tensor_parallel), and the embedding table
// (vocabulary padded to 64 rows x hidden) whole rather than
// 1 / tensor_parallel, all at 2 bytes; with `dp_lm_head` an untied LM head
// (the same padded rows x hidden) at 1 / attention_tp rather than
// 1 / tensor_parallel too (a tied one is the embedding, counted once).
// An MLA model (DeepSeek V2/V3/R1, Kimi K2, GLM-5; not V4), 16-bit or FP8
// (Fp8Config, 1-byte elements and with weight_block_size a fp32 scale a
// block): per layer q_b_proj (q_proj without q_lora), kv_b_proj and
// o_proj at heads / attention_tp rather than heads / tensor_parallel
// (DeepseekV2AttentionMLA given attn_tp_size; fused_qkv_a stays whole, as
// the TP share has it), and the 2-byte embedding whole before
// sgl-project/sglang#17403, by attention_tp from it
// (`mla_embedding_by_attention_tp`). 0 when attention_tp is not smaller
// than tensor_parallel, or for a model this does not describe (another
// quantization, or a layout other than standard / sliding window / MLA:
// linear-attention layers have other projections).
uint64_t dp_attention_weights_bytes(const ModelSpec& spec, uint64_t tensor_parallel, uint64_t attention_tp,
                                    bool dp_lm_head = false, bool mla_embedding_by_attention_tp = false);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_DP_ATTENTION_WEIGHTS_H_
