// vLLM's KV cache rates for DeepSeek-V3.2's sparse attention
// (docs/engine-vllm.md, "DeepSeek-V3.2"): the MLA latent and the lightning
// indexer's keys, two caches on every layer of one block table. Private to
// the library.
#ifndef MEMFIT_ENGINES_VLLM_SPARSE_MLA_H_
#define MEMFIT_ENGINES_VLLM_SPARSE_MLA_H_

#include <cstdint>
#include <optional>

#include "memfit/model_spec.h"
#include "memfit/vllm.h"

namespace memfit {

// vLLM forces 64-token blocks for the FlashMLA-sparse backend, stores
// --kv-cache-dtype fp8 as its fp8_ds_mla layout (656 bytes a token: 512
// fp8 latent bytes, 4 float32 scales, 64 bf16 rope values), and keeps each
// layer's indexer keys as uint8: index_head_dim fp8 bytes and one float32
// scale per 128.
inline constexpr uint64_t kVllmSparseMlaBlockSize = 64;
inline constexpr uint64_t kVllmFp8DsMlaTokenBytes = 656;
inline constexpr uint64_t kVllmIndexerQuantBlock = 128;

struct VllmSparseMla {
  uint64_t block_size = kVllmSparseMlaBlockSize;  // tokens a block, whatever --block-size says
  uint64_t mla_token_bytes = 0;      // one layer's latent, bytes a token
  uint64_t indexer_token_bytes = 0;  // one layer's indexer key, bytes a token
};

// The rates of a DeepSeek-V3.2 model (config model_type deepseek_v32, GGUF
// deepseek32, whose MLA layers carry 512 + 64 latent elements and the
// indexer key) under `settings`; nullopt for every other model.
std::optional<VllmSparseMla> vllm_sparse_mla(const ModelSpec& spec, const VllmSettings& settings);

// The block size vLLM's CUDA platform forces for a dense MLA model
// (DeepSeek-V2/V3, Kimi-K2) with the attention backend it picks by
// default on the GPU named in settings.gpu_name: Hopper (H100, H200, H800,
// H20, GH200) runs FlashMLA, which needs a multiple of 64; datacenter
// Blackwell (B100, B200, B300, GB200, GB300) runs FlashInfer MLA, which
// takes 32 or a multiple of 64 (qk_nope_head_dim 128 assumed, as in every
// DeepSeek-V2/V3 and Kimi-K2 config). Returns settings.block_size when
// nothing is forced: another GPU (Triton MLA), an unnamed one, or a
// release other than the current line.
uint64_t vllm_mla_block_size(const VllmSettings& settings);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_SPARSE_MLA_H_
