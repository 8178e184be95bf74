// The pieces llama.cpp's graph builders share, as shape-only graphs for
// the allocator replay (llamacpp/graph/ggml_graph.h), and the builders of each model
// family. Each builder mirrors the pinned llama.cpp's tensor order; its
// figures are checked against that library's own allocator
// (docs/llamacpp-rules.md, "Compute buffers (replayed)"). Private to the
// library.
#ifndef MEMFIT_ENGINES_LLAMACPP_GRAPH_BUILDERS_H_
#define MEMFIT_ENGINES_LLAMACPP_GRAPH_BUILDERS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/graph/file_facts.h"
#include "engines/llamacpp/graph/ggml_graph.h"
#include "engines/llamacpp/parts.h"
#include "memfit/ggml_types.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::llamacpp::graph {

using ggml_graph::Graph;

// Every factor a builder multiplies stays below this (tokens, widths,
// cells, heads; the vocabulary below 2^24), so every tensor's bytes stay
// far below 2^64; a model past it keeps the phase model.
inline constexpr uint64_t kMaxFactor = uint64_t{1} << 20;
inline constexpr uint64_t kMaxVocab = uint64_t{1} << 24;
inline constexpr uint64_t kMaxLayers = 1024;
// A graph of more tensors than this is not built (the phase model prices
// it): the records are sized from header fields.
inline constexpr uint64_t kMaxTensors = uint64_t{1} << 17;

// mul_mat(w, b) with a weight of `rows` outputs: [rows, b.ne1..3], f32.
int mul_mat(Graph& g, int w, int b, uint64_t rows);
// build_norm(LLM_NORM_RMS) with a weight: rms_norm, then mul.
int rms_norm_mul(Graph& g, int x, int w);
// llama_mul_mat_hadamard: `cur`'s rows of n rotated by the n x n input.
int hadamard(Graph& g, int cur, int rot, uint64_t n);

// build_inp_embd: the token ids, the vector-input path (`inp_embd`: placed,
// never read, so never freed; a build before #18898 has none:
// `input_leaf` false) and the rows gathered from the embedding [hidden,
// n_tok], which it returns, expanded in llama.cpp's order. The gather reads
// the host's token_embd and runs there (Tensor::host) when a GPU runs the
// rest.
int token_embeddings(Graph& g, int weight, uint64_t hidden, uint64_t n_tok, bool input_leaf = true);
// The output norm and the LM head: result_norm and the logits over
// `vocab`, both graph outputs (never freed), expanded last.
void logits_output(Graph& g, int weight, int inp, uint64_t vocab);

// The last layer keeps the output rows only: `cur` and `residual`
// [hidden, n_tok] gathered by inp_out_ids (`out_ids`) to [hidden, n_out],
// cur first. Returns n_out, the rows the rest of the layer has.
uint64_t keep_output_rows(Graph& g, int out_ids, uint64_t hidden, uint64_t n_out, int& cur, int& residual);
// build_ffn, SiLU-gated in parallel (up, gate, swiglu, down), `width`
// wide: [hidden, n] -> [hidden, n]. A build before #14158 (`fused` false)
// runs SiLU over the gate and the product with up as two ops, both in place.
// The weights are the block's ffn_up, ffn_gate and ffn_down with `suffix`
// after the kind (deepseek2's shared expert: "_shexp").
int swiglu_ffn(Graph& g, int weight, int cur, uint64_t width, uint64_t hidden, bool fused = true,
               std::string_view suffix = "");

// build_ffn with one up matrix of 2 x `width` outputs, LLM_FFN_SWIGLU and
// LLM_FFN_SEQ (glm4): ggml_swiglu over the product (#14158 on, `fused`);
// before it each half copied out of a view (ggml_cont), SiLU over the
// first in place and the product in place: [hidden, n] -> [hidden, n].
int merged_swiglu_ffn(Graph& g, int weight, int cur, uint64_t width, uint64_t hidden, bool fused = true);

