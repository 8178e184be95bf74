// vLLM's KV cache for DeepSeek V4's compressed attention (docs/engine-vllm.md,
// "DeepSeek V4"): per layer a sliding window of whole rows, a compressed
// row per compress_ratio tokens, the compressors' running state and the
// indexer's keys, each a cache spec of its own, grouped and bucketed by
// page size as vLLM's v0.22-v0.23 line does. Private to the library.
#ifndef MEMFIT_ENGINES_VLLM_COMPRESSED_KV_H_
#define MEMFIT_ENGINES_VLLM_COMPRESSED_KV_H_

#include <cstdint>
#include <optional>
#include <span>

#include "memfit/model_spec.h"
#include "memfit/vllm.h"

namespace memfit {

// The logical block of DeepSeek V4's full (compressed and indexer) caches:
// DeepseekSparseSWABackend.get_preferred_block_size, which vLLM sets when
// --block-size is not given ("Setting kv cache block size to 256").
inline constexpr uint64_t kVllmCompressedBlockSize = 256;

// The layout of a model with CompressedAttentionGeometry (DeepSeek V4)
// under `settings`: groups with their page_bytes, bytes_per_block,
// request_unit_bytes and request_tuple_bytes set (their blocks per request
// are vllm_request_blocks'). nullopt for every other model, and for a
// layout vLLM refuses to build (a compress ratio other than 0, 1, 4 and
// 128, or no compressed layer).
std::optional<VllmKvLayout> vllm_compressed_layout(const ModelSpec& spec, const VllmSettings& settings);

// The layer-tuple count vLLM picks for groups of `counts` layer tuples
// (_approximate_gcd): the d in [lower_bound, max(counts)] that pads the
// counts up to multiples of d the least, the larger on ties. lower_bound
// when it is past every count; 0 for no counts.
uint64_t vllm_layer_tuples(std::span<const uint64_t> counts, uint64_t lower_bound);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_COMPRESSED_KV_H_
