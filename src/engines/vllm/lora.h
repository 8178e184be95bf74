// vLLM's LoRA slots (--enable-lora; docs/engine-vllm.md, "LoRA slots"):
// the A and B buffers every decoder linear layer allocates for max_loras
// adapters of rank max_lora_rank when the model loads. Private to the vLLM
// engine.
#ifndef MEMFIT_ENGINES_VLLM_LORA_H_
#define MEMFIT_ENGINES_VLLM_LORA_H_

#include <cstdint>

#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/vllm.h"

namespace memfit {

// The ranks vLLM's LoRAConfig accepts for --max-lora-rank (MaxLoRARanks).
inline constexpr uint64_t kVllmLoraRanks[] = {1, 8, 16, 32, 64, 128, 256, 320, 512};

// Bytes of one rank's LoRA slots for `spec` under `settings` (its
// tensor_parallel and lora): 0 when LoRA is off. Each decoder layer's
// q, k, v, gate and up projections (column-parallel: A [max_loras, 1,
// rank, hidden], rank / TP rows with fully_sharded, and B [max_loras, 1,
// output / TP, rank], k/v at max(1, kv_heads / TP) heads) and its o and
// down projections (row-parallel: A [max_loras, 1, rank, input / TP] and
// B [max_loras, 1, hidden, rank], hidden / TP rows with fully_sharded), 2
// bytes an element, each buffer at PyTorch's 512-byte rounding. Errors
// (kUsage, naming the field): a rank vLLM refuses; fully_sharded with a
// rank or hidden size TP does not divide (vLLM's divide() asserts); a model
// whose layers are not plain attention and a dense MLP (MoE experts, MLA,
// Mamba, gated delta nets, DeepSeek V4's compressed attention: their LoRA
// wrappers are not modelled); overflow.
Result<uint64_t> vllm_lora_bytes(const ModelSpec& spec, const VllmSettings& settings);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_LORA_H_