// build_moe_ffn as a builder calls it (no expert groups, SwiGLU experts).
struct MoeShape {
  uint64_t hidden = 0;
  uint64_t experts = 0;
  uint64_t used = 0;        // experts per token
  uint64_t expert_ffn = 0;  // one expert's width
  bool sigmoid = false;     // gating: sigmoid, else softmax
  bool selection_bias = false;
  bool weights_norm = false;
  bool weights_scaled = false;
  // A build before #14158: SiLU over the gate in place, then
  // ggml_mul(up, gate), in place over up (llm_build_moe_ffn's `par`);
  // from it one fused ggml_swiglu_split.
  bool fused = true;
};
// The gate, the `used` experts chosen per token and their weights, then
// the routed experts weighted and summed: [hidden, n] -> [hidden, n]
// (llamacpp/graph/ffn.cc).
int moe_ffn(Graph& g, const MoeShape& s, int weight, int cur, uint64_t n);

// One attention layer's KV cache and inputs as build_attn sees them.
struct AttentionShape {
  uint64_t hidden = 0;    // wo's outputs
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;  // of K and V
  uint64_t n_kv = 0;      // cells per stream of this layer's cache
  uint64_t streams = 1;
  bool flash_attn = true;
  // V cached transposed (LlamaCppContext::v_trans): flash attention asked
  // off. Without flash attention and untransposed (auto resolved off), the
  // attention copies V out transposed before its product.
  bool v_trans = false;
  bool v_f32 = false;     // the V cache's type is F32 (else F16/BF16: 2 B)
  uint64_t k_rot = 0;     // Hadamard size of the K rotation; 0 = none
  uint64_t v_rot = 0;
  // A build before #23764 under flash attention: the mask input is F32 and
  // the graph casts it to F16 (`self_kq_mask_cnv`), where the attention
  // first reads it. The pinned build's input is F16.
  bool f32_mask_cast = false;
  // The KV store through set_rows and its I64 index inputs (#14959); a
  // build before it copies into a view of the cache, no index input.
  bool kv_indices = true;
  // Metal: flash attention's output is allocated with its scratch
  // (ggml_graph::Tensor::alloc_extra, metal_flash_attn_scratch) by the
  // build's rule, which reads the bytes of one cache cell's K and V rows
  // (every KV head) and whether K's type is one ggml-metal copies to F16
  // for 32 queries or more (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0: kKvF16).
  bool metal_scratch = false;
  MetalFaScratch metal_rule = MetalFaScratch::kPad64;
  uint64_t k_cell_bytes = 0;
  uint64_t v_cell_bytes = 0;
  bool k_f16_copy_type = false;
};
// The scratch ggml-metal allocates with a flash attention output of
// `rows` queries a stream under s.metal_rule (ggml-metal.cpp's
// ggml_backend_metal_buffer_type_get_alloc_size; ggml-metal-ops.cpp's
// ggml_metal_op_flash_attn_ext_extra_pad, _blk, _tmp and _kv_f16; the
// builds of each rule: releases.cc, kMetalAllocSizeBuild on). From
// kKernelPad, always reserved: K, V and mask padding for 64 cells (32
// under the vector kernel before kPad64), K's and V's rows the cache
// cell's (every KV head) or, where kKvF16 copies K to F16, one head's F16
// row; the mask's block map, one byte per 8 queries by 64 cells (1 by 32
// for the vector kernel: under 20 queries, a head size a multiple of 32),
// padded to 32 B; the partial results of 32 workgroups (F32, at most 32
// queries, V's head size + 2 per head); from kKvF16 the F16 copies of the
// whole K and V views (head size x cells x KV heads x streams x 2 B, each
// padded to 16 B). kVecPartials: the partials of every query alone, under
// the vector kernel alone. The decoder's attention: K and V of one head
// size, V no view of K.
uint64_t metal_flash_attn_scratch(const AttentionShape& s, uint64_t rows);
// Whether ggml-metal dequantizes a K cache of `type` to F16 before flash
// attention (ggml-metal-ops.cpp, ggml_metal_op_flash_attn_ext_use_kv_f16,
// #27390): Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0.
bool metal_copies_k_to_f16(GgmlType type);
// Sets what metal_flash_attn_scratch reads from the settings: the build's
// rule, one cache cell's K and V rows (a.kv_heads x a.head_dim elements)
// in the cache's types, and whether K is copied to F16. False, setting
// nothing, when a row is not whole blocks of its type.
bool set_metal_cache_rows(AttentionShape& a, const LlamaCppSettings& settings);
struct AttentionInputs {
  int weight = -1;  // any external tensor (weights, the cache)
  int k_idxs = -1;
  int v_idxs = -1;
  int mask = -1;
  int k_rot = -1;
  int v_rot = -1;
};
// The K and V cache a standard (not MLA) attention layer reads: the
// geometry's heads, the base cache's cells per stream, the rotations of a
// quantized cache. A sliding-window layer changes n_kv.
AttentionShape attention_shape(const ModelGeometry& geometry, const LlamaCppContext& context,
                               const LlamaCppSettings& settings);
