// SGLang's memory plan for one rank of `python -m sglang.launch_server`
// (docs/engine-sglang.md has every rule, its source and release):
//
//   weights       per rank as loaded ("Load weight end ... mem usage"):
//                 the checkpoint's tensors split by tensor parallelism
//                 (the same column/row split as vLLM's; exact from the
//                 headers' tensor list, modelled from the config), plus
//                 the allocator's 2 MiB rounding of each parameter
//                 (allocator_rounding.h)
//   startup       the CUDA context and communicators' buffers held before
//                 the weights load                              (modelled)
//   state pool    hybrid models: a fixed Mamba / linear-attention state
//                 per request slot, taken out of the same rest first
//                 (state_pool.h)                              (exact rule)
//   KV pool       SGLang's profile: the memory free after the weights less
//                 (1 - mem_fraction_static) x the memory free before them
//                 (less the state pool), cut into tokens of `cell_bytes`
//                 over the full-attention layers              (exact rule)
//   req_to_token  the request-to-token table: its slots x (context + 4)
//                 x 4 bytes                                  (exact rule)
//   CUDA graphs   cuda_graph_max_bs x 2 MiB, and where the piecewise
//                 (prefill) graphs are on, 8 MiB a captured token size
//                 (1.5 GiB under MLA): SGLang's own reserve coefficients
//                                                               (modelled)
//   activations   one prefill chunk's forward pass: its hidden states and
//                 MLP intermediates                             (modelled)
//
// plan_sglang() is pure; every byte count is uint64_t, overflow-checked.
// Private to the library.
#ifndef MEMFIT_ENGINES_SGLANG_PLAN_H_
#define MEMFIT_ENGINES_SGLANG_PLAN_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engines/sglang/state_pool.h"
#include "engines/shared/tp_rank_weights.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit::sglang {

// The release whose rules are priced when --sglang-version is not given:
// the newest whose rules were read (sgl-project/sglang's main after 0.5.20:
// arg_groups/memory_hook.py with #37898, which 0.5.20 holds, and without
// #40346, open on 2026-09-19; docs/engine-sglang.md, "Releases").
inline constexpr std::string_view kPinnedRelease = "0.5.20";
// The first release whose GPU-size defaults give a GPU of 20 to 35 GiB
// 4,096 prefill tokens and 48 graph batches (160 from TP 4), against 2,048
// and 24 (80) before: sgl-project/sglang#37898, opened 2026-09-04 (its
// merge date was not read), in 0.5.20 (#40346 reads 48 there); 0.5.19, out
// by 2026-09-07, is taken to lack it. A log that prints no release is dated
// from the PR's opening.
inline constexpr std::string_view kMidTierRelease = "0.5.20";
inline constexpr std::string_view kMidTierDate = "2026-09-04";
// The first release known to leave the decode CUDA graphs' term (graph
// batch x 2 MiB) out of the computed fraction under --disable-cuda-graph:
// sgl-project/sglang#29615 (described 2026-06-29) guards it on the decode
// graphs being on. 0.5.13 was out by 2026-06-17; 0.5.14 and 0.5.15 (out by
// 2026-07-15) were not read for it, and are priced without it; 0.5.16 is
// the first cut after it for certain.
inline constexpr std::string_view kDecodeGraphGuardRelease = "0.5.16";
inline constexpr std::string_view kDecodeGraphGuardDate = "2026-06-29";
// The first release whose piecewise (prefill) CUDA graphs are on by default
// (sgl-project/sglang#16331, merged 2026-03-02, after 0.5.9's cut).
inline constexpr std::string_view kPiecewiseDefaultRelease = "0.5.10";
inline constexpr std::string_view kPiecewiseDefaultDate = "2026-03-02";
// The first release whose NSA models (DeepSeek-V3.2, GLM-MoE-DSA) capture
// the piecewise graphs: sgl-project/sglang#23351, merged 2026-05-23, after
// 0.5.12's cut (2026-05-18), in 0.5.13 (out by 2026-06-17).
inline constexpr std::string_view kNsaPiecewiseRelease = "0.5.13";
// The first release whose rotary cache stays float32 on CUDA
// (sgl-project/sglang#3134, "Integrate flashinfer's rope with higher
// precision", merged 2025-01-26, and #3169 using it; v0.4.2's cut was not
// read and is taken to hold both).
inline constexpr std::string_view kFp32RopeRelease = "0.4.2";
inline constexpr std::string_view kFp32RopeDate = "2025-01-26";
inline constexpr std::string_view kNsaPiecewiseDate = "2026-05-23";
// The first release whose DeepSeek-family (MLA) embedding is split by the
// attention TP group under DP attention, whole on every rank before
// (sgl-project/sglang#17403, "Use attn_tp_group for all reduce in token
// embedding", 2026-01-20; 0.5.8, tagged 2026-01-23, taken to hold it, its
// cut not read).
inline constexpr std::string_view kMlaEmbeddingAttnTpRelease = "0.5.8";
inline constexpr std::string_view kMlaEmbeddingAttnTpDate = "2026-01-20";

inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr uint64_t kGiB = 1ull << 30;
// Modelled (docs/engine-sglang.md, "Startup"): what a rank holds before
// its weights load, read from the published logs' "avail mem" before and
// after the load against the GPU's total (1.15 to 1.19 GiB).
inline constexpr uint64_t kStartupBytes = 1200 * kMiB;
// SGLang's reserve a captured CUDA-graph batch size, MiB a batch up to
// --cuda-graph-max-bs (server_args.py, _handle_gpu_memory_settings:
// reserved_mem += cuda_graph_max_bs * 2).
inline constexpr uint64_t kCudaGraphBytesPerBatch = 2 * kMiB;
// SGLang's default --swa-full-tokens-ratio (server_args.py).
inline constexpr double kSwaFullTokensRatio = 0.8;
// Counts past this are refused: no request, pool or batch is this large.
inline constexpr uint64_t kMaxCount = 1ull << 32;

// launch_server's flags as memfit resolved them (fields.cc reads the
// request's); 0 or nullopt: SGLang's default, computed in plan_sglang.
struct Settings {
  uint64_t tensor_parallel = 1;                // --tp
  uint64_t dp_size = 1;                        // --dp
  bool dp_attention = false;                   // --enable-dp-attention
  bool dp_lm_head = false;                     // --enable-dp-lm-head (needs dp_attention)
  uint64_t ep_size = 1;                        // --ep-size (set to --tp under deepep / mooncake)
  std::string moe_a2a_backend = "none";        // --moe-a2a-backend
  std::optional<double> mem_fraction_static;   // --mem-fraction-static
  uint64_t context_length = 0;                 // --context-length; 0: the config's
  std::optional<uint64_t> max_running_requests;  // --max-running-requests
  std::optional<uint64_t> max_total_tokens;    // --max-total-tokens: caps the token pool
  uint64_t page_size = 1;                      // --page-size
  uint64_t kv_bytes_per_element = 0;           // --kv-cache-dtype: 0 auto (2), 1 fp8
  std::string kv_cache_dtype = "auto";         // as given
  std::optional<uint64_t> chunked_prefill_size;  // --chunked-prefill-size
  std::optional<uint64_t> cuda_graph_max_bs;   // --cuda-graph-max-bs
  bool disable_cuda_graph = false;             // --disable-cuda-graph
  bool disable_piecewise_cuda_graph = false;   // --disable-piecewise-cuda-graph
  // --disaggregation-mode: "null" (one server does both), "prefill" or
  // "decode" (PD disaggregation; settle_disaggregation, default_mem_fraction).
  std::string disaggregation_mode = "null";
  bool hierarchical_cache = false;             // --enable-hierarchical-cache
  std::string release = std::string(kPinnedRelease);  // --sglang-version
  std::string attention_backend;               // --attention-backend; "": the platform's default
  bool rocm = false;                           // an AMD GPU (ROCm): aiter by default
  // check-log: a MUSA build's log (Moore Threads), whose rotary cache is
  // cast to the model's dtype: SGLang's is_cuda() is false there
  // (torch.version.cuda is None under torch_musa; torchada leaves
  // torch.cuda.is_available() unpatched).
  bool musa = false;
  uint64_t gpu_total_bytes = 0;                // the GPU's total (0: unknown)
  // check-log: the GPU's total as nvidia-smi prints it, MiB, which SGLang's
  // GPU-size defaults and computed fraction take (server_args.py,
  // get_device_memory_capacity), for a log that prints the free memory
  // before its weights (gpu_total_bytes is then that plus the startup
  // term); 0: gpu_total_bytes' own MiB.
  uint64_t gpu_mem_mib = 0;
  // check-log: the date of a log whose lines show the piecewise (prefill)
  // CUDA graphs on, which dates their reserve in the computed fraction
  // (piecewise_reserve); "" none.
  std::string piecewise_log_date;
  // check-log: the date of a log that prints no release, which stands for
  // the release (a run is no newer than its log): the piecewise graphs'
  // default is that date's (piecewise_rule_date); "" none: `release`'s.
  std::string log_date;
  bool sm10_or_later = false;                  // a datacenter Blackwell (SM 10.x) by the GPU's name
  StateSettings state;                         // --max-mamba-cache-size ... --disable-radix-cache
  // The MoE kernel of an MXFP4 checkpoint (gpt-oss), which lays its experts
  // out (sglang_mxfp4_kernel).
  Mxfp4Kernel mxfp4_kernel = Mxfp4Kernel::kTriton;
};

