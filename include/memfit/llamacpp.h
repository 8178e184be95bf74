// The llama.cpp engine profile (`--engine llamacpp`): what the pinned
// llama.cpp (v0.4.0, as node-llama-cpp 3.21.1 ships it) allocates for a
// model, in the three categories of its own memory breakdown, summed over
// devices (docs/llamacpp-rules.md is the specification; docs/engine-llamacpp.md
// says how memfit applies it):
//
//   model    the weights: memfit's header bytes (the mapped file range)
//            + the repacked copies in CPU_REPACK                   (exact)
//   context  KV cache + recurrent state + the output (logits) buffer (exact)
//   compute  the scheduler's compute buffers   (replayed or modelled)
//
// With GPUs in settings.placement the categories are split over the devices
// (llamacpp_placement.h) and the totals are the sums over them.
//
// estimate_llamacpp() is a pure function of the model, the settings and the
// budget. Every byte count is uint64_t, overflow-checked.
#ifndef MEMFIT_LLAMACPP_H_
#define MEMFIT_LLAMACPP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/cpu_features.h"
#include "memfit/error_band.h"
#include "memfit/ggml_types.h"
#include "memfit/llamacpp_extras.h"
#include "memfit/llamacpp_placement.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class FlashAttn { kAuto, kOn, kOff };
std::string_view to_string(FlashAttn mode);  // "auto", "on", "off"

// "on" | "off" | "auto" (llama.cpp's spellings). Usage errors name no field.
Result<FlashAttn> parse_flash_attn(std::string_view text);
// The nine types --cache-type-k/-v accept: f32, f16, bf16, q8_0, q4_0, q4_1,
// q5_0, q5_1, iq4_nl. Usage errors name no field.
Result<GgmlType> parse_llamacpp_cache_type(std::string_view text);

// Which CPU's repack kernels decide the CPU_REPACK buffer (ggml-cpu's
// ggml_repack_get_optimal_repack_type). kAuto: this host's CPU
// (resolve_repack_cpu); kNone: --no-repack, or weights not on the CPU.
//   x86-avx2    Q4_0, Q4_K, IQ4_NL, MXFP4 with rows a multiple of 8
//   x86-avx512  those and Q2_K (AMX CPUs are taken as this set: the AMX
//               buffer's sizes are unconfirmed)
//   arm         NEON with dotprod and i8mm: Q4_0, IQ4_NL, MXFP4, Q8_0 with
//               rows a multiple of 4; Q4_K, Q5_K, Q6_K of 8
enum class RepackCpu { kAuto, kNone, kX86Avx2, kX86Avx512, kArm };
std::string_view to_string(RepackCpu cpu);  // "auto", "none", "x86-avx2", "x86-avx512", "arm"
// The five spellings above. Usage errors name no field.
Result<RepackCpu> parse_repack_cpu(std::string_view text);