// The K/V cache settings a graph with a K and a V cache covers: not an f32
// cache under flash attention (llama.cpp casts it to f16 first, a copy the
// graphs do not hold), and a quantized V only with flash attention.
bool covers_cache_types(const LlamaCppContext& context, const LlamaCppSettings& settings);

// The inputs build_attn_inp_kv creates for a cache (leaves; the graph
// lists them where they are first read).
AttentionInputs attention_inputs(Graph& g, const AttentionShape& s, uint64_t n_tok, int weight);
// build_attn with a KV cache: from the roped Q, K, V [head_dim, heads,
// n_tok] to the output projection [hidden, n_tok] (rotations, the cache
// stores, flash attention or scores + softmax, wo).
int attention(Graph& g, const AttentionShape& s, const AttentionInputs& in, int q, int k, int v,
              uint64_t n_tok);

// The Hadamard sizes llama.cpp rotates a quantized cache by (0: none):
// K by the largest power of two from 64 up dividing the head, V by 64.
uint64_t k_rotation(GgmlType type, uint64_t head_dim);
uint64_t v_rotation(GgmlType type, uint64_t head_dim);

// The compute buffer llama.cpp reserves with a builder's graphs: the
// prompt graph of round_up(min(n_ctx, n_ubatch), streams) tokens keeping
// min(n_ctx, n_ubatch) output rows, and the graph of one token per
// sequence; the largest replay, at the CPU's alignment.
using GraphOf = std::function<Graph(uint64_t n_tok, uint64_t n_out)>;
Result<uint64_t> reserve_bytes(const LlamaCppContext& context, const GraphOf& graph_of);
// The same with the prompt rounded up to a multiple of `seqs` (the
// sequences its ubatch splits into) and the token graph skipped when the
// sequences are not a multiple of the streams.
Result<uint64_t> reserve_bytes(const LlamaCppContext& context, uint64_t seqs, const GraphOf& graph_of);
// The same for a buffer of `alignment` (a GPU's: kGpuTensorAlignment).
Result<uint64_t> reserve_bytes(const LlamaCppContext& context, uint64_t seqs, uint64_t alignment,
                               const GraphOf& graph_of);
// A builder's answer from reserve_bytes: the bytes (never nullopt), or the
// error as it is.
Result<std::optional<uint64_t>> replayed(Result<uint64_t> bytes);

// The builders, each nullopt for a model or setting it does not cover.
// llamacpp/graph/decoder.cc: llama, Mistral, Mixtral, qwen3, qwen3moe, phi3,
// at the build's graph (at_build_graph).
Result<std::optional<uint64_t>> replay_decoder(const ModelSpec& spec, const LlamaCppContext& context,
                                               const LlamaCppSettings& settings);
// The same graphs as GPU `device` sees them when the GPUs run every layer,
// block i on device_of_layer[i] and the output on device_of_layer[L]
// (ggml_graph::device_split: the host keeps the inputs and the token rows'
// gather), at the build's graph (settings.build: the mask's cast, the KV
// store's indices, the vector-input leaf, the fused SwiGLU) and the GPU
// buffer's alignment; qwen2 (its Q, K and V biases run in place) and glm4
// (post-norms in place, one merged up matrix: merged_swiglu_ffn) too.
// nullopt where the build's graph differs in a way the builder does not
// mirror (a quantized cache before the pinned build: its rotations).
// `metal`: the GPU is Metal's, whose graph_optimize reorders the split
// before it is allocated (ggml_graph::metal_reorder).
Result<std::optional<uint64_t>> replay_decoder_device(const ModelSpec& spec, const LlamaCppContext& context,
                                                      const LlamaCppSettings& settings,
                                                      const std::vector<int>& device_of_layer, int device,
                                                      bool metal = false);
