// The vLLM engine profile (`--engine vllm`): what one rank of `vllm serve`
// holds, and the KV cache capacity vLLM derives from it
// (docs/engine-vllm.md has every rule, its source and vLLM version):
//
//   weights     per rank as vLLM loads them ("Model loading took"): the
//               checkpoint's tensors as stored, split by tensor parallelism
//               (attention heads and MLP columns/rows split, norms and
//               routers replicated, k/v replicated past the KV heads, the
//               vocab-parallel embedding and LM head padded to 64 rows)
//               plus the rotary cos/sin cache                (exact split
//               from the headers' tensor list, modelled from the config)
//   activation  the profiled peak of a forward pass of
//               max_num_batched_tokens tokens and the sampler's dummy run
//               over max_num_seqs rows                         (modelled)
//   non-torch   CUDA/NCCL workspaces outside PyTorch's allocator that grow
//               during the profile                             (modelled)
//   KV cache    gpu_memory_utilization x the GPU's total, minus the three
//               above, or kv_cache_memory given (exact), cut into blocks
//               with vLLM's page-size and grouping rules           (exact)
//   CUDA graphs the captured graphs' pools, captured after the KV cache is
//               allocated, so past the utilization          (modelled)
//
// total_bytes is vLLM's own peak per rank: utilization x total (or the
// terms' sum when kv_cache_memory is given) plus the CUDA graphs. The
// accounting is the current line's unless `release` says 0.7 (v0.7's V1
// worker: the CUDA context subtracted too, the profile's logits over every
// batched token). estimate_vllm() is pure; every byte count is uint64_t,
// overflow-checked.
#ifndef MEMFIT_VLLM_H_
#define MEMFIT_VLLM_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/error_band.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// A vLLM release, as --vllm-version gives it ("0.7", "0.7.3", "v0.11.0").
struct VllmRelease {
  uint64_t major = 0, minor = 0, patch = 0;
  bool has_patch = false;  // "0.7.3" (else "0.7": any patch of the line)
};
// Parses X.Y or X.Y.Z (an optional leading "v"), each part at most 4
// digits; a kUsage error (naming no field: the caller names it) otherwise.
Result<VllmRelease> parse_vllm_version(std::string_view text);
std::string to_string(const VllmRelease& release);  // "0.7" / "0.7.3"

// --gpu-name: the name of the GPU priced, as nvidia-smi prints it ("NVIDIA
// H100 80GB HBM3"), for another machine's GPU. Returns the text as given
// when it is 1 to kMaxGpuNameBytes printable ASCII characters, not all
// spaces; a kUsage error (naming no field: the caller names it) otherwise.
inline constexpr size_t kMaxGpuNameBytes = 128;
Result<std::string> parse_gpu_name(std::string_view text);

// Whose KV accounting prices the estimate (docs/engine-vllm.md, "Older
// releases"):
//   kCurrent  0.21 to 0.32 (the default): the memory_profiling accounting
//             of the V1 worker, and on CUDA the CUDA graphs' estimate
//             subtracted from the KV memory too; the utilization's default
//             is 0.92 (vllm-project/vllm#38284)
//   kV011     0.11 to 0.20: the same accounting read at v0.11, the CUDA
//             graphs captured past the utilization, its default 0.9
//   kV07      the v0.7 V1 worker (VLLM_USE_V1=1): the device's used memory
//             less torch's allocated bytes counted as non-torch (so the
//             CUDA context is subtracted), logits over every batched token,
//             no sampler run, 256 sequences by default
enum class VllmAccounting { kCurrent, kV011, kV07 };
std::string_view to_string(VllmAccounting accounting);  // "current" / "v0.11" / "v0.7"
// The newest release memfit has read: 0.{kVllmNewestMinor} (0.32.0).
inline constexpr uint64_t kVllmNewestMinor = 32;
// The accounting of `release` (nullopt: the current line). kUsage naming
// "vllm_version" for a release memfit does not model.
Result<VllmAccounting> vllm_accounting(const std::optional<VllmRelease>& release);
// vLLM's --gpu-memory-utilization default under `accounting`: 0.92 from
// 0.21 (vllm-project/vllm#38284, which turned the CUDA graph profiling on),
// 0.9 before.
inline constexpr double kVllmUtilization = 0.9, kVllmCurrentUtilization = 0.92;
double vllm_default_utilization(VllmAccounting accounting);

// vLLM's flags with their defaults (vllm serve, V1 engine).
// vLLM's --runner (docs/embedding-models.md): auto picks pooling for a
// model whose architecture is a pooling one (EmbeddingInfo::by_architecture),
// generate otherwise.
enum class VllmRunner { kAuto, kGenerate, kPooling };

