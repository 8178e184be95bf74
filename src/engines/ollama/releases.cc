// Ollama's rules per release (releases.h), read in ollama/ollama's tags
// (docs/engine-ollama.md, "Releases"). Facts only; no code of Ollama's.
#include "engines/ollama/releases.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "memfit/checked_math.h"
#include "memfit/llamacpp.h"
#include "memfit/untrusted_text.h"

namespace memfit::ollama {
namespace {

constexpr OllamaRelease v(uint64_t major, uint64_t minor, uint64_t patch) { return {major, minor, patch}; }

// An architecture listed from `since` until before `until` (0.0.0: still).
struct ListedSince {
  std::string_view architecture;
  OllamaRelease since;
  OllamaRelease until{};
};

template <size_t N>
bool listed_in(const std::array<ListedSince, N>& list, std::string_view arch, const OllamaRelease& r) {
  return std::any_of(list.begin(), list.end(), [&](const ListedSince& e) {
    return e.architecture == arch && r >= e.since && (e.until == OllamaRelease{} || r < e.until);
  });
}

// fs/ggml/ggml.go KV.OllamaEngineRequired, each name from the first tag
// that lists it (qwen3 left the list in v0.12.5 and came back in v0.12.6).
constexpr std::array<ListedSince, 30> kOllamaEngine = {{
    {"gemma3", v(0, 6, 0)},        {"mistral3", v(0, 6, 5)},      {"llama4", v(0, 6, 7)},
    {"mllama", v(0, 7, 0)},        {"qwen25vl", v(0, 7, 0)},      {"gemma3n", v(0, 9, 3)},
    {"gptoss", v(0, 11, 0)},       {"gpt-oss", v(0, 11, 5)},      {"qwen3", v(0, 12, 0), v(0, 12, 5)},
    {"qwen3", v(0, 12, 6)},        {"qwen3moe", v(0, 12, 2)},     {"qwen3vl", v(0, 12, 7)},
    {"qwen3vlmoe", v(0, 12, 7)},   {"deepseekocr", v(0, 13, 0)},  {"deepseek2", v(0, 13, 0)},
    {"nomic-bert", v(0, 13, 1)},   {"olmo3", v(0, 13, 4)},        {"bert", v(0, 13, 5)},
    {"glm4moelite", v(0, 14, 3)},  {"lfm2", v(0, 14, 3)},         {"qwen3next", v(0, 15, 5)},
    {"glmocr", v(0, 15, 5)},       {"nemotron_h", v(0, 17, 1)},   {"nemotron_h_moe", v(0, 17, 1)},
    {"qwen35", v(0, 17, 1)},       {"qwen35moe", v(0, 17, 1)},    {"lfm2moe", v(0, 17, 1)},
    {"gemma4", v(0, 20, 0)},       {"laguna", v(0, 22, 0)},       {"nemotron_h_omni", v(0, 22, 0)},
}};

// fs/ggml/ggml.go GGML.FlashAttention (from v0.12.4), each name from the
// first tag that lists it.
constexpr std::array<ListedSince, 21> kFlashAttention = {{
    {"gptoss", v(0, 12, 4)},       {"gpt-oss", v(0, 12, 4)},       {"qwen3", v(0, 12, 4)},
    {"qwen3moe", v(0, 12, 4)},     {"gemma3", v(0, 12, 6)},        {"qwen3vl", v(0, 12, 8)},
    {"qwen3vlmoe", v(0, 12, 8)},   {"mistral3", v(0, 13, 2)},      {"olmo3", v(0, 13, 4)},
    {"bert", v(0, 13, 5)},         {"glm4moelite", v(0, 14, 3)},   {"lfm2", v(0, 14, 3)},
    {"glmocr", v(0, 15, 5)},       {"qwen3next", v(0, 15, 5)},     {"lfm2moe", v(0, 17, 1)},
    {"nemotron_h", v(0, 17, 1)},   {"nemotron_h_moe", v(0, 17, 1)}, {"qwen35", v(0, 17, 1)},
    {"qwen35moe", v(0, 17, 1)},    {"gemma4", v(0, 20, 4)},        {"nemotron_h_omni", v(0, 22, 0)},
}};

// The vendored llama.cpp (llm/llama.cpp's submodule to v0.3.14,
// llama/vendoring's LLAMACPP_BASE_COMMIT to v0.5.12, Makefile.sync's
// FETCH_HEAD after):
// - v0.1.30 and v0.1.31: ad3a050, "Bump llama.cpp to b2527"; older
//   releases vendor older builds: all before #6122 (b2537), and before
//   #6083's op offload (first seen in b2459, 2024-03-18): v0.1.28's log
//   (ollama-neosophia-mixtral-q4_0-partial-a4000) splits its graph 3 times
//   with 15 blocks on the host, and its host's compute buffer (188.03 MiB)
//   is those blocks' phases. v0.1.28 vendors c29af7e (llama.cpp of
//   2024-03-01, "llama : add StarCoder2 support (#5795)") and v0.1.29
//   ceca1ae (submodule update of 2024-03-11, Ollama #3064): both before
//   #6017 (b2413, 2024-03-13), so their runner keeps the graph's inputs
//   in a buffer of their own and runs n_batch tokens a graph.
// - v0.1.32 (7593639, April 2024) to v0.5.1: after b2537, before #10026
//   (b3990, 2024-10-31): the llm/llama.cpp submodule, then llama/vendoring's
//   LLAMACPP_BASE_COMMIT, is 3f1ae2e from v0.3.14 (Ollama #6760, 2024-10-17)
//   to v0.5.1, older before; Ollama #7875 (2024-12-10, v0.5.2) moved it to
//   40c6d79. Their llama.cpp gives every block past the first its own copy
//   of a duplicated tensor (Llama 3.1's rope_freqs). b3989 stands for them
//   all: no rule of --llamacpp-version falls between b2537 and b3990.
// - v0.5.2 to v0.11.4 (de4c07f, May 2025): after #10026, before #13194
//   (b5424): llama.h has no swa_full, llama-context.cpp no kv_unified.
// - v0.11.5 (e54d41b) to v0.13.1 (3cfa9c3, "ggml update to b6840"):
//   kv_unified = false by default (a stream per sequence) and
//   llama_kv_cache::get_padding 32 without flash attention.
// - v0.13.2 ("ggml update to b7108", 7f8ef50), v0.13.3 and v0.13.4
//   (17f7f4b), v0.13.5 to v0.24.0 (ec98e2002, Ollama #13451, 2025-12-17):
//   the pinned cache rules, but before #18898 (b7781 on): the reserved
//   graph has no vector-input `inp_embd` (llama-graph.cpp's build_inp_embd
//   makes it only for a batch of embeddings). b7108 stands for them all:
//   no rule of --llamacpp-version falls between it and ec98e2002 that an
//   Ollama run reads (#18148's output-first offload is not Ollama's).
constexpr uint64_t kBeforeOutputPerSeqBuild = 2527;
constexpr uint64_t kBeforeGraphInputsBuild = 2412;  // before #6017 (b2413), and so #6083
constexpr uint64_t kBeforeSharedDuplicatesBuild = 3989;  // before #10026 (b3990)
constexpr uint64_t kBeforeSwaWindowBuild = kLlamaCppSwaWindowBuild - 1;
constexpr uint64_t kPad32StreamsBuild = 6840;
constexpr uint64_t kBeforeVectorInputBuild = 7108;

// Oldest first, by the last release each covers.
constexpr ReleaseDifference kDifferences[] = {
    {"before v0.1.30", "its llama.cpp (before b2413) runs the host layers' ops on the host (no "
                       "op offload to the GPU) and keeps the graph's inputs in a buffer of their own"},
    {"before v0.1.32", "its llama.cpp (b2527 and older) keeps n_batch rows of logits"},
    {"before v0.1.33", "one sequence: OLLAMA_NUM_PARALLEL is not read (v0.1.33 read it first)"},
    {"before v0.4.0", "the C++ server's batch: n_batch = num_batch, ubatch at most 512"},
    {"before v0.5.2", "its llama.cpp (before b3990) gives every block past the first its own copy "
                      "of a duplicated tensor (Llama 3.1's rope_freqs)"},
    {"before v0.6.0", "llama.cpp's runner for every architecture"},
    {"before v0.6.7", "num_ctx 2048 unless given"},
    {"v0.2.0 to v0.6.8", "OLLAMA_NUM_PARALLEL unset is 4 sequences"},
    {"v0.7.0 to v0.9.6", "OLLAMA_NUM_PARALLEL unset is 2 sequences"},
    {"before v0.11.5", "its llama.cpp (before b5424) keeps one KV cache for every sequence "
                       "(kv_size = num_ctx x parallel, the attention over all of it) and a "
                       "sliding-window layer's cache the whole context"},
    {"before v0.12.4", "flash attention off unless OLLAMA_FLASH_ATTENTION is set"},
    {"before v0.12.7", "Ollama's own engine reserves its graph with the mask an input of the "
                       "mask's type, no cast in the graph (1c093e97a)"},
    {"before v0.13.2", "without flash attention its llama.cpp (b6840 and older) pads the "
                       "cells to 32"},
    {"before v0.12.11", "llama.cpp's runner gets the layers llm/memory.go's estimate places "
                        "(not replayed: memfit places them by v0.24.0's scheduler; give num_gpu)"},
    {"v0.4.0 to v0.13.2", "n_batch = num_batch x parallel, llama.cpp's ubatch 512"},
    {"v0.12.4 to v0.13.4", "OLLAMA_FLASH_ATTENTION unset: on for the architectures of "
                           "GGML.FlashAttention, off otherwise (llama.cpp's runner too)"},
    {"v0.6.7 to v0.15.4", "num_ctx 4096 unless given (the VRAM tier from v0.15.5)"},
    {"v0.6.0 to v0.23.4", "Ollama's own engine for fewer architectures, those its tag lists "
                          "(gemma3 from v0.6.0, qwen3 from v0.12.0, ...: KV.OllamaEngineRequired)"},
    {"before v0.30.0", "Ollama's own runners load the model (llama.cpp's runner at its vendored "
                       "build, n_batch num_batch x parallel, embeddings beside the logits, full-size "
                       "windows; or its own engine) and its scheduler places the layers; from v0.30.0 "
                       "llama-server at the release's LLAMA_CPP_VERSION, the layers by llama.cpp's --fit"},
    {"v0.30.0 to v0.32.14", "llama-server at an older LLAMA_CPP_VERSION build (b9452 at v0.30.0 to "
                            "b10434 at v0.32.14; v0.32.15's is b10488)"},
};

}  // namespace

namespace {

// "0.30.10", "v0.5.7", "0.6.0-rc1": its three numbers, each of at most
// four digits; nullopt when it is not such a tag.
std::optional<OllamaRelease> release_tag(std::string_view text) {
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) text = text.substr(0, dash);
  OllamaRelease r;
  uint64_t* parts[] = {&r.major, &r.minor, &r.patch};
  const char* at = text.data();
  const char* end = text.data() + text.size();
  for (size_t i = 0; i < 3; ++i) {
    if (i > 0) {
      if (at == end || *at != '.') return std::nullopt;
      ++at;
    }
    const auto [next, ec] = std::from_chars(at, end, *parts[i]);
    if (ec != std::errc() || next == at || next - at > 4) return std::nullopt;
    at = next;
  }
  if (at != end) return std::nullopt;
  return r;
}

}  // namespace

