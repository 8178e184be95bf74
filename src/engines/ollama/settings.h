// What Ollama (the pinned v0.24.0, or the release asked: releases.h) decides for a model before llama.cpp's
// rules price it: its defaults (defaults.cc) and its scheduler's layers
// per GPU (scheduler.cc). Each rule's source is in docs/engine-ollama.md.
// Private to the library.
#ifndef MEMFIT_ENGINES_OLLAMA_SETTINGS_H_
#define MEMFIT_ENGINES_OLLAMA_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/ollama/releases.h"
#include "memfit/ggml_types.h"
#include "memfit/llamacpp.h"
#include "memfit/model.h"
#include "memfit/result.h"

namespace memfit::ollama {

// The request's Ollama fields as given; nullopt: not given.
struct OllamaRequest {
  std::optional<uint64_t> num_ctx;         // Modelfile/API num_ctx, tokens per sequence
  std::optional<uint64_t> num_gpu;         // num_gpu: layers offloaded (blocks + output)
  std::optional<uint64_t> num_batch;       // num_batch
  std::optional<uint64_t> num_parallel;    // OLLAMA_NUM_PARALLEL
  std::optional<uint64_t> context_length;  // OLLAMA_CONTEXT_LENGTH
  std::optional<bool> flash_attention;     // OLLAMA_FLASH_ATTENTION
  std::optional<GgmlType> kv_cache_type;   // OLLAMA_KV_CACHE_TYPE: f16, q8_0, q4_0
  uint64_t gpu_overhead_bytes = 0;         // OLLAMA_GPU_OVERHEAD
  bool sched_spread = false;               // OLLAMA_SCHED_SPREAD
  // Each GPU's free memory as Ollama's discovery reads it (check-log's
  // GPUs, another machine's); nullopt: the machine's or this host's.
  std::optional<std::vector<LlamaCppGpu>> gpus_free;
  // --ollama-version: the release whose rules decide (releases.h);
  // nullopt: the pinned v0.24.0.
  std::optional<OllamaRelease> release;
  // use_mmap (request or Modelfile option); nullopt: the server decides.
  std::optional<bool> use_mmap;
  // The GPUs' architecture as Ollama's discovery prints it (its
  // "inference compute" line's compute=: "gfx1102", "8.6"); nullopt: not
  // known. An RDNA3 GPU's own-engine graph adds its products' pool.
  std::optional<std::string> gpu_arch;
  // The machine's GPUs as resolved (profile.cc): plan_load starts from
  // them, since a llama-server load may narrow the request's list to one
  // GPU and fit's tries reuse that request. Empty: the request's list.
  std::vector<LlamaCppGpu> machine_gpus;
};

// The defaults of api.DefaultOptions() and envconfig.
inline constexpr uint64_t kDefaultNumBatch = 512;
inline constexpr uint64_t kMinNumCtx = 4;  // Scheduler.GetRunner's floor
// ml.DeviceInfo.MinimumMemory(): what the scheduler leaves free on a GPU.
inline constexpr uint64_t kMinimumMemoryBytes = 457ull << 20;
inline constexpr uint64_t kMetalMinimumMemoryBytes = 512ull << 20;
// The VRAM tiers of the default context (server/routes.go, Serve): total
// VRAM less OLLAMA_GPU_OVERHEAD per GPU, at least 47 GiB -> 262144 tokens,
// at least 23 GiB -> 32768, else 4096.
inline constexpr uint64_t kLargeTierBytes = 47ull << 30;
inline constexpr uint64_t kMiddleTierBytes = 23ull << 30;

// Which runner loads the model: llama.cpp's (llamarunner) or Ollama's own
// Go engine (ollamarunner), for the architectures that require it.
// kLlamaServer: llama.cpp's llama-server, which releases from v0.30.0
// start for every GGUF model (llm/llama_server.go).
enum class OllamaRunner { kLlama, kOllama, kLlamaServer };
std::string_view to_string(OllamaRunner runner);  // "llama.cpp", "ollama", "llama-server"

// llama.cpp's --fit target: the memory it leaves free on each device
// (common/common.h fit_params_target, 1024 MiB a device; Ollama passes
// LLAMA_ARG_FIT_TARGET only for a projector it offloads).
inline constexpr uint64_t kFitTargetBytes = uint64_t{1024} << 20;

// One GPU as the scheduler sees it, in the host's device order.
struct SchedulerGpu {
  std::string device;       // "cuda:0", as LlamaCppGpu::device
  uint64_t free_bytes = 0;  // free memory now (the probe) or as given
  uint64_t total_bytes = 0;
  bool metal = false;       // Apple's: MinimumMemory is 512 MiB
};

// The context Ollama picks (defaults.cc).
struct ContextChoice {
  uint64_t num_ctx = 0;
  std::string_view source;  // "num_ctx", "OLLAMA_CONTEXT_LENGTH", "the release's default", "the VRAM tier",
                            // "the release's floor for the family" (releases.h, context_floor)
  uint64_t total_vram_bytes = 0;  // sum over GPUs of total - overhead
  uint64_t trained_tokens = 0;    // the clamp, when it applied; else 0
};

// Everything Ollama decided for one load.
struct OllamaDecisions {
  OllamaRequest given;
  OllamaRelease release = kPinnedRelease;
  OllamaRunner runner = OllamaRunner::kLlama;
  ContextChoice context;
  uint64_t parallel = 1;
  bool parallel_forced_one = false;  // an architecture that takes one sequence
  bool parallel_unread = false;      // a release before OLLAMA_NUM_PARALLEL (v0.1.33)
  uint64_t num_batch = kDefaultNumBatch;
  FlashAttn flash_attn = FlashAttn::kAuto;
  GgmlType kv_type = GgmlType::kF16;
  std::string kv_type_note;  // why OLLAMA_KV_CACHE_TYPE was not applied; "" when it was
  bool mmap = true;
  // The scheduler (scheduler.cc): layers offloaded per GPU, device order.
  std::vector<uint64_t> layers_per_gpu;
  uint64_t gpu_layers = 0;
  uint64_t total_layers = 0;  // blocks + the output layer
  // Ollama's own estimate (what its "memory" log lines print), per GPU in
  // device order: weights and cache of its layers, its graph.
  std::vector<uint64_t> estimate_weights_bytes;
  std::vector<uint64_t> estimate_cache_bytes;
  std::vector<uint64_t> estimate_graph_bytes;
  uint64_t graph_partial_bytes = 0;
  uint64_t graph_full_bytes = 0;
  // llama-server (v0.30.0 on): the layers are llama.cpp's --fit choice
  // (plan.cc, fit_layers) unless num_gpu gave -ngl.
  bool fit_placed = false;
  // --fit's dense-only layers per GPU (a MoE model's experts on the host).
  std::vector<uint64_t> overflowing_per_gpu;
  bool embedding = false;  // an embedding model: llama-server's --embedding
  // The one GPU (index into the GPUs) llama-server runs on when Ollama
  // picks one (server/sched.go selectLlamaServerPlacement); nullopt: all.
  std::optional<size_t> single_gpu;
};

// The runner `release` loads `architecture` with
// (fs/ggml KV.OllamaEngineRequired).
OllamaRunner runner_for(std::string_view architecture, const OllamaRelease& release = kPinnedRelease);

// The context: num_ctx, else OLLAMA_CONTEXT_LENGTH, else the release's
// default (2048 or 4096 before v0.15.5), else the VRAM tier of
// `gpus`' total memory less the overhead per GPU; at least 4; at most the
// model's trained context (0: none declared).
ContextChoice choose_context(const OllamaRequest& given, const std::vector<SchedulerGpu>& gpus,
                             uint64_t trained_tokens);

// Every default but the placement, for `model` on `gpus`.
OllamaDecisions decide_defaults(const OllamaRequest& given, const Model& model,
                                const std::vector<SchedulerGpu>& gpus);

// The scheduler's input: each layer's bytes (blocks in order, then the
// output layer), the graph, and the buffer each GPU keeps for one layer.
struct LayerSizes {
  std::vector<uint64_t> layer_bytes;     // weights + cache, total_layers entries
  std::vector<uint64_t> weights_bytes;   // weights alone, same indices
  uint64_t first_layer_buffer_bytes = 0;  // blk.0 + its cache (llamarunner); 0 ollamarunner
  uint64_t graph_partial_bytes = 0;
  uint64_t graph_full_bytes = 0;
  // llama-server (v0.30.0 on): the layers are llama.cpp's --fit choice
  // (plan.cc, fit_layers) unless num_gpu gave -ngl.
  bool fit_placed = false;
  // --fit's dense-only layers per GPU (a MoE model's experts on the host).
  std::vector<uint64_t> overflowing_per_gpu;
  bool embedding = false;  // an embedding model: llama-server's --embedding
  // The one GPU (index into the GPUs) llama-server runs on when Ollama
  // picks one (server/sched.go selectLlamaServerPlacement); nullopt: all.
  std::optional<size_t> single_gpu;
};

// Ollama's estimate of the layers and graph for the llama.cpp runner
// (fs/ggml GGML.GraphSize and llamaServer.Load): cache per attention
// layer cells x (K + V elements) x bytes per element at the KV type
// (q8_0 1, q4_0 0.5, f16 2), a recurrent layer's state in f32, the
// graph by the architecture's formula; without a tensor list (a
// config-only model) the weights spread evenly (graph_size.cc).
Result<LayerSizes> llama_runner_sizes(const Model& model, const OllamaDecisions& d);

// The layers on each GPU (device order) that the scheduler's buildLayout
// gives, the graph reserved on each GPU it uses; sets d.layers_per_gpu,
// d.gpu_layers and Ollama's estimate per GPU.
void place_layers(const LayerSizes& sizes, const std::vector<SchedulerGpu>& gpus, OllamaDecisions& d);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_SETTINGS_H_
