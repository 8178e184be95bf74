// The mlx-lm engine profile (`--engine mlx-lm`): the peak that
// mx.get_peak_memory() reports for mlx_lm.generate / mlx_lm.benchmark with
// a prompt of P tokens, G generated tokens and B sequences
// (docs/engine-mlxlm.md has every rule and where mlx-lm states it):
//
//   weights     the bytes the weight headers declare, as loaded     (exact)
//   KV cache    mlx-lm's caches at their allocated size: KVCache grown in
//               steps of 256 tokens, RotatingKVCache for the sliding-window
//               layers of models whose make_cache builds one, and
//               QuantizedKVCache (packed words + scales + biases) with
//               kv_bits                                             (exact)
//   recurrent   ArraysCache: conv + SSM state per sequence    (upper bound)
//   transient   what MLX's command buffers in flight hold at once during
//               the phase's forward pass (docs/engine-mlxlm.md,
//               "Run-ahead"): the outputs of the ops in the open buffer
//               and the last 10 committed ones
//               (a prefill chunk's attention (the guard's SDPA rules), MLP,
//               the last chunk's logits over the vocabulary, a regrown
//               cache's old buffer), replayed op by op       (modelled)
//
// total_bytes is the largest of three phases: the last full prefill chunk,
// the last chunk (which runs the LM head over all its tokens), and the
// last decode step. estimate_mlxlm() is pure; every byte count is
// uint64_t, overflow-checked.
#ifndef MEMFIT_MLXLM_H_
#define MEMFIT_MLXLM_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "memfit/memory_budget.h"
#include "memfit/error_band.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// MLX's command-buffer limits: a buffer is committed once its op count
// passes max_ops or the arrays bound to it pass max_mega_elements x 2^20
// elements, and the evaluator waits while more than max_active buffers are
// in flight (docs/engine-mlxlm.md, "Run-ahead").
struct MlxBufferLimits {
  uint64_t max_ops = 50;            // MLX_MAX_OPS_PER_BUFFER
  uint64_t max_mega_elements = 50;  // MLX_MAX_MB_PER_BUFFER (2^20 elements, despite the name)
  bool distinct_inputs = true;      // Metal: true; CUDA graphs: false
  uint64_t max_active = 10;         // MAX_ACTIVE_TASKS in mlx/transforms.cpp
  // Whether an op's output counts toward the elements: Metal's
  // CommandEncoder::set_output_array binds the output through
  // set_input_array, which adds its data_size() (mlx/backend/metal/device.cpp,
  // v0.24.0 to v0.32.1); the CUDA backend's set_output_array adds nothing
  // (mlx/backend/cuda/device.cpp). Metal: true; CUDA graphs: false.
  bool count_outputs = true;
};

// An mlx-lm or MLX release, X.Y.Z ("0.27.0"; "0.27" is 0.27.0).
struct MlxRelease {
  uint64_t major = 0, minor = 0, patch = 0;
  auto operator<=>(const MlxRelease&) const = default;
};
std::string to_string(const MlxRelease& release);  // "0.27.0"

// The releases whose rules memfit knows (docs/engine-mlxlm.md, "Releases"):
// mlx-lm from 0.17.0 (the prompt run in chunks of prefill_step_size,
// mlx-examples #931), MLX from v0.24.0 (the bound on the buffers in
// flight). Newer releases are priced by the newest rules.
inline constexpr MlxRelease kMlxLmFirstKnown{0, 17, 0};
inline constexpr MlxRelease kMlxFirstKnown{0, 24, 0};
// mlx-lm #406 (first in 0.27.0): the prompt's last token alone goes
// through the step that computes logits.
inline constexpr MlxRelease kMlxLmLastTokenLogits{0, 27, 0};
// The newest releases read (docs/engine-mlxlm.md): mlx-lm's is the
// current release (tag v0.31.3), what a release not given is priced as.
inline constexpr MlxRelease kMlxLmNewestRead{0, 31, 3};
inline constexpr MlxRelease kMlxNewestRead{0, 32, 1};