Result<OllamaRelease> parse_ollama_release(std::string_view text) {
  const std::optional<OllamaRelease> r = release_tag(text);
  auto refuse = [&](std::string_view why) -> Error {
    return Error::usage("ollama_version", fmt::format("{}: {}", quote_untrusted(text), why));
  };
  if (!r) return refuse("expected a release tag, e.g. 0.5.7 or v0.32.15");
  if (*r < kOldestRelease || *r > kNewestRelease || (*r > kPinnedRelease && *r < kFirstLlamaServerRelease)) {
    return refuse("releases v0.1.0 to v0.24.0 and v0.30.0 to v0.32.15 are read (v0.24.0 was followed "
                  "by v0.30.0)");
  }
  return *r;
}

std::optional<uint64_t> llama_server_build(std::string_view version) {
  // Each release's LLAMA_CPP_VERSION file (ollama/ollama, from v0.30.0,
  // "runner: Remove CGO engines, use llama-server exclusively for GGML
  // models", #16031): the llama.cpp build its llama-server is, from that
  // release on, read at every tag v0.30.0 to v0.32.15.
  static constexpr std::pair<OllamaRelease, uint64_t> kBuilds[] = {
      {v(0, 30, 0), 9452},   {v(0, 30, 1), 9479},   {v(0, 30, 4), 9493},   {v(0, 30, 5), 9509},
      {v(0, 30, 9), 9626},   {v(0, 30, 10), 9672},  {v(0, 30, 11), 9781},  {v(0, 31, 0), 9840},
      {v(0, 31, 2), 9888},   {v(0, 32, 2), 10069},  {v(0, 32, 3), 10091},  {v(0, 32, 6), 10242},
      {v(0, 32, 8), 10353},  {v(0, 32, 10), 10380}, {v(0, 32, 14), 10434}, {v(0, 32, 15), 10488},
  };
  constexpr OllamaRelease kLastRead = v(0, 32, 15);
  const std::optional<OllamaRelease> r = release_tag(version);
  if (!r || *r < kBuilds[0].first || *r > kLastRead) return std::nullopt;
  uint64_t build = kBuilds[0].second;
  for (const auto& [from, b] : kBuilds) {
    if (*r >= from) build = b;
  }
  return build;
}