// The same graphs under op offload (ggml_graph::offload_split): each
// weight where `homes` says (its GGUF name), each block's KV cache on
// device_of_layer[i] (kWeightOnHost: the host's), the host's products of
// a batch of 32 or more on `offload_gpu`; GPU `device`'s buffer. nullopt
// where a weight the graph reads is not in `homes` (the tied output matrix
// is token_embd's bytes on the output layer's device). offload_get_rows:
// the token table's get_rows goes to `offload_gpu` too (OffloadPlan::get_rows).
Result<std::optional<uint64_t>> replay_decoder_offload(const ModelSpec& spec, const LlamaCppContext& context,
                                                       const LlamaCppSettings& settings,
                                                       const std::vector<int>& device_of_layer,
                                                       const WeightHomes& homes, int offload_gpu, int device,
                                                       bool offload_get_rows = false);
// Gives every weight and cache tensor of `g` its home for offload_split: a
// weight by its GGUF name in `homes` (output.weight absent: token_embd's
// bytes, created again for the output layer, block `layers`, on its
// device; a block's rope_freqs duplicate with the block), the K (even
// Tensor::cache_slot) and V (odd) of block i on device_of_layer[i], each
// copy of them k_bytes and v_bytes. false where a weight is in neither.
bool set_homes(Graph& g, uint64_t layers, const WeightHomes& homes, const std::vector<int>& device_of_layer,
               uint64_t k_bytes, uint64_t v_bytes);
// llamacpp/graph/deepseek2_legacy.cc: the graph a deepseek2 GGUF without
// the MLA keys (heads' K and V cached: is_decompressed_mla) ran with in the
// builds before #12801 (legacy_deepseek2_graph), under op offload as
// replay_decoder_offload splits it; nullopt for anything else (flash
// attention, a build from #12801, a weight `homes` lacks).
Result<std::optional<uint64_t>> replay_deepseek2_legacy_offload(const ModelSpec& spec, const LlamaCppContext& context,
                                                                const LlamaCppSettings& settings,
                                                                const std::vector<int>& device_of_layer,
                                                                const WeightHomes& homes, int offload_gpu,
                                                                int device);
// The GGUF name of block `layer`'s tensor `kind` ("attn_q"):
// blk.<layer>.<kind>.<suffix>.
std::string block_tensor(int layer, std::string_view kind, std::string_view suffix = "weight");
// llamacpp/graph/gemma3.cc: Gemma 3 over its two caches (sliding window
// and full attention).
Result<std::optional<uint64_t>> replay_gemma3(const ModelSpec& spec, const LlamaCppContext& context,
                                              const LlamaCppSettings& settings);
// llamacpp/graph/mla.cc: deepseek2 files run with MLA (DeepSeek V2/V3,
// Kimi K2 as llama.cpp converts them), as `facts` (the file's) describe.
Result<std::optional<uint64_t>> replay_mla(const ModelSpec& spec, const FileFacts& facts,
                                           const LlamaCppContext& context,
                                           const LlamaCppSettings& settings);
// llamacpp/graph/recurrent.cc: Mamba-2 (mamba2) and Granite 4.0 H
// (granitehybrid with a dense FFN) over the recurrent state; `facts` say
// whether the attention layers rope.
Result<std::optional<uint64_t>> replay_recurrent(const ModelSpec& spec, const FileFacts& facts,
                                                 const LlamaCppContext& context,
                                                 const LlamaCppSettings& settings);

}  // namespace memfit::llamacpp::graph

#endif  // MEMFIT_ENGINES_LLAMACPP_GRAPH_BUILDERS_H_