// The MoE kernel SGLang runs gpt-oss's MXFP4 experts on by default
// (server_args.py, the GptOssForCausalLM adjustments: moe_runner_backend
// "flashinfer_mxfp4" on SM 10.x, else "triton_kernel" where
// triton_kernels is installed): FlashInfer on datacenter Blackwell (by the
// GPU's name), triton_kernels otherwise. FlashInfer's create_weights pads
// the expert width and the hidden size to 256 and keeps the biases in
// float32 with gemm1's alpha, beta and clamp limit (quantization/mxfp4.py),
// the layout vLLM's FlashInfer kernel holds (docs/engine-vllm.md, "MXFP4
// experts").
Mxfp4Kernel sglang_mxfp4_kernel(std::string_view gpu_name);

// The request's engine_fields entry by which check-log passes the MXFP4
// kernel a SGLang log names (a to_string(Mxfp4Kernel)); not a field a
// request may give.
inline constexpr std::string_view kSglangLogMxfp4Kernel = "sglang_log_mxfp4_kernel";

// The request's engine_fields entries by which check-log passes the GPU's
// nvidia-smi MiB and the date of a log that shows the piecewise CUDA graphs
// on (Settings::gpu_mem_mib, Settings::piecewise_log_date); not fields a
// request may give.
inline constexpr std::string_view kSglangLogGpuMemMib = "sglang_log_gpu_mem_mib";
inline constexpr std::string_view kSglangLogPiecewiseDate = "sglang_log_piecewise_date";
inline constexpr std::string_view kSglangLogDate = "sglang_log_date";
// The request's engine_fields entry by which check-log says its log is a
// MUSA build's ("true"; Settings::musa); not a field a request may give.
inline constexpr std::string_view kSglangLogMusa = "sglang_log_musa";

// SGLang's reserve for the piecewise (prefill) CUDA graphs in the computed
// --mem-fraction-static, MiB, by the date of the tree that ran
// (server_args.py, _handle_gpu_memory_settings), for graphs that are on:
//   from sgl-project/sglang#12996 (2025-11-10) piecewise_cuda_graph_max_tokens
//     // 4, its default 4,096: 1,024 MiB, added after the 10 GiB floor;
//   from #15700 (2025-12-24) max tokens // 8, the max tokens the chunked
//     prefill size;
//   from #15927 (2026-01-10) 8 MiB a captured token size, added before the
//     floor, the max tokens 2,048 under MLA; the sizes 4..32 by 4, 48..256
//     by 16, 288..512 by 32, 640..1,024 by 64 (576.. from #17956,
//     2026-01-29), 1,280..4,096 by 256, 4,608.. by 512, up to the max;
//   from #16331 (2026-03-02) 1.5 GiB under MLA.
// nullopt before #12996 or for a date that is no "YYYY-MM-DD".
struct PiecewiseReserve {
  double mib = 0;
  bool before_floor = false;  // added before max(reserved, 10 GiB), else after it
};
std::optional<PiecewiseReserve> piecewise_reserve(std::string_view date, uint64_t chunked_prefill_size, bool mla);
// piecewise_reserve at `date`, its token sizes stopped at the run's
// --max-total-tokens from #16331 (piecewise_cuda_graph_max_tokens =
// min(chunked prefill, it)).
std::optional<PiecewiseReserve> piecewise_reserve_of(std::string_view date, const Settings& s,
                                                    uint64_t chunked_prefill_size, bool mla);

