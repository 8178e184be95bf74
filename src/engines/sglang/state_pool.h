// SGLang's state pool of hybrid models (Mamba-2 mixers: Nemotron-H,
// Falcon-H1, Granite 4 hybrid; gated delta-net linear attention:
// Qwen3-Next, Qwen3.5; LFM2 short-conv layers, a conv state only): a fixed
// state per request slot, beside the KV pool
// of the full-attention layers (docs/engine-sglang.md, "Hybrid models").
//
//   state per request  every state layer's conv state (conv_dim / TP x
//                      (kernel - 1), 16-bit) and temporal state (heads / TP
//                      x head_dim x state, --mamba-ssm-dtype): SGLang's
//                      mamba_cache_per_req                   (exact rule)
//   slots              --max-mamba-cache-size; else, radix cache on, the
//                      share --mamba-full-memory-ratio r gives the state of
//                      what the KV pool would get: rest x r / (1 + r) over
//                      the state per request; radix cache off,
//                      --max-running-requests else 512        (exact rule)
//   requests           at most slots / 3 (radix cache on) or slots / 1
//
// Pure functions; byte counts are uint64_t, overflow-checked.
#ifndef MEMFIT_ENGINES_SGLANG_STATE_POOL_H_
#define MEMFIT_ENGINES_SGLANG_STATE_POOL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::sglang {

// SGLang's defaults (server_args.py; model_runner.py).
inline constexpr double kMambaFullMemoryRatio = 0.9;        // --mamba-full-memory-ratio
inline constexpr uint64_t kSlotsWithoutRadixCache = 512;    // radix off, no --max-running-requests
inline constexpr uint64_t kSlotsPerRequestWithRadix = 3;    // MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO
inline constexpr uint64_t kConvStateBytes = 2;              // the conv state: bfloat16

// The state pool's flags as resolved by fields.cc.
struct StateSettings {
  std::optional<uint64_t> max_mamba_cache_size;    // --max-mamba-cache-size
  double mamba_full_memory_ratio = kMambaFullMemoryRatio;
  uint64_t ssm_bytes = 4;                          // --mamba-ssm-dtype: float32 4, bfloat16 2
  std::string mamba_ssm_dtype = "float32";         // as given
  bool disable_radix_cache = false;                // --disable-radix-cache
};

// One request's state on one rank, over every state layer.
struct StateCell {
  uint64_t layers = 0;          // layers holding a priced state
  uint64_t conv_bytes = 0;      // per request, every layer
  uint64_t temporal_bytes = 0;  // per request, every layer
  uint64_t bytes = 0;           // conv + temporal: mamba_cache_per_req
  bool unpriced = false;        // state layers whose SGLang rule was not read
};

// Whether the model has layers whose state SGLang's pool prices here
// (Mamba-2 mixers, gated delta-net): the state fields apply to it.
bool prices_state(const ModelSpec& spec);

// The state of one request per rank at attention-TP `tp`. kUsage naming
// tensor_parallel when TP does not divide the heads as SGLang's divide()
// asserts; an empty cell for a model without state layers.
Result<StateCell> state_cell(const ModelSpec& spec, uint64_t tp, uint64_t ssm_bytes);

struct StatePool {
  uint64_t slots = 0;              // max_mamba_cache_size, as SGLang resolves it
  uint64_t bytes = 0;              // slots x the cell
  bool from_ratio = false;         // sized by --mamba-full-memory-ratio
  uint64_t slots_per_request = 0;  // 3 with the radix cache, else 1
};

// The slots SGLang gives the pool out of `rest_bytes` (what the fraction
// leaves after the weights): handle_max_mamba_cache. `max_running_requests`
// is the flag as given; `dp_attention_size` divides an explicit size (DP
// under --enable-dp-attention, else 1).
StatePool size_state_pool(uint64_t rest_bytes, const StateCell& cell, const StateSettings& s,
                          std::optional<uint64_t> max_running_requests, uint64_t dp_attention_size);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_STATE_POOL_H_
