// The parts of the vLLM estimate (memfit/vllm.h) its files share: one
// rank's weights (vllm/estimate.cc), the KV cache layout and the blocks it
// makes (vllm/kv.cc). docs/engine-vllm.md has every rule. Private to the
// library.
#ifndef MEMFIT_ENGINES_VLLM_PARTS_H_
#define MEMFIT_ENGINES_VLLM_PARTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "memfit/model.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "engines/shared/tp_rank_weights.h"
#include "memfit/vllm.h"

namespace memfit {

// The weights one rank holds. `tensors` is the checkpoint's tensor list
// (empty: split the model's total by its geometry); `mxfp4_kernel` lays
// out an MXFP4 checkpoint's experts; `stage` is the rank's pipeline stage
// (nullopt: the whole model; vllm_pipeline_stages). Fails on overflow.
Result<VllmWeights> vllm_rank_weights(const Model& model, std::span<const SafetensorsTensor> tensors,
                                      uint64_t tensor_parallel,
                                      Mxfp4Kernel mxfp4_kernel = Mxfp4Kernel::kTriton,
                                      const std::optional<PipelineStage>& stage = std::nullopt);

// vLLM runs the model in its 16-bit dtype (memfit prices no float32 run):
// the element of the state a "mamba_cache_dtype auto" resolves to.
inline constexpr uint64_t kVllmModelDtypeBytes = 2;

// The request's engine_fields entries for vLLM's --mamba-cache-dtype and
// --mamba-ssm-cache-dtype (fields.cc keeps their text there: the request
// struct is the public API's); VllmSettings carries them resolved.
inline constexpr std::string_view kVllmMambaCacheDtypeField = "mamba_cache_dtype";
inline constexpr std::string_view kVllmMambaSsmCacheDtypeField = "mamba_ssm_cache_dtype";
// A MambaDType's text (vllm/config/cache.py): auto, float32, float16 or
// bfloat16; a kUsage error naming no field otherwise.
Result<std::string> parse_vllm_mamba_dtype(std::string_view text);
// Whether `settings`' release has the dtypes it names (kUsage naming the
// field otherwise): the flags exist from vllm#22928 (0.10.2; not in v0.7),
// float16 from 0.13 (vllm#29978), bfloat16 from 0.21 (vllm#41680, May
// 2026: memfit's current line; 0.21 itself unconfirmed).
Status check_vllm_mamba_dtypes(const VllmSettings& settings);
inline constexpr uint64_t kVllmMambaFloat16Minor = 13, kVllmMambaBfloat16Minor = 21;
// The first minor whose gated delta nets read --mamba-ssm-cache-dtype:
// vllm#34489 (merged 2026-02-13, with Qwen3.5's hook) is after 0.15, which
// runs no Qwen3.5; 0.16 is priced with it (unconfirmed).
inline constexpr uint64_t kVllmGatedDeltaSsmFlagMinor = 16;

// The two flags as the state dtype rules below read them.
struct VllmMambaDtypes {
  std::string_view cache = "auto";  // --mamba-cache-dtype
  std::string_view ssm = "auto";    // --mamba-ssm-cache-dtype
};
inline VllmMambaDtypes vllm_mamba_dtypes(const VllmSettings& s) {
  return {s.mamba_cache_dtype, s.mamba_ssm_cache_dtype};
}
// Bytes of one element of the convolution state (and of a lightning or
// short-convolution state): --mamba-cache-dtype, "auto" the model's
// (get_kv_cache_torch_dtype): float32 4, the 16-bit ones and auto 2.
uint64_t vllm_mamba_conv_element_bytes(const VllmMambaDtypes& dtypes);
// Bytes of one element of an SSM / temporal state named by a flag other
// than "auto" (STR_DTYPE_TO_TORCH_DTYPE): float32 4, else 2.
uint64_t vllm_mamba_named_dtype_bytes(std::string_view dtype);

// Bytes of one element of a gated delta net's recurrent (temporal) state
// as vLLM keeps it (MambaStateDtypeCalculator.gated_delta_net_state_dtype,
// layers/mamba/mamba_utils.py): the model's dtype, 2, for Qwen3-Next in
// every release (0.10.2 to vllm#34489 the conv state's mamba_cache_dtype,
// "auto"; after it mamba_ssm_cache_dtype, whose "auto" falls back to the
// same); 4 for Qwen3.5 / Qwen3.6 (model_type qwen3_5, qwen3_5_moe), whose
// config hook sets mamba_ssm_cache_dtype from the config's mamba_ssm_dtype,
// float32. An explicit --mamba-ssm-cache-dtype wins over the hook (it acts
// only on "auto"); --mamba-cache-dtype sets the convolution state and,
// with the SSM flag at "auto" and no hook, the recurrent state too.
// docs/engine-vllm.md, "KV cache layout and capacity".
uint64_t vllm_gated_delta_temporal_element_bytes(const ModelSpec& spec,
                                                 const VllmMambaDtypes& dtypes = {});

// One gated delta net's state on one of `tensor_parallel` ranks, in bytes
// (vLLM's MambaSpec page before padding): the convolution's kernel - 1
// columns of (2 x key_heads x key_dim + value_heads x value_dim) / TP
// channels in vllm_mamba_conv_element_bytes' dtype, and value_heads / TP x
// key_dim x value_dim recurrent elements of the width above. Saturates on
// overflow.
uint64_t vllm_gated_delta_state_bytes(const ModelSpec& spec, uint64_t tensor_parallel,
                                      const VllmMambaDtypes& dtypes = {});

// Bytes of one element of a Mamba layer's SSM (temporal) state as vLLM
// keeps it (MambaStateDtypeCalculator._mamba_state_dtype, layers/mamba/
// mamba_utils.py): mamba_ssm_cache_dtype "auto" takes the convolution
// state's dtype, mamba_cache_dtype "auto", the model's: 2 for Granite
// 4.0-H, Falcon-H1, Bamba, Zamba2 and Mamba-2, whose configs' own
// mamba_ssm_cache_dtype vLLM does not read. Nemotron-H's config hook
// (NemotronHForCausalLMConfig, models/config.py) sets it from its config's
// mamba_ssm_cache_dtype from 0.13 (vllm#29978; float16 when absent until
// vllm#39032, float32 after): the width memfit's spec holds, 4 unless the
// config names a 16-bit one; with a `release` before 0.13, "auto". An
// explicit --mamba-ssm-cache-dtype wins (the hook acts only on "auto");
// "auto" with no hook is --mamba-cache-dtype's width.
// docs/engine-vllm.md, "Recurrent state dtypes".
inline constexpr uint64_t kVllmNemotronHHookMinor = 13;
uint64_t vllm_mamba_ssm_element_bytes(const ModelSpec& spec,
                                      const std::optional<VllmRelease>& release = std::nullopt,
                                      const VllmMambaDtypes& dtypes = {});

// One Mamba-2 mixer's state on one of `tensor_parallel` ranks, in bytes
// (vLLM's MambaSpec page before padding; mamba2_state_shape): (inner + 2 x
// groups x state) / TP convolution channels x (kernel - 1) in
// vllm_mamba_conv_element_bytes' dtype, the groups grown to TP when TP does
// not divide them; heads / TP x head_dim x state SSM elements of
// vllm_mamba_ssm_element_bytes (of `release`, `dtypes`). 0 for a model
// without a Mamba-2 mixer. Saturates on overflow.
uint64_t vllm_mamba2_state_bytes(const ModelSpec& spec, uint64_t tensor_parallel,
                                 const std::optional<VllmRelease>& release = std::nullopt,
                                 const VllmMambaDtypes& dtypes = {});

// The MXFP4 MoE kernel vLLM picks for the GPU of `settings`
// (get_mxfp4_backend, quantization/mxfp4.py): FlashInfer on datacenter
// Blackwell, Triton on Hopper, on ROCm and on a GPU without a name,
// Marlin on any other.
Mxfp4Kernel vllm_mxfp4_kernel(const VllmSettings& settings);

// The request's engine_fields entry by which check-log passes the MXFP4
// kernel a vLLM log names (its value a to_string(Mxfp4Kernel)); not a
// field a request may give.
inline constexpr std::string_view kVllmLogMxfp4Kernel = "vllm_log_mxfp4_kernel";

// The request's engine_fields entry by which check-log says the log's
// engine started with its max_model_len (its value "1"): vLLM accepted the
// length, so the derived-length refusal (VLLM_ALLOW_LONG_MAX_MODEL_LEN) does
// not apply whatever the config given beside the log derives; not a field a
// request may give.
inline constexpr std::string_view kVllmLogStartedMaxModelLen = "vllm_log_started_max_model_len";

// The request's engine_fields entry by which check-log says the log ran on
// ROCm (its value "rocm"; vllm_reader.cc reads the platform from the log's
// lines) where no GPU name says so: ROCm's load figure applies
// (docs/engine-vllm.md, "ROCm"); not a field a request may give.
inline constexpr std::string_view kVllmLogPlatform = "vllm_log_platform";

// The request's engine_fields entry by which check-log says whether the
// log's worker subtracted the CUDA graphs' estimate from the KV memory (its
// value "on" or "off", from the line the worker prints beside its KV
// memory: "CUDA graph memory profiling is enabled" / "is disabled", or
// before 0.21 "... will be enabled by default"), whatever its release's
// default (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS); not a field a request
// may give.
inline constexpr std::string_view kVllmLogCudaGraphEstimate = "vllm_log_cuda_graph_estimate";
// The request's engine_fields entry by which check-log says the log's
// worker ran the V2 model runner (value "v2", from its "Using V2 Model
// Runner" line); absent: as the release selects (vllm_uses_v2_runner). Not
// a field a request may give.
inline constexpr std::string_view kVllmLogModelRunner = "vllm_log_model_runner";
// The request's engine_fields entry by which check-log says the log's V1
// runner sampled top-k/top-p with FlashInfer's kernel (value "flashinfer",
// from its "Using FlashInfer for top-p & top-k sampling" line); absent: as
// the release selects (vllm_v1_sampler_sorts). Not a field a request may
// give.
inline constexpr std::string_view kVllmLogSampler = "vllm_log_sampler";
// The request's engine_fields entry by which check-log says the log's
// lines are V0's engine's (value "v0", vllm_reader.cc's engine setting):
// its model runs eagerly (VllmSettings::v0_engine). Not a field a request
// may give.
inline constexpr std::string_view kVllmLogEngine = "vllm_log_engine";

// The profile run's forward pass on one rank, in bytes: the part of the
// activation peak before the dummy sampler run (estimate.cc, forward_bytes;
// docs/engine-vllm.md, "Activation"). `settings` as resolved
// (vllm_resolve_defaults: max_num_batched_tokens given).
uint64_t vllm_profile_forward_bytes(const ModelSpec& spec, const VllmSettings& settings);

// estimate_vllm with the experts of an MXFP4 checkpoint laid out for
// `mxfp4_kernel` (nullopt: vllm_mxfp4_kernel's choice).
Result<VllmEstimate> estimate_vllm_for_kernel(const Model& model,
                                              std::span<const SafetensorsTensor> tensors,
                                              const VllmSettings& settings,
                                              const MemoryBudget& budget,
                                              std::optional<Mxfp4Kernel> mxfp4_kernel);

// The layout of `model`'s KV cache per rank under `settings`. Fails
// (kUsage) on a layout vLLM refuses (page sizes it cannot unify).
Result<VllmKvLayout> vllm_kv_layout(const ModelSpec& spec, const VllmSettings& settings);

// The blocks vLLM makes of `kv_bytes` with `layout`; the tokens it prints
// and the concurrency for max_model_len (exact rules, kv_cache_utils.py).
struct VllmCapacity {
  uint64_t num_blocks = 0;
  uint64_t kv_tokens = 0;
  double max_concurrency = 0;
};
// Fills each group's blocks_per_request and the layout's sum for a
// request of `max_model_len` tokens.
void vllm_request_blocks(VllmKvLayout& layout, const VllmSettings& settings, uint64_t max_model_len);

// How the release prints "GPU KV cache size: N tokens" (_report_kv_cache_config,
// vllm/v1/core/kv_cache_utils.py; docs/engine-vllm.md, "Tokens"):
//   kBlocksPerGroup       num_blocks // groups x the smallest group block size
//                         (every release through 0.20; vllm-project/vllm#40691
//                         reports it on 0.19.0: 290,864 tokens at 33.04x of
//                         32,768)
//   kConcurrencyTimesLen  int(max_model_len x max_concurrency), the fix asked
//                         for in #38364 and #40694 (0.21.0 on)
// For one group of full attention with max_model_len a multiple of its block
// size the two agree (num_blocks x block size).
enum class VllmTokensForm { kBlocksPerGroup, kConcurrencyTimesLen };
// The form `release` prints (nullopt: the current line's, 0.11 to 0.20).
VllmTokensForm vllm_tokens_form(const std::optional<VllmRelease>& release);
// The tokens printed for `num_blocks` blocks of `layout` (its
// blocks_per_request filled for max_model_len) in `form`; saturates. A
// layout of weighted groups (request_unit_bytes: DeepSeek V4, run by vLLM
// from the 0.22 line) is printed as kConcurrencyTimesLen whatever `form`.
uint64_t vllm_kv_tokens(const VllmKvLayout& layout, uint64_t num_blocks, uint64_t max_model_len,
                        VllmTokensForm form);

VllmCapacity vllm_capacity(const VllmKvLayout& layout, uint64_t kv_bytes, uint64_t max_model_len,
                           VllmTokensForm form);

// Whether one request of the length vllm_request_blocks last sized fits:
// its blocks within `num_blocks`, or, for a layout of weighted groups
// (request_unit_bytes), its request_bytes within `kv_bytes` (vLLM's
// _check_enough_kv_cache_memory).
bool vllm_request_fits(const VllmKvLayout& layout, uint64_t num_blocks, uint64_t kv_bytes);

// The blocks, tokens and concurrency of a pipeline-parallel run whose stage
// s (0 holding the first layers) had stage_kv_bytes[s] of KV memory on
// each of its workers: every stage sizes its blocks over its own layers
// (get_pp_indices) and the engine keeps the fewest (unify_kv_cache_configs,
// v1/core/kv_cache_utils.py). Fails (kUsage) when there are more stages
// than layers, a stage holds no KV layer, or vllm_kv_layout refuses a stage.
Result<VllmCapacity> vllm_pipeline_capacity(const ModelSpec& spec, const VllmSettings& settings,
                                            std::span<const uint64_t> stage_kv_bytes);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_VLLM_PARTS_H_
