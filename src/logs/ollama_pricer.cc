// An Ollama log priced by the ollama profile (docs/engine-ollama.md): the
// settings its runner printed, read as the llama.cpp pricer reads them
// (llamacpp_pricer.cc), turned into Ollama's own fields: num_ctx is the
// runner's context over its sequences (n_ctx / n_seq_max, Ollama's
// num_ctx x OLLAMA_NUM_PARALLEL), num_batch its ubatch, the cache type and
// flash attention as Ollama's variables, the GPUs' free memory as
// ollama_gpus_free, the layers it offloaded as num_gpu, so that the
// runner's buffers are compared for the layers it got, and the release the
// log prints (or its sidecar names) as ollama_version, whose rules
// (its vendored llama.cpp's cache among them) price it. The buffers are
// compared as the llama.cpp pricer compares them.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <any>

#include "engines/llamacpp/parts.h"
#include "engines/ollama/engine_graph.h"
#include "engines/ollama/releases.h"
#include "engines/ollama/settings.h"
#include "engines/ollama/vision_graph.h"
#include "logs/log_pricer.h"
#include "logs/log_text.h"
#include "memfit/checked_math.h"
#include "memfit/llamacpp.h"
#include "memfit/request.h"
#include "memfit/request_field.h"
#include "memfit/untrusted_text.h"

