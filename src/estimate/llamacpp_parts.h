// The parts of the llama.cpp estimate (llamacpp.h), one file each:
// llamacpp_context.cc (cells, streams, batch), llamacpp_memory.cc (KV,
// recurrent state, output buffer: exact) and llamacpp_compute.cc (the
// compute buffer: modelled). Private to the library.
#ifndef MEMFIT_ESTIMATE_LLAMACPP_PARTS_H_
#define MEMFIT_ESTIMATE_LLAMACPP_PARTS_H_

#include <cstdint>

#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

// Cells per stream of a sliding-window or chunked layer of `window_tokens`
// (llama_kv_cache_iswa): n_ctx_seq with --swa-full, else
//   pad256(min(n_ctx_seq, window x (unified ? n_seq : 1) + n_ubatch)).
uint64_t swa_cells(const LlamaCppContext& context, const LlamaCppSettings& settings,
                   uint64_t window_tokens);

// True for a layer llama.cpp gives an SWA cache (a bounded window).
bool is_windowed(const LayerCache& layer);

struct MemoryParts {
  uint64_t k_bytes = 0;
  uint64_t v_bytes = 0;
  uint64_t kv_layers = 0;
  uint64_t recurrent_bytes = 0;
  uint64_t recurrent_layers = 0;
  uint64_t output_bytes = 0;
};

// KV (K and V rows at the cache types, cells x streams per layer),
// recurrent state (state_bytes x n_seq per layer) and the output buffer
// (4 x n_seq x vocab). kUsage when a row is not a whole number of blocks or
// an MLA model's K and V types differ; kOverflow on absurd sizes.
Result<MemoryParts> memory_parts(const ModelSpec& spec, const LlamaCppContext& context,
                                 const LlamaCppSettings& settings);

// The modelled compute buffer: the largest phase of the prompt graph
// (output, attention, FFN; llamacpp_compute.cc). kOverflow on absurd sizes.
Result<uint64_t> compute_bytes(const ModelSpec& spec, const LlamaCppContext& context,
                               const LlamaCppSettings& settings);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ESTIMATE_LLAMACPP_PARTS_H_
