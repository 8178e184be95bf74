// The cache Ollama's own engine keeps (kvcache/causal.go, recurrent.go at v0.24.0), as
// the layers of a model the llama.cpp rules then price: one cache for
// every sequence, and each sliding-window layer's cells as Ollama sizes
// them (docs/engine-ollama.md, "Ollama's own engine"). Private to the
// library.
#ifndef MEMFIT_ENGINES_OLLAMA_ENGINE_CACHE_H_
#define MEMFIT_ENGINES_OLLAMA_ENGINE_CACHE_H_

#include <cstdint>
#include <string_view>

#include "engines/ollama/releases.h"
#include "memfit/model_spec.h"

namespace memfit::ollama {

// The tokens a sliding-window layer keeps a sequence (kvcache.Causal's
// swaMemorySize after Init): the model's memory size, gpt-oss's and
// Gemma 4's 4096 (model/models/gptoss and gemma4: NewSWAMemCache(window,
// 4096, ...)), every other model's its window (NewSWACache); at least
// window + 1 with more than one sequence (the stop token's cell); at most
// `capacity` (num_ctx, the cells of one sequence): a layer whose memory
// reaches it keeps every cell.
uint64_t own_engine_swa_memory(std::string_view model_type, uint64_t window_tokens, uint64_t parallel,
                               uint64_t capacity);

// `spec` with its windowed layers as the own engine caches them: a
// sliding-window layer's window_tokens become own_engine_swa_memory; a
// chunked layer (Llama 4) keeps every cell (NewChunkedAttentionCache
// leaves swaWindowSize unbounded): its window becomes `capacity`.
// With one cache for every sequence (kv_unified), llama.cpp's rule
// round_up(n_seq x window + n_ubatch, 256) is then Ollama's
// roundUp(maxSequences x swaMemorySize + maxBatch, CachePadding = 256).
ModelSpec own_engine_cache_spec(const ModelSpec& spec, uint64_t parallel, uint64_t capacity);

// The host's compute graph ("compute graph" device=CPU) of an own-engine
// run whose blocks are all on GPUs, in bytes: the token rows, the F32
// get_rows of token_embd (n_embd x num_batch x 4), which lives on the
// host ("inputs always use cpu", ml/backend/ggml/ggml.go New), and, with
// the output layer on the host too, at least its rows for `parallel`
// outputs (the reserved batch's Outputs: runner/ollamarunner/runner.go,
// reserveWorstCaseGraph), the final norm's and the logits (n_embd +
// n_vocab floats a row). The graph's inputs (token ids, positions, the
// mask) are not in it: Context.Input() allocates each in a buffer of its
// own, counted in no record (ggml.go newTensor, layer -1).
uint64_t own_engine_host_graph_bytes(uint64_t hidden, uint64_t vocab, uint64_t num_batch, uint64_t parallel,
                                     bool output_on_host);

// The recurrent-state checkpoints Ollama's own engine keeps a sequence
// (for prompt caching), each a copy of every recurrent layer's
// convolution and recurrent state in F32, all allocated when the worst-case
// graph is reserved (StartForward(reserve) -> reserveCheckpointConv /
// reserveCheckpointRecurrent for every slot's entries): from v0.17.1
// kvcache/recurrent.go's DefaultCheckpointCount, 24, for every model on
// kvcache.NewRecurrentCache (qwen3next, qwen35*, lfm2*, nemotron_h*);
// v0.15.5 to v0.17.0 model/models/qwen3next/checkpoints.go's
// checkpointCountDefault, 32, for qwen3next alone; none otherwise.
// `architecture` is the GGUF's (ollama_architecture).
uint64_t own_engine_recurrent_checkpoints(const OllamaRelease& release, std::string_view architecture);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_ENGINE_CACHE_H_
