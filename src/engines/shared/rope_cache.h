// The rotary cos/sin caches a vLLM (or SGLang, whose rotary layers follow
// vLLM's) model keeps on the GPU: one per distinct rotary embedding, each
// a buffer of rows x head dim in the model's dtype, counted in "Model
// loading took". Private to the library; docs/engine-vllm.md, "Rope cache".
#ifndef MEMFIT_ENGINES_SHARED_ROPE_CACHE_H_
#define MEMFIT_ENGINES_SHARED_ROPE_CACHE_H_

#include <cstdint>

#include "memfit/model_spec.h"

namespace memfit {

// Rows of one cos/sin cache for a model of `max_positions` positions with
// the given RoPE scaling (vllm/model_executor/layers/rotary_embedding/):
// RotaryEmbedding and Llama3RotaryEmbedding build max_positions rows;
// LinearScalingRotaryEmbedding and DynamicNTKScalingRotaryEmbedding
// max_positions x factor ("the maximum length after applying the rope
// scaling"); YaRNScalingRotaryEmbedding original_max_position_embeddings x
// factor (get_rope hands it the original length). A fractional product is
// rounded up, as torch.arange over it counts. 0 positions: 0 rows.
uint64_t rope_cache_rows(const ModelSpec::RopeScaling& scaling, uint64_t max_positions);

// Bytes of every cos/sin cache the model keeps: head dim x 2 bytes a row
// (gpt-oss: 4, its rotary embedding is float32, models/gpt_oss.py); Gemma
// 3 keeps two, the sliding layers' unscaled one at rope_local_base_freq
// and the global layers' with the config's scaling (models/gemma3.py,
// Gemma3Attention: get_rope with a local and a global base); DeepSeek V4
// (a compressed-attention spec) one or two float32 tables of its rotated
// tail only (rope_cache.cc). Saturates at UINT64_MAX.
uint64_t rope_cache_bytes(const ModelSpec& spec);

// vLLM's cache for a multimodal rope: a rope of type "mrope" (Qwen2-VL,
// Qwen2.5-VL) or one naming an mrope_section beside rope_type "default"
// or "yarn" (Qwen3-VL, Qwen3.5), which get_rope builds as MRotaryEmbedding
// (model_executor/layers/rotary_embedding/mrope.py, since the Qwen2.5-VL
// support of v0.7.2: "We enlarge max_position_embeddings to 4 times",
// cache_max_position_num): 4 x rope_cache_rows rows of rotary_dim x 2
// bytes, rotary_dim = int(head_dim x partial_rotary_factor) (get_rope).
// Qwen3-VL rotates the whole head: 4 x its plain cache; Qwen3.5 a quarter
// of it: the same bytes as the plain cache. 0 for any other rope.
// Saturates at UINT64_MAX.
uint64_t vllm_mrope_cache_bytes(const ModelSpec& spec);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_ROPE_CACHE_H_