// The date whose piecewise reserve the computed fraction takes, "" when the
// piecewise CUDA graphs are off: a log's date where its lines show them on
// (Settings::piecewise_log_date); else, where the release turns them on by
// default (0.5.10 and later, or a release-less log dated from #16331's
// merge) and _handle_piecewise_cuda_graph leaves them on for this model and
// these flags, the log's date or #16331's. _handle_piecewise_cuda_graph
// (server_args.py, #16331 to the tree of 2026-06-08) turns them off under DP
// attention, on HIP (an AMD GPU), for a multimodal model and for the
// architectures of piecewise_cuda_graph_disabled_model_archs (configs/
// model_config.py): Qwen3-Next, DeepSeek V4 (#23882, 2026-05-07), LLaDA,
// and the NSA models DeepSeek-V3.2 and GLM-MoE-DSA until #23351
// (2026-05-23, after 0.5.12; 0.5.13); and under a MoE all-to-all backend
// (--moe-a2a-backend other than none), PD disaggregation
// (--disaggregation-mode prefill or decode) and the hierarchical cache
// (--enable-hierarchical-cache), conditions #16331 holds and the tree of
// 2026-06-08 keeps. Its other conditions (speculative decoding,
// torch.compile, LoRA, CPU offload, GGUF, ...) are settings memfit does not
// take; --disable-piecewise-cuda-graph turns them off.
std::string piecewise_rule_date(const ModelSpec& spec, const Settings& s);

// The GPU-size defaults of _handle_gpu_memory_settings: chunked prefill
// and the largest CUDA-graph batch, by the GPU's memory in MiB and TP;
// `mid_tier_37898`: a 20 to 35 GiB GPU takes #37898's 4,096 and 48 (160
// from TP 4), else 2,048 and 24 (80).
struct GpuDefaults {
  uint64_t chunked_prefill_size = 0;
  uint64_t cuda_graph_max_bs = 0;
};
GpuDefaults gpu_defaults(uint64_t gpu_mem_mib, uint64_t tensor_parallel, bool mid_tier_37898 = false);

// Whether the run's release has #37898's GPU-size defaults: a log's date
// (Settings::log_date) from kMidTierDate, else the release from
// kMidTierRelease.
bool has_mid_tier_37898(const Settings& s);
// Whether the run's release leaves the decode graphs' term out of the
// computed fraction under --disable-cuda-graph (#29615): a log's date from
// kDecodeGraphGuardDate, else the release from kDecodeGraphGuardRelease.
// The same PR made the reserve follow --disaggregation-mode
// (default_mem_fraction).
bool has_decode_graph_guard_29615(const Settings& s);

// What _handle_pd_disaggregation settles after the fraction is computed
// (server_args.py from sgl-project/sglang#4654, 2025-03-21, through the
// tree of 2026-06-08; pd_disaggregation_hook.py after it): a decode
// server's KV cache is a chunk cache (the radix cache off, which sizes a
// hybrid model's state slots: state_pool.h); a prefill server captures no
// decode CUDA graphs (from #13377, 2025-11-29, to #16331 unless
// --enable-piecewise-cuda-graph, which a log shows as
// Settings::piecewise_log_date; otherwise always, PD disaggregation
// turning the piecewise graphs off from #16331). The computed fraction
// still reserves for those graphs before #29615 (default_mem_fraction).
void settle_disaggregation(Settings& s);

// The computed --mem-fraction-static: (gpu_mem - reserved) / gpu_mem,
// rounded to 3 decimals, reserved in MiB as _handle_gpu_memory_settings
// sums it (constant 512, 1.5 per prefill token, 2 per graph batch (none
// under --disable-cuda-graph from #29615), 128 per TP rank; with DP attention 3 (and 1.5 past 300) per graph batch and
// DP rank; at least 10 GiB on a GPU over 60 GiB). From #29615
// (has_decode_graph_guard_29615) the reserve follows --disaggregation-mode
// (reserve_for_graph_mb and handle_gpu_memory_settings): a prefill server
// reserves neither the decode graphs' term nor DP attention's; a decode
// server's 1.5 MiB a token is of max(--max-running-requests, else the graph
// batch, x 1 draft token, 2,048) tokens, not of the chunked prefill.
// With the piecewise CUDA graphs' reserve of `s.piecewise_log_date`
// (piecewise_reserve; `mla`: the model's attention is MLA); from #16331 its
// token sizes stop at --max-total-tokens where that is smaller.
double default_mem_fraction(uint64_t gpu_mem_mib, const GpuDefaults& d, const Settings& s, bool mla = false);

