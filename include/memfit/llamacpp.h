// The llama.cpp engine profile (`--engine llamacpp`): what the pinned
// llama.cpp (v0.4.0, as node-llama-cpp 3.21.1 ships it) allocates for a
// model, in the three categories of its own memory breakdown, summed over
// devices (docs/llamacpp-rules.md is the specification; docs/engine-llamacpp.md
// says how memfit applies it):
//
//   model    the weights: memfit's header bytes                    (exact)
//   context  KV cache + recurrent state + the output (logits) buffer (exact)
//   compute  the scheduler's compute buffers                     (modelled)
//
// estimate_llamacpp() is a pure function of the model, the settings and the
// budget. Every byte count is uint64_t, overflow-checked.
#ifndef MEMFIT_LLAMACPP_H_
#define MEMFIT_LLAMACPP_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "memfit/ggml_types.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/result.h"

namespace memfit {

enum class FlashAttn { kAuto, kOn, kOff };
std::string_view to_string(FlashAttn mode);  // "auto", "on", "off"

// "on" | "off" | "auto" (llama.cpp's spellings). Usage errors name no field.
Result<FlashAttn> parse_flash_attn(std::string_view text);
// The nine types --cache-type-k/-v accept: f32, f16, bf16, q8_0, q4_0, q4_1,
// q5_0, q5_1, iq4_nl. Usage errors name no field.
Result<GgmlType> parse_llamacpp_cache_type(std::string_view text);

// llama.cpp's flags, with the command-line tools' defaults
// (common/common.h: common_params).
struct LlamaCppSettings {
  uint64_t ctx_size = 0;        // --ctx-size; 0: the model's training context
  uint64_t parallel = 1;        // --parallel (n_seq_max), 1 .. 256
  uint64_t batch_size = 2048;   // --batch-size, >= 1
  uint64_t ubatch_size = 512;   // --ubatch-size, >= 1
  GgmlType cache_type_k = GgmlType::kF16;
  GgmlType cache_type_v = GgmlType::kF16;
  FlashAttn flash_attn = FlashAttn::kAuto;
  bool swa_full = false;
  bool kv_unified = false;
};

inline constexpr uint64_t kLlamaCppMaxSequences = 256;  // LLAMA_MAX_SEQ
inline constexpr uint64_t kLlamaCppCellPad = 256;       // n_ctx and SWA cells

// The context as llama_context's log lines print it, after clamping.
struct LlamaCppContext {
  uint64_t n_seq = 1;        // max(1, --parallel)
  uint64_t n_ctx = 0;        // total cells of the base cache over all streams
  uint64_t n_ctx_seq = 0;    // base cells per stream
  uint64_t streams = 1;      // 1 unified, n_seq otherwise
  uint64_t n_batch = 0;      // min(ctx before padding, --batch-size)
  uint64_t n_ubatch = 0;     // min(n_batch, --ubatch-size)
  uint64_t swa_cells = 0;    // SWA cells per stream; 0 when no layer is SWA
  bool flash_attn = true;    // as resolved: auto is on (the CPU resolves it on)
};

struct LlamaCppEstimate {
  LlamaCppSettings settings;
  LlamaCppContext context;
  uint64_t model_bytes = 0;    // the weights (exact when the headers were read)
  bool model_bytes_exact = false;
  uint64_t k_bytes = 0;        // every layer's K tensors
  uint64_t v_bytes = 0;        // every layer's V tensors (0 for MLA)
  uint64_t kv_bytes = 0;       // k + v
  uint64_t kv_layers = 0;      // layers that hold KV
  uint64_t recurrent_bytes = 0;
  uint64_t recurrent_layers = 0;
  uint64_t output_bytes = 0;   // 4 x n_seq x n_vocab
  uint64_t context_bytes = 0;  // kv + recurrent + output (exact)
  uint64_t compute_bytes = 0;  // modelled
  uint64_t total_bytes = 0;    // model + context + compute
  uint64_t budget_bytes = 0;
  bool fits = false;
};

// Resolves the context (cells, streams, batch, flash attention) the way
// llama_context's constructor does. Fails (kUsage, naming the field) on a
// parallel of 0 or past 256, a batch or ubatch of 0, a quantized V cache with
// flash attention off, and a context of 0 when the model declares none.
Result<LlamaCppContext> resolve_llamacpp_context(const ModelSpec& spec,
                                                 const LlamaCppSettings& settings);

// The estimate. Fails as resolve_llamacpp_context does, with kUsage when
// an MLA model's K and V types differ or a cache row is not a whole number
// of the type's blocks, and with kOverflow on absurd sizes.
Result<LlamaCppEstimate> estimate_llamacpp(const Model& model, const LlamaCppSettings& settings,
                                           const MemoryBudget& budget);

}  // namespace memfit

#endif  // MEMFIT_LLAMACPP_H_