// Parses X.Y or X.Y.Z (an optional leading "v", each part at most 4
// digits) and refuses a release before the first known one; a kUsage
// error (naming no field: the caller names it) with the range in words.
Result<MlxRelease> parse_mlx_lm_version(std::string_view text);
Result<MlxRelease> parse_mlx_version(std::string_view text);

// The class of an Apple GPU, as MLX's Metal device reads it from the
// architecture name's last letter (mlx/backend/metal/device.cpp): 'g'
// base and Pro, 's' Max, 'd' Ultra.
enum class MlxChip { kBase, kPro, kMax, kUltra };
std::string_view to_string(MlxChip chip);  // "base", "pro", "max", "ultra"
// "base", "pro", "max" or "ultra"; kUsage (naming no field) otherwise.
Result<MlxChip> parse_mlx_chip(std::string_view text);
// Metal's command-buffer limits on that chip: 40 ops / 40 x 2^20
// elements on base and Pro, 50 / 50 on Max and Ultra.
MlxBufferLimits mlx_metal_limits(MlxChip chip);
// The CUDA backend's graph limits (the request's backend cuda) under MLX
// release `mlx` (nullopt: the newest read): every input counted, the
// H100's (compute capability 9.0) per get_graph_limits in
// mlx/backend/cuda/device.cpp: 30 ops / 400 x 2^20 elements from v0.30.0
// (mlx #2761) until v0.30.5, 100 / 1000 since (mlx #3077, 12e386f3). The
// one GPU memfit prices (docs/engine-mlxlm.md, "Run-ahead"); another GPU's
// are given as the request's limits. A release before v0.30.0 is priced
// with v0.30.0's.
MlxBufferLimits mlx_cuda_limits(const std::optional<MlxRelease>& mlx);
// The largest limits the estimate takes (it refuses more, naming the
// field): they bound the replay's buffers.
inline constexpr uint64_t kMlxMaxOpsPerBuffer = 100000;
inline constexpr uint64_t kMlxMaxMegaElementsPerBuffer = 1000000;

// mlx-lm's flags, with mlx_lm.benchmark's defaults for the workload.
struct MlxLmSettings {
  uint64_t prompt_tokens = 512;      // --prompt-tokens (-p)
  uint64_t max_tokens = 1024;        // --max-tokens / -g: tokens generated
  uint64_t batch = 1;                // --batch-size (-b)
  uint64_t prefill_step_size = 2048; // --prefill-step-size
  uint64_t kv_bits = 0;              // --kv-bits: 0 = unquantized; 2, 3, 4, 5, 6 or 8
  uint64_t kv_group_size = 64;       // --kv-group-size: 32, 64 or 128
  uint64_t max_kv_size = 0;          // --max-kv-size: 0 = unbounded
  // The attention of a prefill chunk: true follows the guard's SDPA rules
  // (MLX's fused kernels); false prices the score matrix (MLX releases
  // before 0.21 had no fused kernel for prompts). Library-only.
  bool fused_sdpa = true;
  // MLX's command-buffer limits. The default is Metal's on Max and Ultra
  // chips (50 ops, 50 x 2^20 input elements), the largest Apple GPUs use:
  // a larger buffer holds more, so the figure is high on base and Pro
  // chips (40, 40). The CUDA backend's graphs: {ops, mega-elements, false}
  // per GPU (H100: 100, 1000 since MLX #3077). The request's mlx_chip
  // picks Metal's (mlx_metal_limits).
  MlxBufferLimits buffers{};
  // The mlx-lm release whose prompt loop is priced; nullopt: not given,
  // priced as the current release, kMlxLmNewestRead (the logits of the
  // last chunk's final token alone); older releases by their own rules.
  std::optional<MlxRelease> mlx_lm_release;
  // --confidence: 90, 95 or 99, the corpus margin added to the peak
  // (memfit/error_band.h); 0: none.
  uint64_t confidence = 0;
};

// How many rows of logits the prompt's last pass of `last_chunk_tokens`
// computes under `release`: all of them before kMlxLmLastTokenLogits, one
// since and with no release given (docs/engine-mlxlm.md, "Releases").
uint64_t mlxlm_last_chunk_logits_rows(const std::optional<MlxRelease>& release,
                                      uint64_t last_chunk_tokens);