// Bytes one token takes in one rank's KV pool: MLA (kv_lora_rank +
// qk_rope_head_dim) x layers x dtype, else KV heads per attention-TP rank
// x (K head dim + V head dim) x layers x dtype (profile_max_num_token; a
// hybrid SWA pool's two pools each at their own heads and dims,
// HybridSWAPoolConfigurator, sgl-project/sglang#18039).
struct KvCell {
  uint64_t bytes = 0;          // over every attention layer: the cell profile_max_num_token divides by
  uint64_t stored_bytes = 0;   // what a token's entry occupies once allocated (NSA fp8: more than bytes)
  uint64_t full_layers = 0;    // layers holding every token
  uint64_t swa_layers = 0;     // sliding-window layers (hybrid SWA pool)
  uint64_t full_bytes = 0;     // a token over the full layers (the full pool's)
  uint64_t swa_bytes = 0;      // a token over the sliding-window layers (the SWA pool's)
  uint64_t layer_bytes = 0;    // the widest layer's bytes per token
  bool same_layers = true;     // every attention layer takes the same bytes a token
  bool mla = false;
};
KvCell kv_cell(const ModelSpec& spec, const Settings& s);

// The AITER attention backend's cut of --mem-fraction-static: SGLang
// multiplies it by 0.85 when attention_backend is aiter and the model's
// context exceeds 8,192 tokens (server_args.py, "AMD platforms backends",
// model_runner.py in 0.4 and 0.5; the workspace aiter_backend.py allocates
// after the pool, sgl-project/sglang#18262, #36563).
inline constexpr double kAiterFractionScale = 0.85;
inline constexpr uint64_t kAiterLongContextTokens = 8192;

struct Plan {
  Settings settings;                // as resolved: every default filled in
  double mem_fraction_static = 0;   // as used (given or computed, x 0.85 under aiter past 8,192 tokens)
  bool mem_fraction_computed = false;
  bool aiter_fraction_cut = false;  // the fraction is x 0.85 (kAiterFractionScale)
  std::string piecewise_rule_date;  // the piecewise graphs' reserve date (piecewise_rule_date); "" off
  uint64_t gpu_mem_mib = 0;         // SGLang's gpu_mem
  uint64_t weights_bytes = 0;        // the tensors + the allocator's rounding + DP attention's
  uint64_t allocator_rounding_bytes = 0;  // of those, held past the tensors (allocator_rounding.h)
  uint64_t dp_attention_weights_bytes = 0;  // of those, DP attention's whole attention share (modelled)
  uint64_t rope_cache_bytes = 0;     // of those, the rotary cache as SGLang keeps it (held_weights.h)
  uint64_t absorbed_kv_b_bytes = 0;  // of those, an MLA model's w_kc / w_vc (held_weights.h)
  uint64_t deepep_shared_expert_bytes = 0;  // of those, DeepEP's whole shared experts (held_weights.h)
  // The weights the speed estimate streams: the tensors (with the shared
  // rule's rotary cache) and DP attention's share, not the rounding, the
  // float32 cache nor the absorbed copies (held_weights.h).
  uint64_t speed_weights_bytes = 0;
  bool weights_exact = false;       // split from the headers' tensor list
  uint64_t startup_bytes = 0;
  uint64_t free_before_load_bytes = 0;  // total - startup
  uint64_t free_after_load_bytes = 0;   // less the weights
  uint64_t reserved_bytes = 0;      // free before load x (1 - fraction)
  KvCell cell;
  StateCell state;                  // one request's Mamba / linear-attention state
  StatePool state_pool;             // its slots; empty without state layers
  uint64_t kv_pool_bytes = 0;       // tokens x cell
  uint64_t max_total_num_tokens = 0;  // what SGLang prints (full layers' tokens)
  uint64_t swa_tokens = 0;          // hybrid SWA pool: the window layers' tokens; else 0
  uint64_t max_running_requests = 0;  // capped by the state slots for a hybrid model
  uint64_t req_to_token_bytes = 0;
  uint64_t cuda_graph_bytes = 0;    // the decode graphs: cuda_graph_max_bs x 2 MiB
  uint64_t piecewise_cuda_graph_bytes = 0;  // the piecewise graphs where on: their reserve (piecewise_reserve)
  uint64_t activation_bytes = 0;
  uint64_t peak_bytes = 0;          // every term above, per rank
  bool starts = false;              // a positive pool: SGLang raises otherwise
  bool holds_context = false;       // the pool holds one request of context_length
  bool serves_request = false;      // at least one request runs (hybrid: the state
                                    // slots allow one; SGLang would serve none)
};

// The plan of one rank. `tensors` is the checkpoint's tensor list (empty:
// the config's geometry). kUsage when the GPU's total is unknown.
Result<Plan> plan_sglang(const Model& model, std::span<const SafetensorsTensor> tensors,
                         const Settings& settings);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_PLAN_H_
