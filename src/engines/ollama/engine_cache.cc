// Ollama's own engine's cache (engine_cache.h): kvcache/causal.go's Init
// and each model's constructor under model/models, read at v0.24.0.
#include "engines/ollama/engine_cache.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "memfit/checked_math.h"

namespace memfit::ollama {
namespace {

// "gpt_oss", "gpt-oss" and "gptoss" alike: the config's model_type or
// the GGUF's general.architecture, lower case, letters and digits only.
std::string squeezed(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

// The models whose sliding-window cache keeps 4096 tokens a sequence:
// model/models/gptoss/model.go and gemma4/model.go construct
// kvcache.NewSWAMemCache(window, 4096, shift).
constexpr uint64_t kSwaMemCacheTokens = 4096;

bool keeps_swa_memory(std::string_view model_type) {
  const std::string name = squeezed(model_type);
  return name == "gptoss" || name == "gemma4" || name == "gemma4text";
}

}  // namespace

uint64_t own_engine_swa_memory(std::string_view model_type, uint64_t window_tokens, uint64_t parallel,
                               uint64_t capacity) {
  // NewSWAMemCache panics below the window; the memory is never smaller.
  uint64_t memory = keeps_swa_memory(model_type) ? std::max(kSwaMemCacheTokens, window_tokens) : window_tokens;
  // "allocate an extra token of storage ... only ... when we have parallel
  // sequences": max(swaMemorySize, swaWindowSize + 1).
  if (parallel > 1) memory = std::max(memory, window_tokens + 1);
  // A memory of `capacity` or more keeps every cell ("if
  // int(c.swaMemorySize) >= capacity { c.swaMemorySize = math.MaxInt32 }").
  return std::min(memory, capacity);
}

ModelSpec own_engine_cache_spec(const ModelSpec& spec, uint64_t parallel, uint64_t capacity) {
  ModelSpec out = spec;
  for (LayerCache& layer : out.layers) {
    if (layer.window_tokens == 0) continue;
    // A window of `capacity` leaves llama.cpp's min(n_ctx, n_seq x window
    // + n_ubatch) every cell, the layer's kind (and its graph) kept.
    if (layer.kind == LayerKind::kChunked) layer.window_tokens = capacity;
    if (layer.kind == LayerKind::kSlidingWindow) {
      layer.window_tokens = own_engine_swa_memory(spec.model_type, layer.window_tokens, parallel, capacity);
    }
  }
  return out;
}

uint64_t own_engine_host_graph_bytes(uint64_t hidden, uint64_t vocab, uint64_t num_batch, uint64_t parallel,
                                     bool output_on_host) {
  const uint64_t rows = (CheckedBytes(4) * hidden * num_batch).saturated();
  if (!output_on_host) return rows;
  const uint64_t outputs = (CheckedBytes(4) * parallel * (CheckedBytes(hidden) + vocab)).saturated();
  return std::max(rows, outputs);
}

uint64_t own_engine_recurrent_checkpoints(const OllamaRelease& release, std::string_view architecture) {
  if (release >= OllamaRelease{0, 17, 1}) return 24;
  if (release >= OllamaRelease{0, 15, 5} && architecture == "qwen3next") return 32;
  return 0;
}

}  // namespace memfit::ollama