inline constexpr uint64_t kMlxLmCacheStep = 256;  // KVCache.step
inline constexpr uint64_t kMlxLmActivationBytes = 2;  // fp16 / bf16 activations
inline constexpr uint64_t kMlxLmMaxTokens = 1ull << 26;  // prompt or generation past this: usage error

// The phase whose sum is the peak.
enum class MlxLmPhase { kPrefillChunk, kLastChunk, kDecode };
std::string_view to_string(MlxLmPhase phase);  // "prefill_chunk", "last_chunk", "decode"

struct MlxLmPhaseBytes {
  uint64_t kv_bytes = 0;         // every cache at its size in this phase
  uint64_t attention_bytes = 0;  // SDPA transient (x batch)
  uint64_t mlp_bytes = 0;        // MLP / experts intermediates (x batch)
  uint64_t logits_bytes = 0;     // the LM head's output (x batch)
  uint64_t regrow_bytes = 0;     // the largest layer's old buffer when it is regrown
  uint64_t transient_bytes = 0;  // what the buffers in flight hold at once (MlxBufferLimits)
  uint64_t total_bytes = 0;      // weights + kv + recurrent + transient
};

struct MlxLmEstimate {
  MlxLmSettings settings;
  uint64_t full_chunks = 0;      // prefill chunks of prefill_step_size before the last
  uint64_t last_chunk_tokens = 0;  // the last chunk: 1 .. prefill_step_size
  uint64_t kv_capacity_tokens = 0;  // a full-attention layer's KVCache at the end (0: none)
  // What one more token adds to the caches without a window (KVCache
  // layers), one sequence, as stored (kv_bits packing included); 0: none.
  uint64_t kv_bytes_per_token = 0;
  uint64_t rotating_layers = 0;  // layers on a RotatingKVCache
  uint64_t kv_layers = 0;        // layers holding K/V (or an MLA latent)
  uint64_t recurrent_layers = 0;
  bool fused_attention = false;  // the last chunk's SDPA is a fused kernel
  bool max_kv_size_ignored = false;  // the model's own make_cache wins over --max-kv-size
  uint64_t weights_bytes = 0;    // exact when the headers were read (or a verified index)
  bool weights_exact = false;
  uint64_t recurrent_bytes = 0;  // x batch
  MlxLmPhaseBytes prefill_chunk;  // zero when the prompt is one chunk
  MlxLmPhaseBytes last_chunk;
  MlxLmPhaseBytes decode;
  MlxLmPhase peak_phase = MlxLmPhase::kLastChunk;
  uint64_t kv_bytes = 0;         // the KV cache at the peak
  uint64_t transient_bytes = 0;  // the transient at the peak
  uint64_t peak_bytes = 0;       // the peak mx.get_peak_memory() reports
  // The corpus's band of the peak (figure "peak", backend "Metal" or
  // "MLX-CUDA"); under settings.confidence its margin is in total_bytes.
  ReportBands bands;
  uint64_t total_bytes = 0;      // peak_bytes + bands.margin_bytes: what the budget must hold
  uint64_t budget_bytes = 0;
  bool fits = false;
  // Wired memory: the peak rounded up to whole MiB, for
  // mx.set_wired_limit(bytes) and `sudo sysctl iogpu.wired_limit_mb=N`.
  uint64_t wired_limit_mb = 0;
};

// The estimate. kUsage (naming the field) for a prompt_tokens, max_tokens,
// batch or prefill_step_size of 0 or past kMlxLmMaxTokens, kv_bits not in
// {2,3,4,5,6,8}, kv_group_size not in {32,64,128} or not dividing the head
// dim, and kv_bits where mlx-lm cannot quantize the cache (a rotating
// cache: the model's sliding-window layers or max_kv_size; an MLA latent
// cache); kOverflow on absurd sizes.
Result<MlxLmEstimate> estimate_mlxlm(const Model& model, const MlxLmSettings& settings,
                                     const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXLM_H_
