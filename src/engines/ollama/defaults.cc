// Ollama's defaults for one load, as the pinned v0.24.0 (or the release
// asked, releases.h) decides them before its scheduler places the layers
// (docs/engine-ollama.md, "Defaults" and "Releases", name each source file).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "engines/ollama/settings.h"
#include "engines/shared/trained_context.h"
#include "memfit/checked_math.h"
#include "memfit/gguf.h"

namespace memfit::ollama {
namespace {

// server/sched.go, load: the families served one sequence at a time.
constexpr std::array<std::string_view, 11> kOneSequenceFamilies = {
    "mllama", "qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe", "qwen3next", "lfm2", "lfm2moe",
    "nemotron_h", "nemotron_h_moe", "nemotron_h_omni"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// A GGUF whose metadata has "<arch>.pooling_type": an embedding model.
bool is_embedding(const Model& model) {
  return model.gguf && model.gguf->find(model.spec.model_type + ".pooling_type") != nullptr;
}

// fs/ggml GGML.SupportsFlashAttention: not for embedding models, gemma2 or
// grok; otherwise when K and V heads have one width (every attention
// layer's elements split evenly is what memfit's spec keeps).
bool supports_flash_attention(const Model& model) {
  const std::string& arch = model.spec.model_type;
  if (is_embedding(model)) return false;
  if (arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next") return true;
  if (arch == "gemma2" || arch == "grok") return false;
  if (!model.gguf) return true;
  const GgufValue* k = model.gguf->find(arch + ".attention.key_length");
  const GgufValue* v = model.gguf->find(arch + ".attention.value_length");
  if (k == nullptr || v == nullptr) return true;  // both default to the head width
  Result<uint64_t> kw = model.gguf->get_uint64(arch + ".attention.key_length");
  Result<uint64_t> vw = model.gguf->get_uint64(arch + ".attention.value_length");
  return kw && vw && *kw != 0 && *kw == *vw;
}

// The flash attention and KV type llm/server.go NewLlamaServer passes:
// unset, the release's list decides (GGML.FlashAttention: none before
// v0.12.4), and llama.cpp's runner from v0.13.5 leaves it to llama.cpp.
void decide_attention(const Model& model, OllamaDecisions& d) {
  const std::string_view arch = ollama_architecture(model.spec.model_type);
  bool fa = d.given.flash_attention.value_or(flash_attention_by_default(arch, d.release));
  if (fa && !supports_flash_attention(model)) fa = false;
  // every CUDA, ROCm and Metal GPU memfit prices supports it
  const GgmlType asked = d.given.kv_cache_type.value_or(GgmlType::kF16);
  const bool quantized = asked != GgmlType::kF16;
  if (d.runner == OllamaRunner::kLlama && llama_runner_flash_attention_auto(d.release)) {
    // llamarunner: unset is llama.cpp's auto; a quantized cache needs it on.
    d.flash_attn = !d.given.flash_attention ? FlashAttn::kAuto : fa ? FlashAttn::kOn : FlashAttn::kOff;
    if (quantized && d.flash_attn != FlashAttn::kOn) {
      d.kv_type_note = "OLLAMA_FLASH_ATTENTION must be enabled to use a quantized OLLAMA_KV_CACHE_TYPE";
      return;
    }
  } else {
    d.flash_attn = fa ? FlashAttn::kOn : FlashAttn::kOff;
    if (quantized && !fa) {
      d.kv_type_note = "quantized kv cache requested but flash attention disabled";
      return;
    }
  }
  d.kv_type = asked;
}

// llm/llama_server.go (v0.30.0 to v0.32.15): the flags Ollama passes
// llama-server. --flash-attn on|off when OLLAMA_FLASH_ATTENTION is set,
// else auto (off on a GPU ml.FlashAttentionSupported refuses: CUDA below
// compute 6.0 or 7.2, which memfit's GPUs are not); --cache-type-k/-v
// OLLAMA_KV_CACHE_TYPE as given (llama.cpp decides what a quantized V
// needs); -b/-ub num_batch: the request's, an embedding model's
// min(2048, num_ctx) x ... (DefaultEmbeddingNumBatchForContext, at most
// the cells: embeddingBatchSize), else server/sched.go's automatic batch
// (releases.h); --load-mode none for use_mmap false (mmap otherwise).
void decide_llama_server(const Model& model, const std::vector<SchedulerGpu>& gpus, OllamaDecisions& d) {
  const OllamaRequest& g = d.given;
  d.flash_attn = !g.flash_attention ? FlashAttn::kAuto : *g.flash_attention ? FlashAttn::kOn : FlashAttn::kOff;
  d.kv_type = g.kv_cache_type.value_or(GgmlType::kF16);
  d.mmap = g.use_mmap.value_or(true);
  const uint64_t cells = (CheckedBytes(d.context.num_ctx) * d.parallel).saturated();
  const ModelGeometry& geo = model.spec.geometry;
  const uint64_t file_bytes = model.gguf ? model.gguf->file_bytes : model.weights.bytes;
  const uint64_t predicted =
      predicted_server_bytes(file_bytes, model.spec.layers.size(), geo.kv_heads, geo.hidden, geo.heads, cells);
  // server/sched.go selectLlamaServerPlacement: with several GPUs, no
  // num_gpu 0 and OLLAMA_SCHED_SPREAD unset, the GPU with the most free
  // memory of those whose 80 % holds the prediction runs it alone
  // (--main-gpu 0 over that GPU); else every GPU (one library's).
  d.single_gpu.reset();
  if (gpus.size() > 1 && g.num_gpu.value_or(1) != 0 && !g.sched_spread && predicted > 0) {
    for (size_t i = 0; i < gpus.size(); ++i) {
      if (predicted > (CheckedBytes(gpus[i].free_bytes) * 80).saturated() / 100) continue;
      if (!d.single_gpu || gpus[i].free_bytes > gpus[*d.single_gpu].free_bytes) d.single_gpu = i;
    }
  }
  if (g.num_batch) {
    d.num_batch = std::max<uint64_t>(*g.num_batch, 1);
  } else if (d.embedding) {
    d.num_batch = std::min<uint64_t>({2048, d.context.num_ctx, cells});
  } else {
    AutoBatchInputs in;
    in.cells = cells;
    in.predicted_bytes = predicted;
    for (size_t i = 0; i < gpus.size(); ++i) {
      if (d.single_gpu && i != *d.single_gpu) continue;
      const SchedulerGpu& gpu = gpus[i];
      in.available_bytes = (CheckedBytes(in.available_bytes) + gpu.free_bytes).saturated();
      if (gpu.device.starts_with("cuda")) {
        in.cuda = true;
        in.small_cuda = in.small_cuda || std::min(gpu.free_bytes, gpu.total_bytes) <= (uint64_t{8} << 30);
      }
    }
    in.flash_attention_off = d.flash_attn == FlashAttn::kOff;
    d.num_batch = automatic_generation_batch(in);
  }
}

}  // namespace

std::string_view to_string(OllamaRunner runner) {
  switch (runner) {
    case OllamaRunner::kLlama:
      return "llama.cpp";
    case OllamaRunner::kOllama:
      return "ollama";
    case OllamaRunner::kLlamaServer:
      return "llama-server";
  }
  return "llama.cpp";
}

OllamaRunner runner_for(std::string_view architecture, const OllamaRelease& release) {
  if (starts_llama_server(release)) return OllamaRunner::kLlamaServer;
  return ollama_engine_required(architecture, release) ? OllamaRunner::kOllama : OllamaRunner::kLlama;
}

ContextChoice choose_context(const OllamaRequest& given, const std::vector<SchedulerGpu>& gpus,
                             uint64_t trained_tokens) {
  ContextChoice c;
  for (const SchedulerGpu& g : gpus) {
    // Go's unsigned subtraction wraps; an overhead past a GPU's total
    // counts that GPU as nothing here.
    c.total_vram_bytes = (CheckedBytes(c.total_vram_bytes) +
                          (g.total_bytes > given.gpu_overhead_bytes ? g.total_bytes - given.gpu_overhead_bytes : 0))
                             .saturated();
  }
  if (given.num_ctx) {
    c.num_ctx = *given.num_ctx;
    c.source = "num_ctx";
  } else if (given.context_length) {
    c.num_ctx = *given.context_length;
    c.source = "OLLAMA_CONTEXT_LENGTH";
  } else if (const std::optional<uint64_t> fixed = default_context(given.release.value_or(kNewestRelease))) {
    c.num_ctx = *fixed;
    c.source = "the release's default";
  } else {
    c.num_ctx = c.total_vram_bytes >= kLargeTierBytes    ? 262144
                : c.total_vram_bytes >= kMiddleTierBytes ? 32768
                                                         : 4096;
    c.source = "the VRAM tier";
  }
  c.num_ctx = std::max(c.num_ctx, kMinNumCtx);
  if (trained_tokens > 0 && c.num_ctx > trained_tokens) {
    c.num_ctx = trained_tokens;
    c.trained_tokens = trained_tokens;
  }
  return c;
}

OllamaDecisions decide_defaults(const OllamaRequest& given, const Model& model,
                                const std::vector<SchedulerGpu>& gpus) {
  OllamaDecisions d;
  d.given = given;
  d.release = given.release.value_or(kNewestRelease);
  // A config's model_type read as the GGUF architecture Ollama lists.
  const std::string_view arch = ollama_architecture(model.spec.model_type);
  d.runner = runner_for(arch, d.release);
  d.context = choose_context(given, gpus, declared_context(model.spec).tokens);
  // The release's floor for this family (releases.h, context_floor), over
  // any num_ctx, then the trained context's clamp again.
  if (const std::optional<uint64_t> floor = context_floor(arch, d.release, d.context.total_vram_bytes);
      floor && d.context.num_ctx < *floor) {
    const uint64_t trained = declared_context(model.spec).tokens;
    d.context.num_ctx = trained > 0 ? std::min(*floor, trained) : *floor;
    d.context.source = "the release's floor for the family";
  }
  d.parallel = std::max<uint64_t>(given.num_parallel.value_or(default_parallel(d.release)), 1);
  if (d.parallel > 1 && !reads_num_parallel(d.release)) {
    d.parallel = 1;
    d.parallel_unread = true;
  }
  if (d.parallel > 1 && (is_embedding(model) || listed(kOneSequenceFamilies, arch))) {
    d.parallel = 1;
    d.parallel_forced_one = true;
  }
  d.embedding = is_embedding(model);
  if (d.runner == OllamaRunner::kLlamaServer) {
    decide_llama_server(model, gpus, d);
    d.total_layers = model.spec.layers.size() + 1;
    return d;
  }
  d.num_batch = std::min(given.num_batch.value_or(kDefaultNumBatch), d.context.num_ctx);
  decide_attention(model, d);
  // llamaServer.Load: no GPU, no mmap (the weights are read into memory);
  // a use_mmap the request gives wins.
  d.mmap = given.use_mmap.value_or(!gpus.empty());
  d.total_layers = model.spec.layers.size() + 1;
  return d;
}

}  // namespace memfit::ollama