// vLLM's LoRA serving (--enable-lora; vllm/config/lora.py, LoRAConfig):
// every linear layer of the decoder gets max_loras preallocated slots of
// rank max_lora_rank when the model loads (docs/engine-vllm.md, "LoRA
// slots"). Off by default; the other fields are vLLM's defaults and count
// only when enabled, as vLLM builds no LoRA config without --enable-lora.
struct VllmLora {
  bool enabled = false;        // --enable-lora
  uint64_t max_loras = 1;      // --max-loras: adapters one batch may mix, the GPU slots
  uint64_t max_lora_rank = 16; // --max-lora-rank: one of 1, 8, 16, 32, 64, 128, 256, 320, 512
  // --lora-dtype: auto (the model's dtype), float16 or bfloat16; every
  // choice is 2 bytes an element, as memfit prices vLLM in its 16-bit dtype.
  std::string dtype = "auto";
  bool fully_sharded = false;  // --fully-sharded-loras: A split by rank, row B by output
};

struct VllmSettings {
  uint64_t tensor_parallel = 1;            // --tensor-parallel-size
  // --gpu-memory-utilization, in (0, 1]; 0: the release's default
  // (vllm_default_utilization), which vllm_resolve_defaults fills in.
  double gpu_memory_utilization = 0;
  uint64_t gpu_memory_total = 0;           // the GPU's total bytes (probed or given); 0: unknown
  std::optional<uint64_t> kv_cache_memory;  // --kv-cache-memory-bytes: skips the profile
  uint64_t block_size = 16;                // --block-size
  bool kv_cache_fp8 = false;               // --kv-cache-dtype fp8 (auto: the model's 16-bit dtype)
  std::string gpu_name;                    // the GPU's name ("" unknown), as nvidia-smi prints it
  bool gpu_name_given = false;             // gpu_name came from --gpu-name, not the probe
  // vLLM runs on its ROCm platform: the probed GPU is AMD's, or gpu_name
  // names one (names_amd_gpu); vllm_resolve_defaults sets it from the name.
  bool rocm = false;
  uint64_t max_model_len = 0;              // --max-model-len; 0: the config's context
  uint64_t max_num_seqs = 0;               // --max-num-seqs; 0: vLLM's default (below)
  uint64_t max_num_batched_tokens = 0;     // --max-num-batched-tokens; 0: vLLM's default
  uint64_t num_speculative_tokens = 0;     // --speculative-config num_speculative_tokens
  bool enforce_eager = false;              // --enforce-eager: no CUDA graphs
  // The profile ran on V0's engine (vllm/worker/; check-log reads it from
  // the log's lines): its model runs eagerly, as V1's does only with
  // --enforce-eager (the profile's forward: docs/engine-vllm.md,
  // "Activation"). Its KV accounting is otherwise 0.11 to 0.20's.
  bool v0_engine = false;
  VllmRunner runner = VllmRunner::kAuto;   // --runner; estimate_vllm resolves auto
  std::optional<VllmRelease> release;      // --vllm-version; nullopt: the current line
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS as the run had it (check-log
  // reads it from the log); nullopt: the release's default (on from 0.21).
  std::optional<bool> cuda_graph_estimate;
  // Whether the worker runs the V2 model runner (vllm/v1/worker/gpu/,
  // "Using V2 Model Runner"; check-log reads the line from the log);
  // nullopt: as vLLM selects it (vllm_uses_v2_runner).
  std::optional<bool> v2_model_runner;
  // Whether the V1 runner's top-k/top-p sampler runs FlashInfer's kernel
  // (topk_topp_sampler.py logs "Using FlashInfer for top-p & top-k
  // sampling"; check-log reads the line); nullopt: as the release selects
  // (vllm_v1_sampler_sorts).
  std::optional<bool> flashinfer_sampler;
  VllmLora lora;                           // --enable-lora and its slots
  // --mamba-cache-dtype (the recurrent layers' convolution state, and their
  // SSM / temporal state while the next is "auto") and
  // --mamba-ssm-cache-dtype (the SSM / temporal state): "auto", "float32",
  // "float16" (from 0.13) or "bfloat16" (vllm#41680); "auto" is the model's
  // dtype, and for the SSM state the convolution state's unless a config
  // hook sets it (docs/engine-vllm.md, "Recurrent state dtypes").
  std::string mamba_cache_dtype = "auto";
  std::string mamba_ssm_cache_dtype = "auto";
  // --confidence: 90, 95 or 99, the corpus margin added to the modelled
  // weights and CUDA graphs (memfit/error_band.h); 0: none.
  uint64_t confidence = 0;
};

inline constexpr uint64_t kVllmMaxTokens = 1ull << 28;  // counts past this: usage error
inline constexpr uint64_t kVllmVocabPadding = 64;       // DEFAULT_VOCAB_PADDING_SIZE
inline constexpr uint64_t kVllmKernelBlockAlignment = 16;  // attention block sizes of hybrid models
// `vllm serve`'s defaults for --max-num-batched-tokens and --max-num-seqs
// (engine/arg_utils.py, get_batch_defaults): a GPU of at least 70 GiB
// whose name does not say A100 takes the large pair, any other the small;
// max_num_seqs is then at most max_num_batched_tokens.
inline constexpr uint64_t kVllmLargeGpuBytes = 70ull << 30;
inline constexpr uint64_t kVllmLargeGpuBatchedTokens = 8192, kVllmLargeGpuSeqs = 1024;
inline constexpr uint64_t kVllmSmallGpuBatchedTokens = 2048, kVllmSmallGpuSeqs = 256;
// v0.7's defaults (engine/arg_utils.py of v0.7, `vllm serve` with V1): 8192
// batched tokens when the GPU's name says H100 or H200, else 2048 (an
// unnamed GPU: the size rule above stands in); 256 sequences.
inline constexpr uint64_t kVllmV07Seqs = 256;
// Fills max_num_seqs and max_num_batched_tokens left at 0 with vLLM's
// defaults for the GPU (`gpu_memory_total`, `gpu_name`; an unknown GPU
// takes the small pair) and the release (`release`: v0.7's above).
void vllm_resolve_defaults(VllmSettings& settings);

// Whether vLLM runs `spec` on its V2 model runner: `v2_model_runner` when
// set (a log's line); otherwise the release's default, V2 from 0.29.0 (the
// current line too), except the fallback to V1 memfit's requests can show:
// DeepSeek-V3.2 (its sparse-MLA indexer) on ROCm (vllm/config/vllm.py,
// read in the rollout post's snapshot e0d27040).
bool vllm_uses_v2_runner(const ModelSpec& spec, const VllmSettings& settings);

// Whether the V1 runner's dummy sampler run sorts the logits (PyTorch's
// top-k/top-p, kVllmSamplerBytesPerLogit): not when `flashinfer_sampler`
// says FlashInfer's kernel ran (a log's line), nor from 0.22 and on the
// current line (kVllmUnsortedSamplerMinor: FlashInfer's kernel on CUDA,
// the Triton kernel off it); before 0.22, yes.
bool vllm_v1_sampler_sorts(const VllmSettings& settings);

// Modelled constants (docs/engine-vllm.md: read from the profile's own
// breakdown in published v0.11 runs, which print each term).
inline constexpr uint64_t kVllmNonTorchBytes = 144ull << 20;       // per rank, TP 1 (0.13-0.14 GiB)
inline constexpr uint64_t kVllmNcclBytes = 420ull << 20;           // more per rank when TP > 1 (0.54-0.55 GiB)
inline constexpr uint64_t kVllmCudaGraphBytes = 1ull << 30;        // captured graphs' pools (from 0.21 on CUDA: subtracted from the KV memory)
// The V1 runner's dummy sampler run through PyTorch's sort-based top-k/top-p
// (v0.11's): per row x vocab entry, measured (docs/engine-vllm.md).
inline constexpr uint64_t kVllmSamplerBytesPerLogit = 39;
// The V1 runner's dummy sampler run that sorts nothing (docs/engine-vllm.md,
// "The V1 runner's dummy sampler"): beside compute_logits' 16-bit logits
// over the padded vocabulary (kVllmV2LogitBytes), Sampler.forward's float32
// copy and two more float32 [rows, vocab] tensors: FlashInfer's
// top_k_top_p_sampling_from_logits keeps top_k_mask_logits' output and its
// softmax; the native path (forward_native, the second dummy call since
// vllm-project/vllm#41375) masks in place with the Triton top-k/top-p kernel
// (#33538) and keeps the probabilities and random_sample's noise. 4 + 4 + 4
// bytes a row and entry. Read in vLLM's source, not measured.
inline constexpr uint64_t kVllmUnsortedSamplerBytes = 12;
// The first minor whose V1 sampler sorts no logits by default: 0.22. FlashInfer's
// kernel on by default (#40376; #26859 had turned it off in October 2025)
// and the Triton kernel in the native path (#33538) were both merged by
// 2026-04-30 (#41375 names both); 0.21.0 was still the newest release on
// 2026-05-15, so 0.22.0 is the first certainly after (its logs print "Using
// FlashInfer for top-p & top-k sampling"; 0.20.2's on an H200 do not).
inline constexpr uint64_t kVllmUnsortedSamplerMinor = 22;
// The V2 model runner's dummy sampler run (v1/worker/gpu/model_runner.py,
// _dummy_sampler_run; sample/sampler.py): compute_logits' 16-bit logits over
// the padded vocabulary, then the sampler's float32 copy of them, in which it
// applies temperature and draws (gumbel_sample keeps a row's block maxima
// only): 2 + 4 bytes a row and entry. Read in vLLM's source, not modelled.
inline constexpr uint64_t kVllmV2LogitBytes = 2, kVllmV2SamplerCopyBytes = 4;
// The newest release's minor that still ran the V1 runner by default: the
// V2 runner is vLLM's default for supported setups from 0.29.0 (vLLM's
// MRV2 rollout post: "the first tagged release with this default will be
// v0.29.0", commit 4aab2b0).
inline constexpr uint64_t kVllmV2RunnerMinor = 29;
// v0.7's accounting only: the CUDA context the device's used memory
// counts (modelled: not in vLLM's source; PyTorch's maintainers give about
// 400 MB with CUDA >= 11.7's lazy module loading, pytorch/pytorch#109888).
inline constexpr uint64_t kVllmCudaContextBytes = 400ull << 20;
// ROCm only: what the HIP runtime maps on the device during the load
// beyond PyTorch's segments, which ROCm's "Model loading took" counts
// (modelled: the published ROCm runs leave 70 to 212 MiB past the tensors
// and the allocator's rounding; docs/engine-vllm.md, "ROCm").
inline constexpr uint64_t kVllmRocmRuntimeBytes = 64ull << 20;

// What one rank's weights are.
struct VllmWeights {
  uint64_t bytes = 0;            // tensors per rank + rope cache + the paddings and ROCm's terms
  uint64_t rope_cache_bytes = 0;  // cos/sin caches: rows (the RoPE scaling's) x head dim x 2 bytes, two for Gemma 3 (modelled)
  uint64_t padding_bytes = 0;     // MXFP4 experts padded for vLLM's MoE kernels (modelled)
  // In `bytes`: Qwen3-VL's DeepStack input buffers, deepstack levels x
  // max_num_batched_tokens x text hidden x 2 bytes, whole on every rank
  // (docs/engine-vllm.md, "DeepStack buffers"; exact).
  uint64_t deepstack_bytes = 0;
  // In `bytes`: the LoRA slots (--enable-lora) every decoder linear layer
  // allocates when the model loads (docs/engine-vllm.md, "LoRA slots";
  // exact for the layers priced); 0 without LoRA.
  uint64_t lora_bytes = 0;
  // ROCm only (0 on CUDA), in `bytes`: vLLM's ROCm platform prints the
  // device's used memory across the load, not PyTorch's allocated bytes.
  uint64_t rocm_allocator_bytes = 0;  // PyTorch's segments past the parameters (modelled)
  uint64_t rocm_padding_bytes = 0;    // unquantized MoE experts' 256 B a row (VLLM_ROCM_MOE_PADDING)
  uint64_t rocm_runtime_bytes = 0;    // kVllmRocmRuntimeBytes (modelled)
  bool from_tensor_list = false;  // split tensor by tensor (else from the config's geometry)
  bool exact = false;            // the tensor list was read from the headers
};

// One KV cache group: layers of one spec sharing a block table.
enum class VllmSpecKind { kFullAttention, kSlidingWindow, kChunkedLocal, kMla, kMamba };
std::string_view to_string(VllmSpecKind kind);

struct VllmGroup {
  VllmSpecKind kind = VllmSpecKind::kFullAttention;
  uint64_t layers = 0;            // real layers of the group (<= group_size)
  uint64_t window = 0;            // sliding window / chunk, tokens
  uint64_t block_size = 0;        // tokens per block (Mamba: one state per block)
  uint64_t blocks_per_request = 0;  // blocks one request of max_model_len needs
  // One block of the group, bytes summed over its layers, where the groups
  // weigh their blocks by it (request_unit_bytes below); 0 otherwise.
  uint64_t page_bytes = 0;
};

struct VllmKvLayout {
  uint64_t page_size_bytes = 0;   // one block of one layer (after unification / padding)
  uint64_t attention_block_size = 0;  // tokens per attention block
  uint64_t mamba_state_bytes = 0;  // one Mamba layer's state before padding; 0 when none
  uint64_t group_size = 0;        // layers per group = KV tensors allocated
  bool uniform_type = false;      // one type with different page sizes: pages summed per block
  uint64_t bytes_per_block = 0;   // what one block costs across all layers
  std::vector<VllmGroup> groups;
  uint64_t blocks_per_request = 0;  // sum over the groups
  bool hybrid_mamba = false;      // Mamba groups present
  // DeepSeek V4's groups of per-layer pages (docs/engine-vllm.md, "DeepSeek
  // V4"); 0 for every other model. When set, a request's blocks are
  // cdiv(sum of page_bytes x blocks_per_request over the groups,
  // request_unit_bytes), the first group's page_bytes, and it starts only
  // if request_bytes, request_tuple_bytes x the groups' blocks, fits the KV
  // memory (get_max_concurrency_for_kv_cache_config and
  // _max_memory_usage_bytes_from_groups, v1/core/kv_cache_utils.py).
  uint64_t request_unit_bytes = 0;
  uint64_t request_tuple_bytes = 0;
  uint64_t request_bytes = 0;     // filled with blocks_per_request
};

// The CUDA graphs the worker captures (counted from the settings by
// engines/vllm/cuda_graphs.h; docs/engine-vllm.md, "CUDA graphs").
struct VllmCudaGraphCounts {
  uint64_t piecewise = 0;       // PIECEWISE graphs: one per capture size
  uint64_t full = 0;            // FULL graphs: one per capture size up to max_num_seqs
  uint64_t largest_tokens = 0;  // the largest capture size (0: none captured)
};

struct VllmEstimate {
  VllmSettings settings;          // as resolved (max_model_len filled in)
  VllmWeights weights;
  uint64_t activation_bytes = 0;  // modelled
  uint64_t non_torch_bytes = 0;   // modelled
  uint64_t cuda_graph_bytes = 0;  // modelled; 0 with enforce_eager
  VllmCudaGraphCounts cuda_graphs;  // the graphs cuda_graph_bytes prices (none: enforce_eager, v0.7)
  // The CUDA graphs' estimate is subtracted from the KV memory (0.21 on,
  // CUDA, graphs captured): the graphs are then inside the utilization.
  bool cuda_graphs_subtracted = false;
  VllmAccounting accounting = VllmAccounting::kCurrent;  // the release's accounting used
  bool v2_model_runner = false;   // the V2 model runner's profile priced (vllm_uses_v2_runner)
  uint64_t cuda_context_bytes = 0;  // v0.7: the CUDA context, subtracted (modelled); else 0
  uint64_t requested_bytes = 0;   // utilization x total (0 when the total is unknown)
  uint64_t kv_cache_bytes = 0;    // "Available KV cache memory"
  bool kv_given = false;          // kv_cache_memory given: the blocks are exact
  VllmKvLayout layout;
  uint64_t num_blocks = 0;        // "# GPU blocks"
  uint64_t kv_tokens = 0;         // "GPU KV cache size: N tokens"
  double max_concurrency = 0;     // "Maximum concurrency for max_model_len tokens per request"
  // --kv-cache-memory-bytes that gives max_num_seqs requests of max_model_len.
  uint64_t kv_cache_memory_for_seqs = 0;
  // The largest max_model_len that one request can hold, and the most
  // requests of max_model_len, with these KV blocks.
  uint64_t max_model_len_fit = 0;
  uint64_t max_num_seqs_fit = 0;
  // The corpus's bands of the modelled weights (not exact, or ROCm's load
  // terms) and CUDA graphs; under settings.confidence the weights' margin
  // is held before the KV cache is sized (less KV) and the graphs' after.
  ReportBands bands;
  uint64_t total_bytes = 0;       // vLLM's peak per rank
  uint64_t budget_bytes = 0;
  bool starts = false;            // at least one block past the null block and one request fits
  bool fits = false;              // starts and total <= budget
};

// The estimate. kUsage (naming the field) for a utilization outside (0, 1],
// block_size, max_num_seqs or max_num_batched_tokens of 0 or past
// kVllmMaxTokens, no GPU total and no kv_cache_memory, a release not
// modelled; kOverflow on absurd sizes.
Result<VllmEstimate> estimate_vllm(const Model& model, std::span<const SafetensorsTensor> tensors,
                                   const VllmSettings& settings, const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_VLLM_H_
