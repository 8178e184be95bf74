// Ollama from v0.30.0 starts llama.cpp's llama-server for every GGUF model
// (llm/llama_server.go): its flags over the llama.cpp settings, and the
// layers llama.cpp's --fit gives it when num_gpu does not. Private to the
// library.
#ifndef MEMFIT_ENGINES_OLLAMA_LLAMA_SERVER_H_
#define MEMFIT_ENGINES_OLLAMA_LLAMA_SERVER_H_

#include "engines/ollama/settings.h"
#include "memfit/memory_budget.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::ollama {

// Sets `s` as llama-server starts with Ollama's flags for the decisions
// `d` (runner kLlamaServer): -c, -np, -b/-ub, the cache types,
// --flash-attn, --embedding, the release's build, the server's output
// rows and the --fit target as the GPU margin; not the host's prompt
// cache (a cap filled by use, not the load's). The placement is left to
// the caller.
Status apply_llama_server(const ModelSpec& spec, const OllamaDecisions& d, LlamaCppSettings& s);

// llama.cpp's --fit over `s`'s GPUs (each its free memory less
// kFitTargetBytes): sets -ngl, -ts and the tensor overrides in
// s.placement and the layers per GPU in `d` (gpu_layers, layers_per_gpu,
// overflowing_per_gpu, fit_placed). Each try is estimate_llamacpp's; its
// error is returned.
Status fit_layers(const Model& model, const MemoryBudget& budget, LlamaCppSettings& s, OllamaDecisions& d);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_LLAMA_SERVER_H_