// kAuto resolved for `host`: arm with asimddp (the i8mm-only types are the
// same set), x86-avx512 with avx512f or amx_int8, x86-avx2 with avx2, none
// on an x86 without AVX2 or an arm without dotprod. An unknown CPU is taken
// as x86-avx2 and `assumption` (when not null) says so. Other values are
// returned as they are.
RepackCpu resolve_repack_cpu(RepackCpu requested, const CpuFeatures& host, std::string* assumption);

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
  // How the run resolved --flash-attn auto, where a log says so ("Flash
  // Attention was auto, set to disabled"); nullopt: memfit's rule
  // (resolve_llamacpp_context). Resolved off, the graph runs without flash
  // attention over the cache auto created: V untransposed (LlamaCppContext).
  std::optional<bool> flash_attn_auto_on;
  bool swa_full = false;
  bool kv_unified = false;
  // --embedding (or --reranking): llama-server computes embeddings; every
  // token of a batch is an output (docs/embedding-models.md).
  bool embedding = false;
  // --pooling, or rank with --reranking; "" the model's own.
  std::string pooling;
  // The context asks for embeddings beside the logits without llama-server's
  // --embedding (llama_context_params.embeddings = true, as Ollama's llama
  // runner sets it in NewContextParams): the output buffer keeps n_embd
  // floats a row beside each row's n_vocab logits, its rows and the compute
  // graph unchanged (llamacpp/memory.cc, docs/engine-ollama.md). Not a
  // llama-server flag; the ollama profile sets it.
  bool output_embeddings = false;
  // --llamacpp-version: the build (bNNNN) whose cache rules price the
  // estimate (docs/engine-llamacpp.md, "Releases"); nullopt: the pinned
  // release's.
  std::optional<uint64_t> build;
  // llama_context_params.n_outputs_max: the most output (logits) rows a
  // batch may ask for, which from #23861 (b9460) also caps the rows of the
  // worst-case prompt graph the compute buffers are reserved for; 0: the
  // library's default, n_batch (node-llama-cpp, llama-completion,
  // llama-bench). llama-server and llama-cli set their slots
  // (apply_llama_server_rules); not a flag of either (docs/engine-llamacpp.md,
  // "Output rows").
  uint64_t outputs_max = 0;
  // The cells' padding, where a runtime other than llama.cpp keeps the
  // cache (Ollama's own engine: kvcache.Causal's CachePadding, 32 without
  // flash attention before v0.13.2); nullopt: llama.cpp's (cell_pad).
  // Not a llama-server flag; the ollama profile sets it.
  std::optional<uint64_t> cell_pad;
  RepackCpu repack = RepackCpu::kAuto;  // resolve before estimate_llamacpp
  // Devices and placement flags (-ngl, -ot, -ts, ...); no GPUs: a CPU run.
  LlamaCppPlacementSettings placement;
  // What else llama-server holds (--mmproj, ...): llamacpp_extras.h.
  LlamaCppExtrasSettings extras;
  // --confidence: 90, 95 or 99, the corpus margin added to the modelled
  // figures (memfit/error_band.h); 0: none.
  uint64_t confidence = 0;
};

inline constexpr uint64_t kLlamaCppMaxSequences = 256;  // LLAMA_MAX_SEQ
inline constexpr uint64_t kLlamaCppCellPad = 256;       // n_ctx and SWA cells

// The first builds whose cache rules differ from the build before
// (docs/engine-llamacpp.md, "Releases", gives each one's source and how
// sure its number is).
inline constexpr uint64_t kLlamaCppSwaWindowBuild = 5424;  // #13194: SWA cache of the window
inline constexpr uint64_t kLlamaCppSwaUbatchBuild = 5554;  // #13833: window + n_ubatch
inline constexpr uint64_t kLlamaCppStreamsBuild = 5913;    // #14363: a stream per sequence
// #18148: -ngl offloads the output layer first (merged 2025-12-18); the
// first build known to have it (the merge's own tag was not read).
inline constexpr uint64_t kLlamaCppOutputFirstBuild = 7591;
// The last build known to pad the cells to 32 rather than 256 with flash
// attention off (#7257's rule, removed by #16812).
inline constexpr uint64_t kLlamaCppLastPad32Build = 6845;

// --llamacpp-version's text: a build number, "b6500" or "6500". kUsage
// (naming llamacpp_version) on anything else.
Result<uint64_t> parse_llamacpp_build(std::string_view text);

