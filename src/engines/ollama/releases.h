// --ollama-version: which Ollama release's rules decide a load, and those
// rules where releases differ (docs/engine-ollama.md, "Releases", names
// the tag and file of each). Private to the library.
#ifndef MEMFIT_ENGINES_OLLAMA_RELEASES_H_
#define MEMFIT_ENGINES_OLLAMA_RELEASES_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "memfit/engine.h"
#include "memfit/result.h"

namespace memfit::ollama {

// A release tag vMAJOR.MINOR.PATCH.
struct OllamaRelease {
  uint64_t major = 0, minor = 0, patch = 0;
  auto operator<=>(const OllamaRelease&) const = default;
};

// The last release whose own runners and scheduler load a GGUF model
// (llama.cpp's runner or Ollama's own engine): the rules of its scheduler,
// graph and caches are v0.24.0's wherever older releases name no rule of
// their own.
inline constexpr OllamaRelease kPinnedRelease{0, 24, 0};
// The first release that starts llama.cpp's llama-server itself for every
// GGUF model ("runner: Remove CGO engines, use llama-server exclusively for
// GGML models", #16031): llm/llama_server.go's flags, llama.cpp's --fit
// placing the layers. v0.24.0 was followed by v0.30.0 (no tag between).
inline constexpr OllamaRelease kFirstLlamaServerRelease{0, 30, 0};
// The newest release read, the default (docs/engine-ollama.md, "Releases").
inline constexpr OllamaRelease kNewestRelease{0, 32, 15};
// The oldest release read: v0.1.0 (the 0.0.x releases ran llama.cpp's
// server binary with rules of their own).
inline constexpr OllamaRelease kOldestRelease{0, 1, 0};

// "0.5.7" or "v0.32.15" (a "-rc1" suffix read as its release): kUsage
// naming ollama_version outside v0.1.0 to v0.24.0 and v0.30.0 to v0.32.15,
// or not a tag.
Result<OllamaRelease> parse_ollama_release(std::string_view text);
std::string to_string(const OllamaRelease& release);  // "v0.5.7"

// The llama.cpp build whose rules price the llama.cpp runner of `release`
// (its vendored llama.cpp): every release memfit reads vendors a build
// before #18898 (b7108 stands for v0.13.2 on). Each is a build on the same
// side of every rule of --llamacpp-version as the vendored commit
// (releases.cc says which). Optional for callers that price the pinned
// rules.
std::optional<uint64_t> vendored_llamacpp_build(const OllamaRelease& release);

// The llama.cpp build of the llama-server a release from v0.30.0 starts
// in place of its own runners (llm/llama_server.go): its LLAMA_CPP_VERSION
// file, for a release tag ("0.30.10", "v0.32.5") v0.30.0 to v0.32.15;
// nullopt for an older release, one not read, or text that is no tag.
std::optional<uint64_t> llama_server_build(std::string_view version);

// The release starts llama-server (from v0.30.0) in place of its runners.
bool starts_llama_server(const OllamaRelease& release);

// num_batch when neither the request nor the Modelfile gives one, for a
// generation model under llama-server (server/sched.go,
// automaticGenerationBatch, v0.30.0 to v0.32.15): with flash attention
// off on a CUDA GPU, 256 past 4096 cells on a CUDA GPU of at most 8 GiB,
// else 512; otherwise 2048 past 32768 cells, 1024 past 4096, else 512,
// each lowered (2048 -> 1024 -> 512) while Ollama's prediction
// (`predicted_bytes`, llm.PredictServerVRAM) is past 80 % of the GPUs'
// free memory, past 60 % (2048) or 75 % (1024) of it, or leaves less than
// the batch's surcharge (2 GiB, 768 MiB) under the 80 %.
struct AutoBatchInputs {
  uint64_t cells = 0;            // num_ctx (at most the trained context) x parallel
  uint64_t predicted_bytes = 0;  // the file's bytes + its f16 cache (predicted_server_bytes)
  uint64_t available_bytes = 0;  // the GPUs' free memory, summed
  bool flash_attention_off = false;
  bool cuda = false;                 // a CUDA GPU among them
  bool small_cuda = false;           // a CUDA GPU of at most 8 GiB
};
uint64_t automatic_generation_batch(const AutoBatchInputs& in);

// llm.PredictServerVRAM (v0.30.0 to v0.32.15): the model file's bytes and
// 2 (K, V) x blocks x the fewest KV heads x (n_embd / the most heads) x
// `cells` x 2 bytes; saturating.
uint64_t predicted_server_bytes(uint64_t file_bytes, uint64_t blocks, uint64_t kv_heads_min,
                                uint64_t embedding, uint64_t heads_max, uint64_t cells);

// The GGUF architecture Ollama's lists name for a model's type: a GGUF's
// general.architecture as it is; a config.json's model_type as Ollama's
// converter writes it (convert/convert_*.go: "qwen3_moe" -> "qwen3moe",
// "gpt_oss" -> "gptoss", "gemma3_text" -> "gemma3", "deepseek_v3" ->
// "deepseek2", "nomic_bert" -> "nomic-bert", ...); any other name as it is.
std::string_view ollama_architecture(std::string_view model_type);

// Ollama's own engine loads `architecture` in `release`
// (fs/ggml KV.OllamaEngineRequired, from v0.6.0).
bool ollama_engine_required(std::string_view architecture, const OllamaRelease& release);

// The cells Ollama's own engine pads its cache to (ml/backend/ggml
// CacheConfig's CachePadding): 256 with flash attention; 32 without it
// before v0.13.2 ("ggml: Always set cache padding to 256", 7837a5bc7),
// 256 after.
uint64_t own_engine_cache_padding(const OllamaRelease& release, bool flash_attention);

// Whether the own engine's reserved graph builds its mask as the other
// batches do, an F32 input cast in the graph to the backend's mask type,
// from v0.12.7 ("kvcache: Remove special case for reservation mask",
// 1c093e97a: the reservation had taken an empty input of the mask type,
// which "can also skip a cast operation"); before, that input alone.
bool own_engine_reserve_casts_mask(const OllamaRelease& release);

// Whether the own engine's "compute graph" record on an RDNA3 GPU (ROCm,
// gfx11xx) holds the pool of its matrix products' F16 copies
// (gpu_pool.h, rdna3_product_pool_bytes): from v0.12.4, whose patched
// ggml counts the GPU backend's pool in the record ("ggml: Preallocate
// CUDA pool memory", 3d0b1734c), to v0.13.2, the last whose ggml runs
// RDNA3's products over 64 or more tokens through hipBLAS
// (ggml_cuda_should_use_mmq; v0.13.3's ggml takes MMQ there).
bool own_engine_rdna3_product_pool(const OllamaRelease& release);

// Whether the own engine's "compute graph" record on a CUDA or ROCm GPU
// holds the backend's pool beside ggml-alloc's buffer: from v0.12.4
// (3d0b1734c, above); before, ggml-alloc's buffer alone.
bool own_engine_graph_holds_gpu_pool(const OllamaRelease& release);

// Whether memfit replays the pool of an NVIDIA Turing or Ampere GPU's
// own-engine record (gpu_pool.h, mma_flash_attention_pool_bytes): from
// v0.12.4 (above) to v0.24.0, whose vendored ggml-cuda was read (v0.12.4,
// v0.13.0, v0.14.0, v0.17.1, v0.24.0 and v0.25.0-rc0: the same flash
// attention kernel choice and dst_tmp_meta size in each); from v0.30.0
// the GGML models run on llama-server.
bool own_engine_cuda_mma_pool(const OllamaRelease& release);

// OLLAMA_FLASH_ATTENTION's default for `architecture` in `release`
// (fs/ggml GGML.FlashAttention, from v0.12.4; off before).
bool flash_attention_by_default(std::string_view architecture, const OllamaRelease& release);

// llama.cpp's runner decides flash attention itself (auto) when
// OLLAMA_FLASH_ATTENTION is unset: from v0.13.5; before, on or off.
bool llama_runner_flash_attention_auto(const OllamaRelease& release);

// num_ctx when neither the request nor OLLAMA_CONTEXT_LENGTH gives one:
// 2048 before v0.6.7, 4096 to v0.15.4 (api.DefaultOptions, envconfig
// ContextLength); nullopt from v0.15.5, the VRAM tier (server/routes.go).
std::optional<uint64_t> default_context(const OllamaRelease& release);

// The context floor `release` puts under `architecture`'s num_ctx, the
// Modelfile's and the request's too (server/routes.go scheduleRunner:
// opts.NumCtx = max(opts.NumCtx, 8192)), given the GPUs' total memory less
// OLLAMA_GPU_OVERHEAD each: 8192 for gptoss from v0.11.0 ("This model
// requires a minimum context"); from v0.11.4 only when that total is at
// least 20 GiB (lowVRAMThreshold, "server: Reduce gpt-oss context length
// for small VRAM GPUs", f2e9c9aff); gpt-oss (llama.cpp's converter's
// name) from v0.11.5, qwen3vl and qwen3vlmoe from v0.12.7; none from
// v0.15.5, whose VRAM tier replaced it ("server: use tiered VRAM-based
// default context length", 0334ffa62). nullopt: no floor.
std::optional<uint64_t> context_floor(std::string_view architecture, const OllamaRelease& release,
                                      uint64_t total_vram_bytes);

// llama.cpp's runner got its layers from llm/memory.go's
// EstimateGPULayers (before v0.12.11), not the scheduler memfit replays
// (llm/server.go createLayout, v0.24.0's).
bool memory_go_places_layers(const OllamaRelease& release);

// OLLAMA_NUM_PARALLEL is read (server/sched.go, llm/server.go): from
// v0.1.33; before, one sequence whatever it says.
bool reads_num_parallel(const OllamaRelease& release);

// OLLAMA_NUM_PARALLEL unset: 1 before v0.2.0, 4 to v0.6.8, 2 to v0.9.6,
// 1 from v0.10.0 (server/sched.go defaultParallel, envconfig).
uint64_t default_parallel(const OllamaRelease& release);

// The runner's llama.cpp batch (llama/llama.go NewContextParams): from
// v0.13.3 n_batch = num_batch x parallel and n_ubatch = num_batch; from
// v0.4.0 n_batch = num_batch x parallel with llama.cpp's default ubatch
// (512, at most n_batch); before, the C++ server's --batch-size num_batch.
struct RunnerBatch {
  uint64_t n_batch = 0;
  uint64_t n_ubatch = 0;
};
RunnerBatch runner_batch(const OllamaRelease& release, uint64_t num_batch, uint64_t parallel);

// `memfit engines`' lines: the ranges whose rules differ, oldest first.
std::span<const ReleaseDifference> release_differences();

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_RELEASES_H_
