// The parts of the llama.cpp estimate (llamacpp.h), one file each:
// llamacpp/context.cc (cells, streams, batch), llamacpp/repack.cc (the
// CPU's repacked weights), llamacpp/memory.cc (KV, recurrent state, output
// buffer: exact) and llamacpp/compute.cc (the compute buffer: modelled).
// Private to the library.
#ifndef MEMFIT_ENGINES_LLAMACPP_PARTS_H_
#define MEMFIT_ENGINES_LLAMACPP_PARTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/engine.h"
#include "memfit/llamacpp.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

// Resolves the context (cells, streams, batch, flash attention) the way
// llama_context's constructor does. Fails (kUsage, naming the field) on a
// parallel of 0 or past 256, a batch or ubatch of 0, a quantized V cache with
// flash attention off, and a context of 0 when the model declares none.
Result<LlamaCppContext> resolve_llamacpp_context(const ModelSpec& spec,
                                                 const LlamaCppSettings& settings);

// The CPU_REPACK buffer for `cpu` (kAuto is taken as kX86Avx2, kNone is
// 0): over `tensors` (a GGUF model's, ggml type names as dtypes, shapes
// outermost first), pad32(bytes) of each 2-D weight and each 3-D expert
// weight ("_exps") whose type and row count (ne[1]) the CPU's kernels take,
// except the token-lookup tables and the NextN blocks (index >=
// `decoder_blocks`, not loaded); plus token_embd's bytes once more when the
// output is tied (no output.weight) and token_embd qualifies. kOverflow on
// absurd sizes.
Result<uint64_t> llamacpp_repack_bytes(const std::vector<SafetensorsTensor>& tensors,
                                       uint64_t decoder_blocks, RepackCpu cpu);

// How many of `tensors` a CPU run loads (every tensor outside the NextN
// blocks, and a tied output's second token_embd) and how many of those
// land in CPU_REPACK (as llamacpp_repack_bytes counts them). llama.cpp's
// loader names the first of the others, with their count, in "tensor 'X'
// (type) (and N others) cannot be used with preferred buffer type
// CPU_REPACK, using CPU instead" (llama-model.cpp, load_tensors): N + 1 =
// loaded - repacked.
struct RepackCounts {
  uint64_t loaded = 0;
  uint64_t repacked = 0;
};
RepackCounts llamacpp_repack_counts(const std::vector<SafetensorsTensor>& tensors, uint64_t decoder_blocks,
                                    RepackCpu cpu);

// The CPU_AARCH64 buffer of a GPU build before #12498 ("model : do not
// repack if a GPU device is present", 2025-03-21), whose make_cpu_buft_list
// put the CPU's extra buffer types ahead of the GPU's host buffer: over
// the host's tensors (`host_tensors`: those placed on the host, loaded),
// pad32(bytes) of each matmul weight (as llamacpp_repack_bytes: no lookup
// table) that the kernels of that time took: Q4_0 with rows a multiple of
// 8 on x86 (kAuto, kX86Avx2, kX86Avx512), Q4_0 and IQ4_NL with rows a
// multiple of 4 on kArm; 0 for kNone. A tied output's copy on the host is
// not counted. kOverflow on absurd sizes.
Result<uint64_t> llamacpp_host_extra_buffer_bytes(const std::vector<SafetensorsTensor>& host_tensors,
                                                  RepackCpu cpu);

}  // namespace memfit