// The context as llama_context's log lines print it, after clamping.
struct LlamaCppContext {
  uint64_t n_seq = 1;        // max(1, --parallel)
  uint64_t n_ctx = 0;        // total cells of the base cache over all streams
  uint64_t n_ctx_seq = 0;    // base cells per stream
  uint64_t streams = 1;      // 1 unified, n_seq otherwise
  uint64_t n_batch = 0;      // min(ctx before padding, --batch-size)
  uint64_t n_ubatch = 0;     // min(n_batch, --ubatch-size)
  uint64_t swa_cells = 0;    // SWA cells per stream; 0 when no layer is SWA
  // "n_outputs_max" as llama_context prints it: the caller's limit from
  // #23861 (b9460), else n_batch; 0 (a context made by hand): no limit.
  // The reserved prompt graph keeps min(n_ctx, n_ubatch, this) output rows
  // (llamacpp::reserved_output_rows).
  uint64_t n_outputs_max = 0;
  bool flash_attn = true;    // as resolved: auto is on (the CPU resolves it on)
  // V stored transposed, one element a row: flash attention asked off.
  // llama_context creates the memory before it resolves auto (src/llama-
  // context.cpp: cparams.flash_attn = type != DISABLED, then create_memory
  // with v_trans = !cparams.flash_attn, then the auto probe), so a run whose
  // auto resolved off keeps V untransposed and its graph copies each
  // layer's V out transposed (build_attn_mha's "avoid this branch").
  bool v_trans = false;
};

struct LlamaCppEstimate {
  LlamaCppSettings settings;
  LlamaCppContext context;
  uint64_t model_bytes = 0;    // mapped + repack: llama.cpp's "model"
  bool model_bytes_exact = false;
  uint64_t mapped_bytes = 0;   // the weights as in the file (CPU_Mapped)
  uint64_t repack_bytes = 0;   // the CPU_REPACK buffer: repacked copies
  RepackCpu repack = RepackCpu::kNone;  // as resolved (kAuto is taken as x86-avx2)
  bool repack_modelled = false;  // false: no tensor list (not GGUF); repack_bytes 0
  uint64_t k_bytes = 0;        // every layer's K tensors
  uint64_t v_bytes = 0;        // every layer's V tensors (0 for MLA)
  uint64_t kv_bytes = 0;       // k + v
  uint64_t kv_layers = 0;      // layers that hold KV
  // One token's K + V in one stream, over the layers that grow with the
  // context (SWA-windowed ones stop at their window), at the cache types.
  uint64_t kv_bytes_per_token = 0;
  uint64_t recurrent_bytes = 0;
  uint64_t recurrent_layers = 0;
  uint64_t output_bytes = 0;   // 4 x n_seq x n_vocab
  // One sequence's state that cannot be rolled back: one llama-server
  // context checkpoint (docs/llamacpp-rules.md, "Server extras"); 0 for
  // full attention only.
  uint64_t checkpoint_bytes = 0;
  uint64_t context_bytes = 0;  // kv + recurrent + output (exact)
  uint64_t compute_bytes = 0;  // modelled, or replayed (below)
  // The compute buffer is the pinned llama.cpp's own graph allocator
  // replayed over the model's graph, exact for the architectures memfit
  // builds graphs of (docs/llamacpp-rules.md, "Compute buffers
  // (replayed)"); false: the phases' model.
  bool compute_replayed = false;
  uint64_t total_bytes = 0;    // model + context + compute + extras + bands.margin_bytes
  // The server extras (llamacpp_extras.h), each on its device; not in
  // model, context or compute (llama.cpp's own breakdown leaves them out).
  std::vector<LlamaCppExtraLine> extras;
  uint64_t extras_bytes = 0;   // their sum
  uint64_t budget_bytes = 0;
  // With GPUs: every device fits (the placement's); without: total <= budget.
  bool fits = false;
  // Per device; model, context, compute and total above are its sums.
  LlamaCppPlacement placement;
  // The corpus's bands of the modelled figures (model when not exact,
  // compute when not replayed); under settings.confidence their margin is
  // in total_bytes and in the devices' totals (confidence_bytes).
  ReportBands bands;
};

// The estimate, over the context llama_context's constructor resolves.
// Fails with kUsage, naming the field, on a parallel of 0 or past 256, a
// batch or ubatch of 0, a quantized V cache with flash attention off, a
// context of 0 when the model declares none, an MLA model whose K and V
// types differ or a cache row that is not a whole number of the type's
// blocks; with kOverflow on absurd sizes.
Result<LlamaCppEstimate> estimate_llamacpp(const Model& model, const LlamaCppSettings& settings,
                                           const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMACPP_H_