std::string to_string(const OllamaRelease& release) {
  return fmt::format("v{}.{}.{}", release.major, release.minor, release.patch);
}

std::optional<uint64_t> vendored_llamacpp_build(const OllamaRelease& release) {
  if (starts_llama_server(release)) return llama_server_build(to_string(release));
  if (release < v(0, 1, 30)) return kBeforeGraphInputsBuild;
  if (release < v(0, 1, 32)) return kBeforeOutputPerSeqBuild;
  if (release < v(0, 5, 2)) return kBeforeSharedDuplicatesBuild;
  if (release < v(0, 11, 5)) return kBeforeSwaWindowBuild;
  if (release < v(0, 13, 2)) return kPad32StreamsBuild;
  return kBeforeVectorInputBuild;
}

std::string_view ollama_architecture(std::string_view model_type) {
  // Hugging Face's model_type -> the architecture Ollama's converter
  // writes (convert/convert_<family>.go KV: "general.architecture").
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"gpt_oss", "gptoss"},          {"qwen3_moe", "qwen3moe"},       {"qwen3_vl", "qwen3vl"},
      {"qwen3_vl_moe", "qwen3vlmoe"}, {"qwen2_5_vl", "qwen25vl"},      {"gemma3_text", "gemma3"},
      {"gemma3n_text", "gemma3n"},    {"gemma4_text", "gemma4"},       {"deepseek_v2", "deepseek2"},
      {"deepseek_v3", "deepseek2"},   {"nomic_bert", "nomic-bert"},    {"qwen3_next", "qwen3next"},
      {"qwen3_5", "qwen35"},          {"qwen3_5_moe", "qwen35moe"},    {"lfm2_moe", "lfm2moe"},
      {"glm4_moe_lite", "glm4moelite"}, {"mllama", "mllama"},
  };
  for (const auto& [hf, gguf] : kNames) {
    if (hf == model_type) return gguf;
  }
  return model_type;
}