namespace memfit::llamacpp {

// Each range of builds whose rules differ, with what changes, oldest first
// (releases.cc; EngineVersions::differences).
std::span<const ReleaseDifference> release_differences();

// The build's rules (releases.cc; docs/engine-llamacpp.md, "Releases"):
// whether windowed layers cache the full context (--swa-full, or a build
// before #13194), whether every sequence shares one stream (--kv-unified, or
// a build before #14363), the batch an SWA cache has room for (n_ubatch; a
// build before #13833: n_batch) and the cell padding (256; 32 with flash
// attention off up to the last build known to pad so).
bool full_swa_cache(const LlamaCppSettings& settings);
bool one_stream(const LlamaCppSettings& settings);
uint64_t swa_batch_tokens(const LlamaCppContext& context, const LlamaCppSettings& settings);
uint64_t cell_pad(const LlamaCppSettings& settings);
// The rows of logits the output buffer holds: n_seq (llama_output_reserve
// of n_seq_max); n_batch in a build before #6122.
uint64_t output_rows(const LlamaCppContext& context, const LlamaCppSettings& settings);
// Whether the output buffer keeps logits and embeddings together
// (llama.cpp #14208, "rework embeddings logic"): from that build and the
// pinned one, n_vocab logits a row always and n_embd more with
// --embedding; before it no logits with --embedding and the n_embd
// floats only when the pooling is none (docs/embedding-models.md).
bool logits_beside_embeddings(const LlamaCppSettings& settings);
// Whether a context that asks for embeddings without --embedding
// (settings.output_embeddings, Ollama's runner) keeps n_embd floats a row
// beside the logits: from #14208 always (has_embd = cparams.embeddings),
// before it for a model with no pooling of its own (Ollama's
// 0003-embeddings.patch: has_embd = embeddings && pooling == NONE).
bool keeps_output_embeddings(const ModelSpec& spec, const LlamaCppSettings& settings);
// Whether mean pooling's matrix (build_inp_mean) is n_tok x n_tok f32, as
// at b5618 and in Ollama's vendored de4c07f93, not n_tok x n_seqs_unq (as
// in Ollama's 2025-08 vendor): taken with the same first build as
// logits_beside_embeddings, unconfirmed (docs/embedding-models.md).
bool square_mean_matrix(const LlamaCppSettings& settings);
// Whether the reserved graph holds the vector-input path's `inp_embd`
// (f32 n_embd x n_tok, never freed): builds from #18898 and the pinned
// one; before it the token path alone (docs/llamacpp-rules.md, "Compute
// buffers (modelled)").
bool vector_input_leaf(const LlamaCppSettings& settings);
// Whether flash attention's KQ mask is an F32 graph input that the graph
// casts to F16 (llama-graph.cpp, `self_kq_mask_cnv = ggml_cast(...)`), not
// an F16 input: the builds before #23764 (b9444, releases.cc), as the
// replay's builders take them (graph/replay.cc).
bool f32_mask_cast(const LlamaCppSettings& settings);
// Whether llama_context takes the caller's n_outputs_max
// (LlamaCppSettings::outputs_max) for the reserved prompt graph's output
// rows: from #23861 (b9460, releases.cc); before it every token of the
// ubatch is an output row (LlamaCppContext::n_outputs_max).
bool limits_outputs(const LlamaCppSettings& settings);
// A quantized cache's Hadamard rotations of Q, K and V (#21038; memfit
// takes b8621): before it a quantized cache adds no node to the graph.
bool attn_rotation(const LlamaCppSettings& settings);
// The scratch ggml-metal allocates with a flash attention output
// (graph::metal_flash_attn_scratch), by the build's rule (releases.cc,
// kMetalAllocSizeBuild and after).
enum class MetalFaScratch {
  kNone,         // before #15966 (b6473): the output alone
  kVecPartials,  // the vector kernel's partial results, where it runs
  kKernelPad,    // #17143 (b7591): padding for the kernel's cells, block map, partials, always
  kPad64,        // #18545 (b8510): the padding for 64 cells whatever the kernel
  kKvF16,        // #27390 (the pinned; b11300 given): F16 copies of K and V besides
};
MetalFaScratch metal_flash_attn_scratch_rule(const LlamaCppSettings& settings);
// Whether the KV cache is written by ggml_set_rows through the graph
// inputs k_idxs and v_idxs (I64), as from #14959 (LLAMA_SET_ROWS on by
// default) and in the pinned build; before it by a view and a copy.
bool set_rows_kv_store(const LlamaCppSettings& settings);
// Whether llm_build_phi3 copies Q and K out of its fused QKV product
// (ggml_cont of a 2-D view each): builds before #14568 (b5836).
bool fused_qkv_qk_cont(const LlamaCppSettings& settings);
// Whether it copies V out so (ggml_cont): builds before #15662 (b6403).
bool fused_qkv_v_cont(const LlamaCppSettings& settings);
// Whether an MLA latent layer also caches a V tensor of its kv_lora_rank
// elements (LayerCache::latent_elems) at type_v, transposed without flash
// attention: a build before #19067 ("kv-cache : support V-less cache",
// first build taken as b7836); from it and in the pinned build V is a view
// of the latent K, no tensor of its own.
bool mla_caches_v(const LlamaCppSettings& settings);
// Whether a glm4moe (GLM-4.5 / 4.6) GGUF's KV cache leaves its NextN
// blocks out (n_layer - nextn_predict_layers layers, #14939): a build given
// before b7848 (the last seen with it b7847, releases.cc); the pinned v0.4.0
// caches them. memory.cc, filters_nextn.
bool glm4moe_filters_nextn(const LlamaCppSettings& settings);
// Whether a qwen35 / qwen35moe GGUF's MTP (NextN) block is loaded into its
// device's model buffer (placement.cc, loads_nextn_blocks): a build given
// before b10212 (#26296, releases.cc); from it on, and in the pinned
// v0.4.0, only with --spec-type draft-mtp, which memfit does not price.
bool loads_qwen35_mtp_block(const LlamaCppSettings& settings);
// Whether deepseek2 runs the graph of the builds before #12801 (DeepSeek
// MLA: kMlaGraphBuild in releases.cc, b5091 taken, the merge's build not
// read): llm_build_deepseek2's own multi-head attention over every head's
// K and V, whatever the file (graph/deepseek2_legacy.cc).
bool legacy_deepseek2_graph(const LlamaCppSettings& settings);
// Whether an encoder (BERT) still gets a KV cache it never reads: n_ctx
// cells of every layer's K and V, as a decoder's, in a build before
// #13108 ("allow cache-less context for embeddings"); none from it and in
// the pinned one (docs/embedding-models.md).
bool encoder_kv_cache(const LlamaCppSettings& settings);
// Whether the graph's inputs have a host buffer of their own, beside the
// compute buffers: a build before #6017 (b2413), which allocated the
// inputs in the graph; #5100 made the buffer (input_buffer_bytes).
bool separate_input_buffer(const LlamaCppSettings& settings);
// Whether the compute phases are the early graph's (compute.cc): the
// builds before #6122 (b2537), the last seen of them b2459 (ggml-org/ci);
// the first build with the pinned phases is not confirmed.
bool early_graph_phases(const LlamaCppSettings& settings);
// Whether a SwiGLU FFN runs SiLU and the product as two in-place ops
// (ggml_silu, ggml_mul), not the fused ggml_swiglu_split: a build before
// #14158 (kFusedGluBuild in releases.cc: b5619 taken, the merge's build
// not read).
bool split_glu_in_place(const LlamaCppSettings& settings);
// Whether a batch is split into ubatches of n_ubatch tokens (#6017, b2413,
// added n_ubatch); before it the graph ran n_batch tokens.
bool splits_batch(const LlamaCppSettings& settings);
// --batch-size when not given: 512 before #6017 (b2413), the pinned 2048
// from it.
uint64_t default_batch_size(const LlamaCppSettings& settings);
// That buffer (llama_new_context_with_model's ctx_input, in the builds of
// early 2024): i32 token ids, f32 input rows (n_embd), i32 positions, the
// f32 KQ mask (n_ctx x n_batch), the f32 ALiBi positions and i32 K shift
// (n_ctx each), the f32 mean-pooling matrix (n_batch x n_batch) and the
// i32 CLS rows, each padded to the host's 32 B; 0 from b2413.
uint64_t input_buffer_bytes(const ModelSpec& spec, const LlamaCppContext& context,
                            const LlamaCppSettings& settings);
// Whether a GPU backend runs the ops on host weights (op offload,
// placement.cc's place_compute): false in a build before #6083.
bool op_offload(const LlamaCppSettings& settings);
// Whether op offload takes only weights in host buffers (#11120, b4436 on):
// a weight in a CPU extra buffer (CPU_AARCH64, AMX) is then not offloaded.
// Before it every weight the CPU backend held was.
bool offloads_host_buffers_only(const LlamaCppSettings& settings);
// Whether this GPU's backend takes the ops on host weights under op offload:
// ggml-cuda (CUDA, ROCm), ggml-vulkan, ggml-sycl and ggml-cann (their
// offload_op; CANN's since the backend's first source, #6035); the first
// such GPU runs them, those whose product its supports_op takes
// (runs_weight_op). Metal offloads matrix products only: no.
bool takes_op_offload(const LlamaCppGpu& gpu);
// Whether the mask's cast on this GPU's first block lands above the holes
// of that block's norm and K (ComputePhases::mask_cast_holes): a backend
// that reads the F32 mask and the input rows as the scheduler's copies,
// allocated at the split's start: ggml-cuda (CUDA, ROCm), ggml-vulkan and
// ggml-sycl. Metal reads host memory; ggml-cann's one such log shows none.
bool cast_leaves_holes(const LlamaCppGpu& gpu);
// Whether this GPU's backend runs the product a weight of GGML type `dtype`
// (ggml_type_name: "q8_0", "mxfp4") feeds, so that llama.cpp loads the weight
// into its buffer: llama-model.cpp's select_weight_buft takes the first
// buffer type whose device supports the weight's op (weight_buft_supported,
// ggml_backend_dev_supports_op) and falls back to the host's. ggml-cann's
// supports_op takes MUL_MAT (and MUL_MAT_ID) on f32, f16, q8_0 and q4_0
// only, and has no ADD_ID (the routed experts' biases, #15091); every other
// backend memfit places on runs them all. `expert_bias` marks a routed
// expert's bias (ffn_*_exps.bias).
bool runs_weight_op(const LlamaCppGpu& gpu, std::string_view dtype, bool expert_bias);
// Whether this GPU's backend runs flash attention (GGML_OP_FLASH_ATTN_EXT
// in its supports_op): ggml-sycl from #20190 (b8234) only; ggml-cann from
// #13627 (b5489 taken) and not over attention sinks (`sinks`: gpt-oss's
// attn_sinks, the op's src[4]);
// every other backend memfit places on does. Where it does not, the
// scheduler gives the op to the CPU, the one backend that supports it.
bool runs_flash_attn(const LlamaCppGpu& gpu, const LlamaCppSettings& settings, bool sinks);
// Whether an encoder's token_embd_norm (weight and bias) lives on block 0's
// device, created with bid 0 as a repeating-layer tensor (#20943, "move
// the token embedding norms to the first layer"), not on the host with
// the input layer as in a build before it.
bool embedding_norm_on_first_block(const LlamaCppSettings& settings);
// Whether Gemma 3n's and Gemma 4's per_layer_token_embd lives on the host
// (an input-layer tensor) and per_layer_model_proj and per_layer_proj_norm
// on block 0's device (repeating-layer tensors of bid 0), as from b8720;
// false: all three on the output layer's device, as from #14400 to b8702.
bool per_layer_inputs_by_role(const LlamaCppSettings& settings);
// Whether the loader creates a tied output's second token_embd
// (TENSOR_DUPLICATED) on the output layer's device where the file has no
// output.weight: every architecture memfit builds but LFM2 (model_type
// "lfm2") before #15476 (b6250 taken), whose graph multiplied by the
// input layer's token_embd itself, on the host.
bool duplicates_tied_output(const ModelSpec& spec, const LlamaCppSettings& settings);
// Whether every block past block 0 allocates its own copy of the RoPE
// factor tensors on its device (a build before #10026, b3990); from it,
// one copy per device (buffer type) that holds blocks. placement.cc,
// place_rope_factor_copies.
bool rope_factors_per_block(const LlamaCppSettings& settings);
// Whether the main context's KV cache leaves every model's NextN/MTP blocks
// out (n_layer_nextn > 0 with a trunk): a build given from v0.5.0 (b11300
// taken, releases.cc); v0.4.0, the pinned, filters five architectures'
// only (memory.cc, filters_nextn).
bool filters_every_nextn(const LlamaCppSettings& settings);
// Whether an unset context (ctx_size 0) is the training context x the
// sequences, a unified cache too (common/fit.cpp at v0.5.0, b11300 taken):
// a build given from v0.5.0; v0.4.0, the pinned, x the streams (one when
// unified). llama_server.cc, apply_llama_server_rules.
bool auto_context_per_sequence(const LlamaCppSettings& settings);
// Whether the build has pipeline parallelism (#6017, b2413): the
// scheduler's copies of the graph's inputs (placement.cc,
// pipeline_copies). False before it.
bool pipeline_parallel_build(const LlamaCppSettings& settings);
// Whether this GPU's backend, as the op offload GPU, takes the token
// table's get_rows on a host table of GGML type `dtype` (ggml_type_name)
// once the prompt graph has 32 tokens: ggml-sycl from #10133 (b4040) to
// #10432 (b4220), for the types its GET_ROWS runs. The scheduler then runs
// the whole graph on that GPU (one split), the table's copy in its compute
// buffer, and the host keeps the graph inputs alone. placement.cc,
// replayed_splits and place_compute.
bool offloads_get_rows(const LlamaCppGpu& gpu, const LlamaCppSettings& settings, std::string_view dtype);
// Whether this GPU's backend reports async compute and events
// (ggml_backend_dev_props.caps), which llama_context requires of every GPU
// before it enables pipeline parallelism: ggml-cuda (CUDA, ROCm) in every
// build, ggml-vulkan from the build known to have them (releases.cc). Any
// other backend, and a GPU given by --gpu-memory ("gpu:N", its backend not
// known): no.
bool has_async_events(const LlamaCppGpu& gpu, const LlamaCppSettings& settings);
// Whether -ngl offloads the output layer first: placement.output_layer_first,
// and false in a build before #18148 (i_gpu_start = n_layer - N).
bool output_layer_first(const LlamaCppSettings& settings);

// Cells per stream of a sliding-window or chunked layer of `window_tokens`
// (llama_kv_cache_iswa): n_ctx_seq with a full SWA cache, else
//   pad(min(n_ctx_seq, window x (one stream ? n_seq : 1) + swa_batch_tokens)).
uint64_t swa_cells(const LlamaCppContext& context, const LlamaCppSettings& settings,
                   uint64_t window_tokens);

// The output rows of the worst-case prompt graph llama_context reserves
// (sched_reserve's n_outputs_pp): min(n_ctx, n_ubatch, n_outputs_max),
// the tokens alone where n_outputs_max is 0. The token graph keeps n_seq.
uint64_t reserved_output_rows(const LlamaCppContext& context);

// The pooling llama-server runs: "" without --embedding; --pooling (or
// --reranking's rank) when given; else the model's own
// (EmbeddingInfo::pooling, "" when it states none).
std::string_view pooling_of(const ModelSpec& spec, const LlamaCppSettings& settings);

// True for a layer whose cache is a fixed recurrent state (llama_memory_recurrent:
// Mamba's SSM, a gated delta net, LFM2's short convolution), not K and V.
bool is_recurrent(LayerKind kind);

// True for a layer llama.cpp gives an SWA cache (a bounded window).
bool is_windowed(const LayerCache& layer);

struct MemoryParts {
  uint64_t k_bytes = 0;
  uint64_t v_bytes = 0;
  uint64_t kv_layers = 0;
  // One cell's K + V rows over the layers whose cells grow with the
  // context (not the SWA-windowed ones, unless swa_full), at the cache types.
  uint64_t kv_bytes_per_token = 0;
  uint64_t recurrent_bytes = 0;
  uint64_t recurrent_layers = 0;
  uint64_t output_bytes = 0;
  // A build before #6017's graph input buffer (input_buffer_bytes), on the
  // host beside the output buffer; 0 from b2413.
  uint64_t input_bytes = 0;
  // Per decoder layer, in order: its KV (K + V) and recurrent state bytes;
  // the placement puts each on its layer's device.
  std::vector<uint64_t> layer_bytes;
  uint64_t nextn_layer_bytes = 0;  // each NextN block's KV (they are alike)
  // What one sequence holds that it cannot roll back, the size of one
  // llama-server context checkpoint (llama_state_seq_get_size with
  // LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY, less its few bytes of cell
  // metadata): every recurrent layer's state_bytes, plus, without
  // --swa-full, every windowed layer's K and V rows (at the cache types,
  // V unpadded) for min(n_ctx_seq, window + n_ubatch) cells, the most one
  // sequence keeps in the SWA cache. 0 for a model of full attention only.
  uint64_t seq_partial_bytes = 0;
};

// KV (K and V rows at the cache types, cells x streams per layer),
// recurrent state (state_bytes x n_seq per layer) and the output buffer
// (4 x n_seq x vocab; with --embedding 4 x n_batch x (vocab + hidden)).
// kUsage when a row is not a whole number of blocks or an MLA model's K
// and V types differ; kOverflow on absurd sizes.
Result<MemoryParts> memory_parts(const ModelSpec& spec, const LlamaCppContext& context,
                                 const LlamaCppSettings& settings);

// The phases of the prompt graph (llamacpp/compute.cc), each the bytes of
// its live tensors: the compute buffer of a device is the largest phase it
// runs. input: the embeddings' rows and their copy, 2 x 4 x n_tok x hidden,
// + the mask (what a host that runs no layer keeps).
struct ComputePhases {
  uint64_t output = 0;
  uint64_t attention = 0;
  uint64_t ffn = 0;
  uint64_t input = 0;
  // The output phase on a GPU: the logits and result_norm alone (the
  // input rows stay on the host, the GPU's copy of them is freed after the
  // first layer reads it). docs/llamacpp-rules.md, "Compute buffers on a GPU".
  uint64_t output_offloaded = 0;
  // The prompt graph's token rows (n_tok): the batch a GPU backend's
  // offload_op compares with its minimum (op offload, llamacpp/placement.cc).
  uint64_t tokens = 0;
  // The mask's cast on the GPU that runs the first block, where the build
  // casts an F32 mask input to F16 under flash attention (f32_mask_cast):
  // the scheduler's copies of the input rows and the F32 mask, the first
  // block's query, and the F16 cast, live at once; 0 where there is no such
  // cast. docs/llamacpp-rules.md, "Compute buffers on a GPU".
  uint64_t mask_cast = 0;
  // What the allocator leaves below the cast on a GPU that reads the F32
  // mask and the input rows as the scheduler's copies (placement.cc,
  // place_compute): the first block's norm output and its K (whose slot V
  // takes), freed before the cast but in holes the F16 cast does not fit:
  // 4 x n_tok x (hidden + kv heads x head_dim); 0 where mask_cast is.
  uint64_t mask_cast_holes = 0;
  // One copy of what pipeline parallelism copies n_copies times
  // (placement.cc, pipeline_copies): the hidden rows a GPU's split reads
  // from the backend before it (the input rows or the residual, 4 x n_tok x
  // hidden), the KQ masks its layers read (each n_kv x n_tok at the mask
  // input's type: F16 under flash attention from #18898, else F32; a model
  // with windowed and full layers has both), the positions (i32 x n_tok),
  // the output ids on the output layer's GPU (i32 x n_out), and the host's
  // graph inputs (token ids, positions, output ids, the masks and a pooling
  // matrix, the KV store's indices and the vector-input leaf, each at the
  // host's 32-B alignment). kv_indices: the KV store's i64 k_idxs and
  // v_idxs of every cache (set_rows_kv_store), which each GPU's split
  // that writes a cache reads from the host.
  uint64_t split_rows = 0;
  uint64_t split_masks = 0;
  uint64_t kv_indices = 0;
  uint64_t positions = 0;
  uint64_t output_ids = 0;
  uint64_t graph_inputs = 0;
  // Op offload (placement.cc, place_compute): what the GPU holds at a host
  // block's attention besides the copies of that layer's K and V views,
  // which the scheduler makes because the cache lives in a host buffer the
  // GPU backend cannot read (ggml_backend_sched_split_graph): the residual
  // and Q (4 x n_tok x (hidden + heads x query width)), the GPU's mask, and
  // without flash attention the scores (4 x n_kv x n_tok x heads), with it
  // the attention's output (4 x n_tok x heads x head_dim). A lower bound:
  // the allocator's layout can add holes. 0 without attention.
  uint64_t host_attention = 0;
  // The KQ mask the GPU keeps through every layer but the last (the one the
  // FFN phase counts): (2 under flash attention, else 4) x n_kv x n_tok.
  uint64_t mask = 0;
  // Op offload with a host block's cache in a host buffer: the KV store
  // (ggml_cpy, from #14959 ggml_set_rows) gives a view of that cache, so it
  // runs on the host (ggml_backend_sched_backend_id_from_cur, cause
  // "1.vsrc"), and reads the K and V the GPU computed as the scheduler's
  // copies in the host's compute buffer: f32, n_tok rows of one token's K
  // and V (MLA: the latent, and the V row a build before #19067 stores),
  // 4 x n_tok x (K row + V row) bytes. 0 without attention.
  uint64_t kv_store_copies = 0;
  // A build that casts an F32 mask input under flash attention
  // (f32_mask_cast): the copy of the F32 mask (4 x n_kv x n_tok, the first
  // attention layer's kind) that the cast's split reads. Under op offload
  // with the first block on the host, the cast, which has no weight, joins
  // that block's attention split on the GPU ("expand gpu up" from the output
  // projection), so the copy sits beside the block's K and V copies
  // (placement.cc, place_compute). 0 otherwise.
  uint64_t mask_cast_input = 0;
  // The host's buffer where it runs every attention layer's flash
  // attention for GPUs whose backend cannot (runs_flash_attn): the graph
  // inputs and each layer's split of copies (Q, the layer's K and V views,
  // the F16 mask, the sinks) and output, replayed (graph/host_attention.h).
  // 0 without flash attention or attention.
  uint64_t host_flash_attn = 0;
  // What a Metal GPU's attention phase adds under flash attention: the
  // scratch ggml-metal allocates with the attention's output
  // (graph::metal_flash_attn_scratch, by the build's MetalFaScratch), at
  // the prompt graph's queries and the largest cache's cells (placement.cc,
  // place_compute). 0 without flash attention or attention, for MLA and an
  // encoder's graph, and for a cache row that is not whole blocks.
  uint64_t metal_flash_attn = 0;
  // The FFN phase is linear in the FFN's width on a dense model:
  // ffn = ffn_fixed + ffn_per_width x ffn_width, ffn_width the model's
  // widest (its intermediate size). A device whose blocks' widest FFN is
  // narrower (per-layer widths: Deci) reserves ffn_fixed + ffn_per_width x
  // that width (placement.cc, place_compute). ffn_per_width 0: no such
  // rule (MoE, no FFN).
  uint64_t ffn_fixed = 0;
  uint64_t ffn_per_width = 0;
  uint64_t ffn_width = 0;
};
Result<ComputePhases> compute_phases(const ModelSpec& spec, const LlamaCppContext& context,
                                     const LlamaCppSettings& settings);

// The compute buffer of a run on the host alone, replayed: the pinned
// llama.cpp's graph for this model built tensor by tensor and its
// allocator replayed over it (llamacpp/graph/*.cc, llamacpp/graph/ggml_graph.h): exact
// for the architectures a builder knows (llama, Mistral, Mixtral, qwen3,
// qwen3moe with one full-attention cache; Gemma 3 over its iSWA cache;
// deepseek2 GGUFs with MLA); nullopt for any other model or setting, which
// keeps the phases' model. The MLA and recurrent graphs read the GGUF
// file's own facts too (Model::gguf, llamacpp/graph/file_facts.h).
// kOverflow on absurd sizes.
Result<std::optional<uint64_t>> replayed_compute_bytes(const Model& model,
                                                       const LlamaCppContext& context,
                                                       const LlamaCppSettings& settings);

// The compute buffer of GPU `device` when the GPUs run every layer (block
// i on device_of_layer[i], the output on device_of_layer[L]), the host
// keeping the graph inputs and the token rows' gather: the build's graph
// (the decoder builder's architectures and qwen2) split as
// ggml_backend_sched_split_graph splits it, the device's split with the
// scheduler's copies of its inputs first, and the allocator replayed over
// it (llamacpp/graph/ggml_graph.h, device_split), on a Metal GPU (`metal`)
// after the backend's reorder (llamacpp/graph/metal_reorder.h). nullopt for
// any other model or setting. kOverflow on absurd sizes.
Result<std::optional<uint64_t>> replayed_device_compute_bytes(const Model& model,
                                                              const LlamaCppContext& context,
                                                              const LlamaCppSettings& settings,
                                                              const std::vector<int>& device_of_layer,
                                                              int device, bool metal = false);

// Where one weight lives and its bytes (placement.cc, from the GGUF's
// tensor list): a GPU's index, or kWeightOnHost.
inline constexpr int kWeightOnHost = -1;
struct WeightHome {
  int device = kWeightOnHost;
  uint64_t bytes = 0;
  // A host weight whose product the offload GPU's backend runs
  // (runs_weight_op: its supports_op), so that op offload may move it.
  bool offloadable = true;
};
// Weights by GGUF name (blk.3.attn_q.weight, output.weight, ...).
using WeightHomes = std::map<std::string, WeightHome, std::less<>>;

// The same where op offload moves the host's products to GPU `offload_gpu`
// (some block's weights or the output's on the host, or its KV cache:
// device_of_layer[i] kWeightOnHost): the build's graph split as
// ggml_backend_sched_split_graph splits it under op offload
// (ggml_graph::offload_split), each weight where `homes` says. nullopt for
// a model the decoder builder does not cover or a weight `homes` lacks.
Result<std::optional<uint64_t>> replayed_offload_compute_bytes(const Model& model,
                                                               const LlamaCppContext& context,
                                                               const LlamaCppSettings& settings,
                                                               const std::vector<int>& device_of_layer,
                                                               const WeightHomes& homes, int offload_gpu,
                                                               int device, bool offload_get_rows = false);

// The buffers' alignments: every tensor of a GPU buffer starts at a
// multiple of 128 B (ggml-cuda's), of a host buffer at 32 B (ggml-cpu's
// TENSOR_ALIGNMENT).
inline constexpr uint64_t kGpuTensorAlignment = 128;
inline constexpr uint64_t kCpuTensorAlignment = 32;

// Splits the estimate over the devices of settings.placement
// (llamacpp/placement.cc) and sets e.placement, with the totals of `e`
// (model, context, compute, total, fits) as the sums over its devices.
// kUsage naming the field for an override or --main-gpu past the GPUs.
Status place(const Model& model, const MemoryParts& parts, const ComputePhases& phases,
             const MemoryBudget& budget, LlamaCppEstimate& e);

// Adds settings.extras to `e` after place(): each line on its device
// (added to the device's extras_bytes and total), the estimate's
// extras_bytes and total_bytes, and every device's fit again.
// The draft model is a second estimate against `budget`; the LoRA
// adapters are checked against `model` (the one placed) and go where
// e.placement.tensors put their base tensors.
Status add_extras(const Model& model, LlamaCppEstimate& e, const MemoryBudget& budget);

// Every device's fit again, by place()'s rules: without GPUs the host
// against the budget; unified memory one pool. Sets e.placement.fits and
// e.fits.
void refit_devices(LlamaCppEstimate& e);

// The corpus's bands of the modelled figures (llamacpp/bands.cc): e.bands,
// and under settings.confidence each device's share of the margin added to
// its confidence_bytes and total, the estimate's total, and every device's
// fit again. kInternal when the embedded band table does not parse.
Status add_bands(LlamaCppEstimate& e);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_PARTS_H_
