// The vLLM engine's answer (vllm.h) as JSON and as text: the head every
// engine's report has (model, model_type, family, layout, engine "vllm",
// weights, budget, total, fits, assumptions, warnings), vLLM's inputs, and
//   "vllm": {"weights_bytes", "rope_cache_bytes", "platform" ("cuda" |
//            "rocm"), "rocm_allocator_bytes", "rocm_padding_bytes",
//            "rocm_runtime_bytes" (0 on CUDA), "activation_bytes",
//            "non_torch_bytes", "cuda_graph_bytes", "gpu_memory_total",
//            "requested_bytes", "kv_cache_bytes", "page_size_bytes",
//            "attention_block_size", "group_size", "groups": [{"kind",
//            "layers", "window", "block_size", "blocks_per_request"}],
//            "num_gpu_blocks", "kv_tokens", "max_concurrency",
//            "blocks_per_request", "max_model_len_fit", "max_num_seqs_fit",
//            "kv_cache_memory_for_max_num_seqs", "starts",
//            "figures": {term: "exact" | "modelled"},
//            "command": the vllm serve line, "command_kv_cache_memory": the
//            same with --kv-cache-memory-bytes for max_num_seqs requests,
//            and for DeepSeek-V3.2 only "sparse_mla": {"block_size",
//            "mla_token_bytes", "indexer_token_bytes", "bytes_per_block"}}
// total_bytes is vLLM's peak per rank.
#ifndef MEMFIT_VLLM_REPORT_H_
#define MEMFIT_VLLM_REPORT_H_

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/visibility.h"
#include "memfit/vllm.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The flags of `vllm serve` for `e`'s settings, one argv word each
// ("--max-model-len", "4096", ...): the tensor parallelism when not 1,
// --max-model-len, --max-num-seqs, --max-num-batched-tokens, the block
// size, KV dtype and --enforce-eager when not the default, then
// --kv-cache-memory-bytes (`kv_cache_memory`, else the KV memory given) or
// --gpu-memory-utilization.
std::vector<std::string> vllm_serve_flags(const VllmEstimate& e, uint64_t kv_cache_memory = 0);

// The `vllm serve` line for `e`'s settings; with `kv_cache_memory`, the KV
// cache pinned to it (--kv-cache-memory-bytes) instead of the utilization.
std::string vllm_serve_command(const std::string& model, const VllmEstimate& e,
                               uint64_t kv_cache_memory = 0);

nlohmann::ordered_json vllm_estimate_to_json(const Model& model, const VllmEstimate& e,
                                             const MemoryBudget& budget,
                                             std::span<const Warning> warnings);

std::string render_vllm_text(const Model& model, const VllmEstimate& e, const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_VLLM_REPORT_H_