namespace memfit::logs {
namespace {

// A GPU's free memory when the log prints none: 1 TiB, more than any
// layer set of the corpus.
constexpr uint64_t kStandInFreeBytes = 1ull << 40;

// `text` into the Ollama field `name` of `r`, as a front end applies it.
Status set_field(EstimateRequest& r, std::string_view name, const std::string& text) {
  const RequestField* field = find_request_field(name);
  if (field == nullptr) return Error(fmt::format("no request field {}", name), ErrorKind::kInternal);
  return apply_request_field(*field, r, text);
}

// "0=1234B,1=5678B": the GPUs' free bytes, as ollama_gpus_free takes them.
// "CUDA0=...B,1=...B": each GPU's free memory, a CUDA or ROCm device named
// as llama.cpp names it (the llama.cpp pricer's "cuda:0", "rocm:0"), so its
// quantized rows are padded as ggml-cuda pads them.
std::string gpus_text(const std::vector<LlamaCppGpu>& gpus) {
  std::string text;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::string_view backend = gpus[i].device.starts_with("cuda")   ? "CUDA"
                                     : gpus[i].device.starts_with("rocm") ? "ROCm"
                                                                          : "";
    text += fmt::format("{}{}{}={}B", i == 0 ? "" : ",", backend, i, gpus[i].free_bytes);
  }
  return text;
}

// The runner's sequences: n_seq_max, else n_ctx over n_ctx_per_seq (the
// releases that print no n_seq_max), else 1. At least 1 whatever the log
// prints (a printed 0 is untrusted text, not a divisor).
uint64_t sequences_of(const RuntimeLog& log, const LlamaCppRequest& q) {
  if (q.parallel && *q.parallel > 0) return *q.parallel;
  std::optional<uint64_t> per_seq = count_setting(log, "n_ctx_seq");
  if (!per_seq) per_seq = count_setting(log, "n_ctx_per_seq");
  if (q.ctx_size && *q.ctx_size > 0 && per_seq && *per_seq > 0 && *q.ctx_size % *per_seq == 0) {
    return *q.ctx_size / *per_seq;
  }
  return 1;
}

// The log's release ("0.6.8"; a sidecar's "v0.5.12"), when memfit reads
// it; nullopt otherwise (the pinned release prices the log).
std::optional<ollama::OllamaRelease> release_of(const RuntimeLog& log) {
  if (log.version.empty()) return std::nullopt;
  Result<ollama::OllamaRelease> release = ollama::parse_ollama_release(log.version);
  if (!release) return std::nullopt;
  return *release;
}

// The last release whose llama.cpp runner kept one cache for every
// sequence: v0.11.5 vendors the first llama.cpp with a stream per sequence
// (docs/engine-ollama.md, "Releases"; llama/llama.cpp/src/llama-context.cpp
// has no kv_unified at v0.11.4).
constexpr std::string_view kLastOneCacheRelease = "v0.11.4";

// The last release whose llama.cpp printed the loader's buffer lines
// without "model" (llamacpp_pricer.cc's kDatedLineForms: up to b4019):
// v0.5.1 vendors 3f1ae2e (2024-10-17); v0.5.2 moved to 40c6d79 (Ollama
// #7875, December 2024), past the form. Its rules (a llama.cpp before
// #10026: duplicated tensors copied a block) price such a log.
constexpr std::string_view kLastUnnamedModelBufferRelease = "v0.5.1";

Status apply_release(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  if (const std::optional<ollama::OllamaRelease> release = release_of(log);
      release && !ollama::starts_llama_server(*release)) {
    return set_field(r, "ollama_version", ollama::to_string(*release));
  }
  // A log that names no release but whose runner kept one cache for every
  // sequence came from a release before v0.11.5: the last of them prices it.
  if (log.version.empty() && log.setting("form_loader_buffer_without_model") != nullptr) {
    notes.push_back(fmt::format("Ollama's version is not in the log, but its runner printed the loader's "
                                "buffer lines without 'model', as llama.cpp did before b4020: {}'s rules "
                                "price it",
                                kLastUnnamedModelBufferRelease));
    return set_field(r, "ollama_version", std::string(kLastUnnamedModelBufferRelease));
  }
  if (log.version.empty() && one_cache_for_all(log)) {
    notes.push_back(fmt::format("Ollama's version is not in the log, but its runner kept one cache for "
                                "every sequence, as releases before v0.11.5 did: {}'s rules price it",
                                kLastOneCacheRelease));
    return set_field(r, "ollama_version", std::string(kLastOneCacheRelease));
  }
  // The log's runner is one of Ollama's own (a llama-server run is priced
  // by the llama.cpp pricer): the last release with them prices it, not
  // the profile's default (v0.32.15 starts llama-server).
  notes.push_back(log.version.empty()
                      ? "Ollama's version is not in the log: the pinned v0.24.0's rules price it"
                      : fmt::format("Ollama {}: not a release memfit reads with its own runners (v0.1.0 "
                                    "to v0.24.0); the pinned v0.24.0's rules price it",
                                    escape_untrusted(log.version)));
  return set_field(r, "ollama_version", ollama::to_string(ollama::kPinnedRelease));
}

Status as_ollama(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  const LlamaCppRequest q = std::move(r.llamacpp);
  r.llamacpp = {};
  // Whether the runner's llama.cpp piped its inputs, as the log printed it
  // (the llama.cpp pricer's apply_placement): no Ollama field says so, and
  // the Ollama profile passes the llama.cpp placement on to its runner.
  r.llamacpp.placement.pipeline_parallel = q.placement.pipeline_parallel;
  r.engine = "ollama";
  if (Status s = apply_release(log, r, notes); !s) return s;
  const uint64_t sequences = sequences_of(log, q);
  if (!q.ctx_size) {
    // No context printed: num_ctx is left to the profile, which gives
    // Ollama's default for the release (defaults.cc), not the trained one.
    std::erase(notes, std::string(kTrainingContextAssumedNote));
    notes.emplace_back(kOllamaDefaultContextNote);
  }
  if (q.ctx_size && *q.ctx_size >= sequences) {
    if (Status s = set_field(r, "num_ctx", std::to_string(*q.ctx_size / sequences)); !s) return s;
  }
  // Given even when 1: older releases' default is more (releases.h).
  if (Status s = set_field(r, "ollama_num_parallel", std::to_string(sequences)); !s) return s;
  if (q.ubatch_size) {
    if (Status s = set_field(r, "num_batch", std::to_string(*q.ubatch_size)); !s) return s;
  }
  if (q.flash_attn && *q.flash_attn != FlashAttn::kAuto) {
    const std::string on = *q.flash_attn == FlashAttn::kOn ? "true" : "false";
    if (Status s = set_field(r, "ollama_flash_attention", on); !s) return s;
  }
  if (q.cache_type_k && (*q.cache_type_k == GgmlType::kQ8_0 || *q.cache_type_k == GgmlType::kQ4_0)) {
    const std::string type = *q.cache_type_k == GgmlType::kQ8_0 ? "q8_0" : "q4_0";
    if (Status s = set_field(r, "ollama_kv_cache_type", type); !s) return s;
    if (Status s = set_field(r, "ollama_flash_attention", "true"); !s) return s;
  }
  // The load request's UseMmap:false (or the loader's "mmap = false").
  if (q.placement.no_mmap.value_or(false)) {
    if (Status s = set_field(r, "use_mmap", "false"); !s) return s;
  }
  if (q.placement.gpu_memory && !q.placement.gpu_memory->empty()) {
    std::vector<LlamaCppGpu> gpus = *q.placement.gpu_memory;
    // The llama.cpp pricer's stand-in for a free memory the log does not
    // print is 1 byte (its split needs only the ratios); the scheduler
    // needs room: each such GPU is taken to hold every layer.
    bool stand_in = false;
    for (LlamaCppGpu& g : gpus) {
      if (g.free_bytes <= 1) {
        g.free_bytes = kStandInFreeBytes;
        stand_in = true;
      }
    }
    if (stand_in) {
      notes.push_back("a GPU's free memory is not in the log: it is taken to hold every layer the "
                      "runner offloaded");
    }
    if (Status s = set_field(r, "ollama_gpus_free", gpus_text(gpus)); !s) return s;
  }
  // The discovery's compute= (ollama_reader.cc): an RDNA3 GPU's own-engine
  // graph adds its products' pool (engines/ollama/gpu_pool.h). A value
  // the field does not take (untrusted text) is left out.
  if (const LogSetting* arch = log.setting("gpu_arch")) (void)set_field(r, "ollama_gpu_arch", arch->value);
  if (q.placement.n_gpu_layers && *q.placement.n_gpu_layers) {
    if (Status s = set_field(r, "num_gpu", std::to_string(**q.placement.n_gpu_layers)); !s) return s;
    notes.push_back("the layers the log's runner offloaded are given as num_gpu: its buffers are "
                    "compared for the same layers, not Ollama's scheduler's choice");
  }
  return Status::Ok();
}

// Whether the profile adds an NVIDIA Turing or Ampere GPU's pool to this
// device's record (engines/ollama/own_pool.cc, turing_ampere_pool): a CUDA
// device whose compute capability the log prints (7.5 to 8.8), v0.12.4 to
// v0.24.0, flash attention on and an F16 cache.
bool turing_ampere_pool_replayed(std::string_view device, const ollama::OllamaDecisions& d) {
  if (!device.starts_with("CUDA") || !d.given.gpu_arch || !ollama::own_engine_cuda_mma_pool(d.release) ||
      d.flash_attn != FlashAttn::kOn || d.kv_type != GgmlType::kF16) {
    return false;
  }
  const std::optional<unsigned> cc = ollama::cuda_compute_capability(*d.given.gpu_arch);
  return cc && *cc >= 75 && *cc < 89;
}

// The notes of an own-engine run's compute rows (see compare).
void note_own_engine_graph(const EstimateRun& run, const ollama::OllamaDecisions& d,
                           std::vector<FigureCheck>& figures) {
  const std::vector<LlamaCppDeviceUsage>& devices = run.llamacpp->placement.devices;
  const uint64_t blocks = run.model->spec.layers.size();
  const bool mirrored = ollama::mirrors_engine_graph(run.model->spec);
  // With every block on GPUs the host's graph is the own engine's token
  // rows (engines/ollama/engine_cache.h, own_engine_host_graph_bytes).
  const bool host_rows = devices.size() > 1 && devices.back().device == "cpu" && devices.back().blocks == 0;
  for (FigureCheck& c : figures) {
    // llama.cpp's notes (op offload, BERT's rows) are not this engine's.
    if (c.printed.figure != LogFigure::kCompute || !c.memfit) continue;
    if (host_rows && c.printed.device == "CPU") {
      c.note = "Ollama's own engine with every block on GPUs: the host's graph is the token rows "
               "(n_embd x num_batch x 4 B; the output layer's rows for each sequence when it is "
               "there), the graph's inputs in buffers of their own (ml/backend/ggml/ggml.go)";
      continue;
    }
    const auto runs_all = [&](const LlamaCppDeviceUsage& d) {
      return d.blocks == blocks && (d.device == "cpu") == (c.printed.device == "CPU");
    };
    const bool replayed = mirrored && blocks > 0 && std::any_of(devices.begin(), devices.end(), runs_all);
    if (replayed && c.printed.device == "CPU") {
      c.note = "Ollama's own engine's graph (its model's Forward under model/models; the reserved batch's "
               "outputs one row a sequence), replayed with ggml-alloc's rules";
    } else if (replayed && !ollama::own_engine_graph_holds_gpu_pool(d.release)) {
      c.note = "Ollama's own engine's graph replayed with ggml-alloc's rules (a release before v0.12.4: "
               "the record holds no pool of the GPU backend's)";
    } else if (replayed && c.printed.device.starts_with("ROCm") && d.given.gpu_arch &&
               d.given.gpu_arch->starts_with("gfx11") && ollama::own_engine_rdna3_product_pool(d.release)) {
      c.note = "Ollama's own engine's graph replayed with ggml-alloc's rules, and the GPU backend's pool "
               "the record adds (the ggml-No-alloc-mode patch) replayed for RDNA3: hipBLAS's F16 copies "
               "of each product over 64 or more tokens, in ggml-cuda's legacy pool (flash attention's "
               "partial results, sized by the GPU's occupancy, are not)";
    } else if (replayed && turing_ampere_pool_replayed(c.printed.device, d)) {
      c.note = "Ollama's own engine's graph replayed with ggml-alloc's rules, and the GPU backend's pool "
               "the record adds (the ggml-No-alloc-mode patch) replayed for NVIDIA Turing and Ampere: "
               "ggml-cuda's VMM pool at its largest request, the flash attention MMA kernel's tile "
               "metadata (tiles x columns x (4 + DV) float2s, fattn-common.cuh launch_fattn) or a "
               "product's q8_1 activations, rounded up to 2 MiB";
    } else if (replayed) {
      c.note = "Ollama's own engine's graph replayed with ggml-alloc's rules; a CUDA or ROCm record adds "
               "the backend's pool of kernel temporaries (Ollama's ggml-No-alloc-mode patch: "
               "ggml_backend_cuda_buffer_size), which memfit replays for RDNA3 products (v0.12.4 to "
               "v0.13.2) and for NVIDIA Turing and Ampere under flash attention with an F16 cache "
               "(v0.12.4 to v0.24.0)";
    } else if (run.model->spec.gated_delta.value_heads > 0 && !std::any_of(devices.begin(), devices.end(), runs_all)) {
      // A gated delta net model split between the host and a GPU
      // (model/models/qwen3next, v0.17.1 to v0.20.0): each device's record
      // is its blocks' share of deltaNetChunked's graph plus the scheduler's
      // copies around the products op offload moves to the GPU (ggml.go New:
      // ggml_backend_sched_new_ext's op_offload true), none of it mirrored.
      c.note = fmt::format(
          "Ollama's own engine splits this gated delta net model's blocks between the host and a GPU: the "
          "record is the device's blocks' share of model/models/qwen3next's graph (deltaNetChunked over "
          "64-token chunks: per layer F32 rows of {} value heads x {} x the batch and {} x 64 x 64 matrices "
          "a chunk) with the scheduler's copies around the products its op offload runs on the GPU "
          "(ggml.go New: op_offload true){}; memfit mirrors neither, and the log does not say which graph "
          "its release built (its source lines are v0.17.1 to v0.19.0's: the chunks' outputs set in place "
          "before v0.17.5, concatenated in a tree from it, #14541); llama.cpp's compute buffer stands in",
          run.model->spec.gated_delta.value_heads, run.model->spec.gated_delta.value_dim,
          run.model->spec.gated_delta.value_heads,
          c.printed.device == "CPU" ? "" : ", and a CUDA record adds ggml-cuda's pool (not priced)");
    } else if (run.model->spec.multimodal && c.printed.device != "CPU") {
      // runner/ollamarunner/runner.go reserveWorstCaseGraph: a vision model
      // first encodes a 2048 x 2048 image (EncodeMultimodal), then reserves
      // the text batch; the scheduler's buffers keep the larger.
      c.note = "Ollama's own engine reserves a vision model's image encoder on a 2048 x 2048 image before "
               "the text graph (reserveWorstCaseGraph), and the record is the larger of the two: memfit "
               "prices neither the encoder nor this family's own graph, llama.cpp's compute buffer stands in";
    } else {
      c.note = "Ollama's own engine (runner --ollama-engine) builds its own graph: memfit mirrors "
               "qwen3, qwen3moe, gpt-oss and BERT on the device that runs every block, and prices llama.cpp's "
               "compute buffer in its place otherwise";
    }
  }
}

// The estimate's device for a device the log names: "CPU" the host, else
// the log's GPU index ("CUDA1", "ROCm0", "Vulkan0"; "Metal" the first) among
// the estimate's GPUs, in order. nullptr when there is none.
const LlamaCppDeviceUsage* estimate_device(const LlamaCppEstimate& e, std::string_view printed) {
  const std::vector<LlamaCppDeviceUsage>& devices = e.placement.devices;
  if (printed == "CPU") {
    for (const LlamaCppDeviceUsage& d : devices) {
      if (d.device == "cpu") return &d;
    }
    return nullptr;
  }
  size_t digits = printed.size();
  while (digits > 0 && printed[digits - 1] >= '0' && printed[digits - 1] <= '9') --digits;
  const std::optional<uint64_t> index =
      digits == printed.size() ? std::optional<uint64_t>(0) : parse_count(printed.substr(digits));
  if (!index) return nullptr;
  uint64_t seen = 0;
  for (const LlamaCppDeviceUsage& d : devices) {
    if (d.device == "cpu") continue;
    if (seen++ == *index) return &d;
  }
  return nullptr;
}

// An own-engine run of a model with recurrent layers: its "kv cache"
// record is the whole cache (kvcache/recurrent.go wraps the causal one):
// the KV, the recurrent state and the state's checkpoints
// (engines/ollama/engine_cache.h), each on its layer's device. No output
// buffer: the engine's logits are in its graph.
void compare_own_engine_cache(const EstimateRun& run, std::vector<FigureCheck>& figures) {
  const LlamaCppEstimate& e = *run.llamacpp;
  if (e.recurrent_bytes == 0) return;
  for (FigureCheck& c : figures) {
    if (c.printed.figure != LogFigure::kKvCache) continue;
    if (c.printed.device == "total") {
      c.memfit = (CheckedBytes(e.kv_bytes) + e.recurrent_bytes).saturated();
    } else {
      const LlamaCppDeviceUsage* d = estimate_device(e, c.printed.device);
      if (d == nullptr) continue;
      const uint64_t output = d->device == "cpu" ? e.output_bytes : 0;
      c.memfit = d->context_bytes >= output ? d->context_bytes - output : 0;
    }
    c.basis = FigureBasis::kExact;  // ratio and within_print: log_check.cc, after compare
    c.note = "Ollama's own engine's cache record: the KV, the recurrent state and its checkpoints "
             "(kvcache/recurrent.go: 24 a sequence from v0.17.1, 32 for qwen3next before)";
  }
}

// A gemma3 config's image encoder (vision_config, siglip_vision_model) as
// gemma3_vision_graph_bytes takes it; nullopt for any other config or a
// field that is not an unsigned number. The text width is the model's.
std::optional<ollama::VisionEncoderShape> gemma3_vision(std::string_view config_json, uint64_t text_hidden) {
  const nlohmann::json doc = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("model_type", std::string()) != "gemma3") return std::nullopt;
  const auto vision = doc.find("vision_config");
  if (vision == doc.end() || !vision->is_object() ||
      vision->value("model_type", std::string("siglip_vision_model")) != "siglip_vision_model") {
    return std::nullopt;
  }
  const auto count = [](const nlohmann::json& o, const char* key, uint64_t fallback) -> std::optional<uint64_t> {
    const auto it = o.find(key);
    if (it == o.end()) return fallback == 0 ? std::nullopt : std::optional<uint64_t>(fallback);
    if (!it->is_number_unsigned()) return std::nullopt;
    return it->get<uint64_t>();
  };
  // model.go New: mm_tokens_per_image, 256 when absent; num_channels 3.
  const std::optional<uint64_t> layers = count(*vision, "num_hidden_layers", 0), hidden = count(*vision, "hidden_size", 0),
                                heads = count(*vision, "num_attention_heads", 0),
                                ffn = count(*vision, "intermediate_size", 0), image = count(*vision, "image_size", 0),
                                patch = count(*vision, "patch_size", 0), channels = count(*vision, "num_channels", 3),
                                tokens = count(doc, "mm_tokens_per_image", 256);
  if (!layers || !hidden || !heads || !ffn || !image || !patch || !channels || !tokens) return std::nullopt;
  return ollama::VisionEncoderShape{.layers = *layers, .hidden = *hidden, .heads = *heads, .ffn = *ffn,
                                    .image = *image, .patch = *patch, .channels = *channels,
                                    .text_hidden = text_hidden, .tokens_per_image = *tokens};
}

