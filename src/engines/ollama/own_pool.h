// The GPU backend's pool that Ollama's own engine counts in a GPU's
// "compute graph" record (v0.12.4 on: Ollama's ggml-No-alloc-mode patch,
// ggml_backend_sched_get_attempted_buffer_size adding the backend's
// buffer_size), for a model and Ollama's decisions: the part of gpu_pool.h's
// rules that reads the model's tensor types and the GPU. Both the record
// (profile.cc, price_own_engine_graph) and the scheduler's graph (plan.cc:
// llm/server.go createLayout reserves memory.GPUs[j].Graph, the same
// figure, before it places layers) add it. Private to the ollama profile.
#ifndef MEMFIT_ENGINES_OLLAMA_OWN_POOL_H_
#define MEMFIT_ENGINES_OLLAMA_OWN_POOL_H_

#include <cstdint>
#include <string_view>

#include "engines/ollama/engine_graph.h"
#include "engines/ollama/settings.h"
#include "memfit/ggml_types.h"
#include "memfit/model.h"

namespace memfit::ollama {

// Whether ggml-cuda multiplies a matrix of type `t` with MMQ on Turing and
// later (mmq.cu ggml_cuda_should_use_mmq, Ollama v0.12.4 to v0.24.0: these
// types, then turing_mma_available). Any other (IQ1_M, the ternary types,
// the float ones) takes cuBLAS on an F16 copy of the weight, a pool
// request gpu_pool.h's CUDA rule does not replay.
bool takes_mmq(GgmlType t);

// Whether every matrix (two or more dims) of the model's file is of a type
// MMQ takes: the GGUF's tensor infos, or the tensors of the GGUF memfit
// rebuilt (typed by ggml's names); false without either.
bool matrices_take_mmq(const Model& model);

// The pool (bytes) the record of GPU `device` ("cuda:0", "rocm:1", as the
// placement names it) adds to the own engine's graph of `run` where memfit
// replays it (docs/engine-ollama.md, "A CUDA or ROCm record adds the
// backend's pool"): RDNA3 (ROCm, gfx11xx, v0.12.4 to v0.13.2) and NVIDIA
// Turing or Ampere (compute capability 7.5 to 8.8, v0.12.4 to v0.24.0),
// both by d.given.gpu_arch, with flash attention and every matrix
// quantized; 0 elsewhere (the host, another GPU or release, no arch).
uint64_t own_engine_gpu_pool_bytes(const Model& model, const OllamaDecisions& d, std::string_view device,
                                   const EngineGraphRun& run);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_OWN_POOL_H_
