// The compute graph Ollama's own engine reserves ("compute graph"
// device=... in its log), replayed with ggml-alloc's rules
// (engines/llamacpp/graph/ggml_graph.h) over the graph its Go code builds,
// for the families whose Forward memfit mirrors (docs/engine-ollama.md,
// "Ollama's own engine"). Private to the ollama profile.
//
// What the reservation is (ollama/ollama v0.24.0):
//  - runner/ollamarunner/runner.go reserveWorstCaseGraph: a batch of
//    num_batch tokens whose Outputs are `parallel` rows (one a sequence,
//    `ctx.Input().Empty(ml.DTypeI32, s.parallel)`), then a batch of one
//    token; ml/backend/ggml/ggml.go Reserve keeps each buffer's largest
//    (ggml_backend_sched_reserve, which only grows).
//  - The inputs (token ids, positions, Outputs, the F32 mask, the cache
//    slots) are made by Context.Input() in buffers of their own, counted
//    in no record; a device that reads one holds the scheduler's copy of
//    it (ggml-backend.cpp, ggml_backend_sched_split_graph: one copy, n_copies
//    1, placed at the split's start and freed after its last reader).
//  - kvcache/causal.go: the reserved batch attends over every cell
//    (curCellRange 0 to len(cells) - 1, padded to CachePadding), and
//    buildMask casts the F32 mask to F16 in the graph under flash
//    attention (CacheConfig's MaskDType), once for every layer.
//  - model/models/qwen3/model.go Forward: per layer the RMS norm, Q, K, V,
//    their norms and RoPE, nn.Attention (cache.Put's set_rows, flash
//    attention or scores and softmax), the output projection; in the last
//    layer the hidden rows and the residual of the Outputs alone
//    (`Rows(ctx, batch.Outputs)`); the FFN (SwiGLU, or the routed experts);
//    the output norm and the logits over the Outputs.
#ifndef MEMFIT_ENGINES_OLLAMA_ENGINE_GRAPH_H_
#define MEMFIT_ENGINES_OLLAMA_ENGINE_GRAPH_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "engines/ollama/gpu_pool.h"

#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::ollama {

// One reservation as the own engine makes it, on the device that runs
// every block.
struct EngineGraphRun {
  uint64_t num_batch = 0;   // the prompt batch's tokens (the load request's BatchSize)
  uint64_t parallel = 1;    // its Outputs: one row a sequence
  uint64_t cells = 0;       // the cache's cells, padded (every sequence's)
  uint64_t context = 0;     // the load request's KvSize: num_ctx x parallel
  uint64_t padding = 256;   // the cache's CachePadding (cells)
  bool flash_attention = true;
  // The mask an F32 input cast in the graph (from v0.12.7), else an input
  // of the mask's type (releases.h, own_engine_reserve_casts_mask).
  bool mask_cast = true;
  bool on_gpu = true;          // false: the host runs the blocks (a CPU-only run)
  bool output_layer = true;    // the output norm and the logits run there too
};

// Whether memfit mirrors `spec`'s Forward (qwen3, qwen3moe with every
// layer full attention; BERT; gpt-oss, its even layers windowed):
// engine_graph_bytes prices it.
bool mirrors_engine_graph(const ModelSpec& spec);

// The bytes of that device's "compute graph" record: the larger of the
// prompt's and the one-token graph's replays: ggml-alloc's buffer, the
// whole record on the host (and on Metal, whose backend adds nothing);
// a CUDA or ROCm device's record adds its pool of kernel temporaries
// (below), not in this figure (the profile adds RDNA3's from
// engine_graph_products, gpu_pool.h). nullopt for a model whose graph is not mirrored
// (memfit then keeps llama.cpp's phases, modelled).
//
// llama/patches/0020-ggml-No-alloc-mode.patch (v0.24.0; 0022 at v0.12.6): Ollama's
// ggml_backend_sched_get_attempted_buffer_size returns ggml-alloc's size
// plus the backend's buffer_size, which ggml-cuda (and HIP) implement as
// the high-water mark of its memory pools during a dry run of the graph
// (ggml_backend_cuda_graph_reserve): the temporaries its kernels take
// (quantized activations for the matrix products, flash attention's
// partial results), from v0.12.4 (releases.h,
// own_engine_graph_holds_gpu_pool).
Result<std::optional<uint64_t>> engine_graph_bytes(const ModelSpec& spec, const EngineGraphRun& run);

// The weight products of the graphs engine_graph_bytes replays for a
// dense qwen3 (the prompt batch's, then the one token's), in the order the
// backend runs them (the graph's node order): what a GPU's pool of kernel
// temporaries is asked for (gpu_pool.h). Every product's `quantized` is
// `weights_quantized` (the caller knows the file's types). nullopt for any
// other family (a routed expert's product takes another path) or a run
// the replay does not price.
std::optional<std::vector<WeightProduct>> engine_graph_products(const ModelSpec& spec, const EngineGraphRun& run,
                                                                bool weights_quantized);

// The flash attention node of the prompt batch's graph (num_batch tokens
// over every cell; each layer's the same) for a qwen3 or qwen3moe whose
// graph engine_graph_bytes replays under flash attention: what ggml-cuda's
// attention kernel asks its pool for (gpu_pool.h). nullopt otherwise.
std::optional<FlashAttentionNode> engine_graph_attention(const ModelSpec& spec, const EngineGraphRun& run);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_ENGINE_GRAPH_H_