// The releases whose image encoder gemma3_vision_graph_bytes mirrors:
// gemma3 came with v0.6.0; v0.12.0 reorders nn.Attention (ad95d5b30)
// (vision_graph.h).
bool vision_graph_mirrored(const ollama::OllamaRelease& release) {
  return release >= ollama::OllamaRelease{0, 6, 0} && release < ollama::OllamaRelease{0, 12, 0};
}

// A gemma3 run on the own engine: the GPU that holds the output layer
// (and so the v.* and mm.* tensors: ggml.go New, v0.9.6) with every block
// reserves the image encoder's graph before the text graph
// (reserveWorstCaseGraph), and its record is the larger: the encoder
// replayed where it wins over llama.cpp's phases, the text graph's stand-in.
void compare_vision_reservation(const LogCheckOptions& options, const EstimateRun& run,
                                const ollama::OllamaDecisions& d, std::vector<FigureCheck>& figures) {
  if (options.config_json.empty() || !vision_graph_mirrored(d.release)) return;
  const std::optional<ollama::VisionEncoderShape> shape =
      gemma3_vision(options.config_json, run.model->spec.geometry.hidden);
  if (!shape) return;
  // A release before v0.12.4: the record is ggml-alloc's buffer alone, no
  // pool of the backend's (releases.h own_engine_graph_holds_gpu_pool).
  Result<std::optional<uint64_t>> bytes = ollama::gemma3_vision_graph_bytes(*shape, llamacpp::kGpuTensorAlignment);
  if (!bytes || !*bytes) return;
  const uint64_t blocks = run.model->spec.layers.size();
  // Bounded by gemma3_vision_graph_bytes (each side below 2^20).
  const uint64_t patches = (shape->image / shape->patch) * (shape->image / shape->patch);
  for (FigureCheck& c : figures) {
    if (c.printed.figure != LogFigure::kCompute || !c.memfit || c.printed.device == "CPU") continue;
    const LlamaCppDeviceUsage* dev = estimate_device(*run.llamacpp, c.printed.device);
    if (dev == nullptr || !dev->output_layer || dev->blocks != blocks) continue;
    c.note = fmt::format("Ollama's own engine reserves gemma3's image encoder (its processor's {} x {} image, {} "
                         "patches: the scores {} heads x {} x {} F32) before the text graph, and the record is the "
                         "larger: the encoder replayed, {} B, against llama.cpp's compute buffer standing in for "
                         "the text graph, {} B",
                         shape->image, shape->image, patches, shape->heads, patches, patches, **bytes, *c.memfit);
    c.memfit = std::max(*c.memfit, **bytes);
  }
}