bool starts_llama_server(const OllamaRelease& release) { return release >= kFirstLlamaServerRelease; }

bool ollama_engine_required(std::string_view architecture, const OllamaRelease& release) {
  // From v0.30.0 llm/server.go starts llama-server for every GGUF model:
  // fs/ggml still defines KV.OllamaEngineRequired, but nothing reads it.
  return !starts_llama_server(release) && listed_in(kOllamaEngine, architecture, release);
}

bool flash_attention_by_default(std::string_view architecture, const OllamaRelease& release) {
  return listed_in(kFlashAttention, architecture, release);
}

uint64_t own_engine_cache_padding(const OllamaRelease& release, bool flash_attention) {
  return flash_attention || release >= v(0, 13, 2) ? 256 : 32;
}

bool own_engine_reserve_casts_mask(const OllamaRelease& release) { return release >= v(0, 12, 7); }

bool own_engine_graph_holds_gpu_pool(const OllamaRelease& release) { return release >= v(0, 12, 4); }

bool own_engine_rdna3_product_pool(const OllamaRelease& release) {
  return own_engine_graph_holds_gpu_pool(release) && release <= v(0, 13, 2);
}

bool own_engine_cuda_mma_pool(const OllamaRelease& release) {
  return own_engine_graph_holds_gpu_pool(release) && release <= v(0, 24, 0);
}

bool llama_runner_flash_attention_auto(const OllamaRelease& release) { return release >= v(0, 13, 5); }

std::optional<uint64_t> context_floor(std::string_view architecture, const OllamaRelease& release,
                                      uint64_t total_vram_bytes) {
  constexpr uint64_t kLowVramBytes = uint64_t{20} << 30;
  if (release < v(0, 11, 0) || release >= v(0, 15, 5)) return std::nullopt;
  const bool listed = architecture == "gptoss" || (architecture == "gpt-oss" && release >= v(0, 11, 5)) ||
                      ((architecture == "qwen3vl" || architecture == "qwen3vlmoe") && release >= v(0, 12, 7));
  if (!listed) return std::nullopt;
  if (release >= v(0, 11, 4) && total_vram_bytes < kLowVramBytes) return std::nullopt;
  return uint64_t{8192};
}

std::optional<uint64_t> default_context(const OllamaRelease& release) {
  if (release < v(0, 6, 7)) return 2048;
  if (release < v(0, 15, 5)) return 4096;
  return std::nullopt;
}

bool memory_go_places_layers(const OllamaRelease& release) { return release < v(0, 12, 11); }

bool reads_num_parallel(const OllamaRelease& release) { return release >= v(0, 1, 33); }

uint64_t default_parallel(const OllamaRelease& release) {
  if (release < v(0, 2, 0)) return 1;
  if (release < v(0, 7, 0)) return 4;
  if (release < v(0, 10, 0)) return 2;
  return 1;
}

RunnerBatch runner_batch(const OllamaRelease& release, uint64_t num_batch, uint64_t parallel) {
  constexpr uint64_t kLlamaCppDefaultUbatch = 512;  // llama_context_default_params
  const uint64_t batch = std::max<uint64_t>(num_batch, 1);
  const uint64_t per_step = (CheckedBytes(batch) * std::max<uint64_t>(parallel, 1)).saturated();
  // llm/llama_server.go appendBatchArgs: -b num_batch -ub num_batch.
  if (starts_llama_server(release)) return {batch, batch};
  if (release >= v(0, 13, 3)) return {per_step, batch};
  const uint64_t n_batch = release >= v(0, 4, 0) ? per_step : batch;
  return {n_batch, std::min(n_batch, kLlamaCppDefaultUbatch)};
}

std::span<const ReleaseDifference> release_differences() { return kDifferences; }

uint64_t predicted_server_bytes(uint64_t file_bytes, uint64_t blocks, uint64_t kv_heads_min,
                                uint64_t embedding, uint64_t heads_max, uint64_t cells) {
  // llm/llama_server.go PredictServerVRAM: "a rough KV cache estimate",
  // f16 K and V over every block, the head width n_embd / n_head (Go's
  // integer division; 0 without heads), at least one KV head.
  const uint64_t head_width = heads_max > 0 ? embedding / heads_max : 0;
  const CheckedBytes cache = CheckedBytes(2) * blocks * std::max<uint64_t>(kv_heads_min, 1) * head_width * cells * 2;
  return (cache + file_bytes).saturated();
}

uint64_t automatic_generation_batch(const AutoBatchInputs& in) {
  constexpr uint64_t kDefault = 512, kConstrained = 256, kMedium = 1024, kLarge = 2048;
  if (in.flash_attention_off && in.cuda) return in.cells > 4096 && in.small_cuda ? kConstrained : kDefault;
  uint64_t batch = in.cells > 32768 ? kLarge : in.cells > 4096 ? kMedium : kDefault;
  // generationBatchFits: no prediction or no free memory fits any batch.
  const auto fits = [&](uint64_t b) {
    if (in.predicted_bytes == 0 || in.available_bytes == 0) return true;
    const uint64_t threshold = (CheckedBytes(in.available_bytes) * 80).saturated() / 100;
    if (in.predicted_bytes > threshold) return false;
    const uint64_t headroom_percent = b >= kLarge ? 60 : b >= kMedium ? 75 : 100;
    if (in.predicted_bytes > (CheckedBytes(in.available_bytes) * headroom_percent).saturated() / 100) return false;
    const uint64_t surcharge = b >= kLarge ? uint64_t{2} << 30 : b >= kMedium ? uint64_t{768} << 20 : 0;
    return surcharge <= threshold - in.predicted_bytes;
  };
  while (batch > kDefault && !fits(batch)) batch = batch > kMedium ? kMedium : kDefault;
  return batch;
}

}  // namespace memfit::ollama