// A log that prints neither its context (no load request, no runner
// command, no llama_context line) nor, with records on a GPU and the host,
// its layers per device (no load request's GPULayers) leaves both to
// memfit: the release's default num_ctx (defaults.cc) and every layer on
// the GPU. Its cache and graph rows are then another run's, whatever the
// rules: they are modelled, and their notes say which input was assumed
// (the a10doc grep of Ollama 0.12's records: 1.9 + 1.1 GiB of KV is 32,768
// cells x 48 layers x 64 KiB split 30/18, against memfit's 40,960 cells
// all on CUDA0).
void note_unprinted_inputs(const RuntimeLog& log, const EstimateRun& run, std::vector<FigureCheck>& figures) {
  const bool context = count_setting(log, "n_ctx").has_value();
  bool gpu = false, host = false;
  for (const FigureCheck& c : figures) {
    if (c.printed.figure != LogFigure::kKvCache && c.printed.figure != LogFigure::kModel) continue;
    if (c.printed.device == "CPU") host = true;
    if (c.printed.device != "CPU" && c.printed.device != "total") gpu = true;
  }
  const bool split = !(gpu && host) || count_setting(log, "n_gpu_layers").has_value();
  if (context && split) return;
  std::string why;
  if (!context) {
    why = fmt::format("the log prints no context (no load request or runner command): memfit takes the "
                      "release's default num_ctx, {} cells",
                      run.llamacpp->context.n_ctx);
  }
  if (!split) {
    why += fmt::format("{}the log prints no layers per device (no load request's GPULayers): memfit puts "
                       "every layer on the GPU",
                       why.empty() ? "" : "; ");
  }
  for (FigureCheck& c : figures) {
    if (!c.memfit || (c.printed.figure != LogFigure::kKvCache && c.printed.figure != LogFigure::kCompute)) continue;
    c.basis = FigureBasis::kModelled;
    c.input_gap = context ? "layers per device" : "context";
    c.note = c.note.empty() ? why : fmt::format("{}; {}", why, c.note);
  }
  if (split) return;
  // The weights per device follow the layers per device, which the log
  // does not print (its rounded KV records, 1.9 and 1.1 GiB in a10doc's,
  // hold 30/18 and 31/17 alike): the model rows say so before the file's
  // own note.
  const std::string layers = "the log prints no layers per device (no load request's GPULayers; its rounded KV "
                             "records do not settle them): memfit puts every layer on the GPU";
  for (FigureCheck& c : figures) {
    if (!c.memfit || c.printed.figure != LogFigure::kModel) continue;
    c.basis = FigureBasis::kModelled;
    c.input_gap = "layers per device";
    c.note = c.note.empty() ? layers : fmt::format("{}; {}", layers, c.note);
  }
}

class OllamaPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "ollama"; }
  bool rebuilds_model() const override { return true; }

  // The llama.cpp runner's: its cache as the vendored build keeps it.
  Result<std::string> run_config(const RuntimeLog& log, const LogCheckOptions& options,
                                 std::vector<std::string>& notes) const override {
    return llamacpp_log_pricer().run_config(log, options, notes);
  }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
                                  std::vector<std::string>& notes) const override {
    Result<EstimateRequest> r = llamacpp_log_pricer().request(log, options, notes);
    if (!r) return r.error();
    if (Status s = as_ollama(log, *r, notes); !s) return s.error();
    return r;
  }

  void compare(const RuntimeLog& log, const LogCheckOptions& options, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override {
    llamacpp_log_pricer().compare(log, options, run, figures);
    const LlamaCppEstimate& e = *run.llamacpp;
    for (FigureCheck& c : figures) {
      if (c.printed.figure != LogFigure::kOutput || !c.memfit) continue;
      // Every runner context asks for embeddings (NewContextParams:
      // embeddings = true): the ollama profile's estimate keeps n_embd
      // floats beside each row's logits (LlamaCppSettings::
      // output_embeddings, llamacpp/memory.cc), the figure compared here.
      if (llamacpp::keeps_output_embeddings(run.model->spec, e.settings)) {
        c.note = "Ollama's runner keeps each output's embedding too (NewContextParams: embeddings = "
                 "true): n_embd floats a row beside the logits";
        continue;
      }
      c.basis = FigureBasis::kModelled;
      c.note = "the model pools and this release's llama.cpp predates #14208: Ollama's "
               "0003-embeddings.patch keeps no embeddings then, and logits only for a causal model; "
               "memfit prices the logits alone";
    }
    // Ollama's own engine builds its graph in Go (ml/backend/ggml and the
    // model's package under model/models), not llama.cpp's: the device that
    // runs every block has that graph replayed where memfit mirrors the
    // family (engines/ollama/engine_graph.h), else llama.cpp's phases, a
    // stand-in.
    const auto* decisions = std::any_cast<ollama::OllamaDecisions>(&run.engine_estimate);
    if (decisions != nullptr && decisions->runner == ollama::OllamaRunner::kOllama) {
      note_own_engine_graph(run, *decisions, figures);
      compare_vision_reservation(options, run, *decisions, figures);
      compare_own_engine_cache(run, figures);
    }
    note_unprinted_inputs(log, run, figures);
    // A release before v0.11.5 is priced with its one cache (a log naming
    // no release with v0.11.4's, apply_release); a release past it that
    // printed one cache is not one memfit reads.
    if (!one_cache_for_all(log) || release_of(log) || log.version.empty()) return;
    for (FigureCheck& c : figures) {
      if (c.printed.figure != LogFigure::kCompute || !c.memfit) continue;
      c.note = "the log's runner kept one cache for every sequence (llama_kv_cache_init: kv_size = "
               "n_ctx, or its context's lines from before #14363), so its attention spans all n_ctx "
               "cells; the log's release is not one memfit reads, and memfit prices the pinned Ollama "
               "runner's cache, a stream per sequence";
    }
  }
};

}  // namespace

const LogPricer& ollama_log_pricer() {
  static const OllamaPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
