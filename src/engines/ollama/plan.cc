// Ollama's decisions applied to the llama.cpp settings (docs/engine-ollama.md):
// the runner gets n_ctx = num_ctx x parallel, n_seq_max = parallel,
// n_batch = num_batch x parallel, n_ubatch = num_batch (llama/llama.go,
// NewContextParams; older releases' in releases.h), the llama.cpp build
// its release vendors, the KV type and flash attention decided, and the
// scheduler's layers per GPU as -ngl and the split. From v0.30.0 the run
// is llama-server's, its flags and layers set by llama_server.h.
#include "engines/ollama/plan.h"

#include <fmt/format.h>

#include "engines/llamacpp/parts.h"
#include "engines/ollama/llama_server.h"
#include "engines/ollama/engine_cache.h"
#include "engines/ollama/own_pool.h"
#include "engines/ollama/releases.h"
#include "engines/llamacpp/speed_plan.h"
#include "memfit/checked_math.h"

namespace memfit::ollama {
namespace {

// The pool the GPU backend adds to the graph each GPU reports (own_pool.h):
// createLayout (llm/server.go, v0.12.4 to v0.24.0) reserves each GPU's
// memory.GPUs[j].Graph, which Reserve (ml/backend/ggml/ggml.go) reads from
// ggml_backend_sched_get_attempted_buffer_size, the pool included by the
// ggml-No-alloc-mode patch. memfit's scheduler reserves one graph on every
// GPU it uses: the largest of theirs.
uint64_t gpu_pool_bytes(const Model& model, const OllamaDecisions& d, const std::vector<LlamaCppGpu>& gpus,
                        const EngineGraphRun& run) {
  uint64_t pool = 0;
  for (const LlamaCppGpu& g : gpus) pool = std::max(pool, own_engine_gpu_pool_bytes(model, d, g.device, run));
  return pool;
}

// Ollama's own engine measures its buffers at load (the server's fit and
// alloc requests; runner/ollamarunner/runner.go reserveWorstCaseGraph):
// each layer's weights (Ollama's grouping) and cache (llama.cpp's rules,
// windows kept), and the graph the engine reserves: its own replayed
// where memfit mirrors the family's Forward (engine_graph.h) with the GPU
// backend's pool where memfit replays it (gpu_pool_bytes), else llama.cpp's
// largest phase, a stand-in.
Result<LayerSizes> ollama_runner_sizes(const Model& model, const OllamaDecisions& d,
                                       const LlamaCppSettings& settings) {
  Result<LayerSizes> sizes = llama_runner_sizes(model, d);
  if (!sizes) return sizes.error();
  Result<LlamaCppContext> context = resolve_llamacpp_context(model.spec, settings);
  if (!context) return context.error();
  Result<llamacpp::MemoryParts> parts = llamacpp::memory_parts(model.spec, *context, settings);
  if (!parts) return parts.error();
  Result<llamacpp::ComputePhases> phases = llamacpp::compute_phases(model.spec, *context, settings);
  if (!phases) return phases.error();
  // Each layer's cache, with its recurrent state's checkpoints (engine_cache.h).
  const uint64_t checkpoints =
      own_engine_recurrent_checkpoints(d.release, ollama_architecture(model.spec.model_type));
  for (size_t i = 0; i < parts->layer_bytes.size() && i + 1 < sizes->layer_bytes.size(); ++i) {
    const CheckedBytes saved = i < model.spec.layers.size()
                                   ? CheckedBytes(model.spec.layers[i].state_bytes) * checkpoints * d.parallel
                                   : CheckedBytes(0);
    sizes->layer_bytes[i] = (saved + sizes->weights_bytes[i] + parts->layer_bytes[i]).saturated();
  }
  sizes->first_layer_buffer_bytes = 0;
  uint64_t graph = std::max({phases->output, phases->attention, phases->ffn});
  const EngineGraphRun run = own_engine_graph_run(d, /*on_gpu=*/true, /*output_layer=*/true);
  Result<std::optional<uint64_t>> own = engine_graph_bytes(model.spec, run);
  if (!own) return own.error();
  if (own->has_value()) {
    graph = (CheckedBytes(**own) + gpu_pool_bytes(model, d, settings.placement.gpus, run)).saturated();
  }
  sizes->graph_full_bytes = sizes->graph_partial_bytes = graph;
  return sizes;
}

void apply_context(const OllamaDecisions& d, LlamaCppSettings& s) {
  s.ctx_size = (CheckedBytes(d.context.num_ctx) * d.parallel).saturated();
  s.parallel = d.parallel;
  const RunnerBatch batch = runner_batch(d.release, d.num_batch, d.parallel);
  s.batch_size = batch.n_batch;
  s.ubatch_size = batch.n_ubatch;
  // llama.cpp's runner prices its release's vendored llama.cpp (one cache
  // for every sequence before v0.11.5, ...); Ollama's own engine keeps
  // its own cache, priced by the pinned rules.
  s.build = d.runner == OllamaRunner::kLlama ? vendored_llamacpp_build(d.release) : std::nullopt;
  // The llama runner's context asks for embeddings (llama/llama.go,
  // NewContextParams: params.embeddings = true): its output buffer keeps
  // n_embd floats a row beside the logits.
  s.output_embeddings = d.runner == OllamaRunner::kLlama;
  // Neither runner limits the prompt graph's output rows: llama.cpp's
  // n_outputs_max (#23861) came after every build a runner vendors (b9460;
  // v0.24.0's is b7108), so s.outputs_max stays 0, every token of the
  // ubatch an output row. From v0.30.0 Ollama's llama-server sets it.
  // The llama runner keeps llama_context_default_params' swa_full, which
  // NewContextParams never sets: true in every vendored llama.cpp that has
  // it (llama/llama.cpp/src/llama-context.cpp, `/*.swa_full =*/ true`,
  // v0.11.5 to v0.24.0), so a sliding-window layer caches all of its
  // stream's cells ("llama_kv_cache_iswa: using full-size SWA cache" in
  // the runner's log); older builds cache the whole context anyway.
  if (d.runner == OllamaRunner::kLlama) s.swa_full = true;
  s.cache_type_k = s.cache_type_v = d.kv_type;
  s.flash_attn = d.flash_attn;
  s.placement.mmap = d.mmap;
  // Every release's llama.cpp offloads the last N blocks, the output layer
  // only past n_layer (docs/engine-ollama.md, "Ollama's layer list").
  s.placement.output_layer_first = false;
  if (d.runner == OllamaRunner::kOllama) {
    // Ollama's own engine keeps one cache for every sequence
    // (kvcache.Causal: maxSequences x capacity cells, its reserved graph
    // attending over all of them) and reserves a batch of num_batch tokens
    // (runner/ollamarunner/runner.go, reserveWorstCaseGraph).
    s.kv_unified = true;
    s.batch_size = s.ubatch_size = d.num_batch;
    // ml/backend/ggml/ggml.go (New): a tied output's token_embd created a
    // second time in the output layer's buffer, on the host too.
    s.placement.tied_output_copy_everywhere = true;
    s.cell_pad = own_engine_cache_padding(d.release, d.flash_attn == FlashAttn::kOn);
  }
  s.placement.gpu_margin_bytes = (CheckedBytes(kMinimumMemoryBytes) + d.given.gpu_overhead_bytes).saturated();
  if (s.placement.unified) {
    s.placement.gpu_margin_bytes = (CheckedBytes(kMetalMinimumMemoryBytes) + d.given.gpu_overhead_bytes).saturated();
  }
}

}  // namespace

EngineGraphRun own_engine_graph_run(const OllamaDecisions& d, bool on_gpu, bool output_layer) {
  const bool flash = d.flash_attn == FlashAttn::kOn;
  const uint64_t context = (CheckedBytes(d.context.num_ctx) * d.parallel).saturated();
  const uint64_t pad = own_engine_cache_padding(d.release, flash);
  return EngineGraphRun{.num_batch = d.num_batch, .parallel = d.parallel,
                        .cells = round_up(CheckedBytes(context), pad).value().value_or(0),
                        .context = context, .padding = pad, .flash_attention = flash,
                        .mask_cast = own_engine_reserve_casts_mask(d.release),
                        .on_gpu = on_gpu, .output_layer = output_layer};
}

std::vector<SchedulerGpu> scheduler_gpus(const PreparedRequest& p) {
  std::vector<SchedulerGpu> gpus;
  const LlamaCppPlacementSettings& placement = p.llamacpp_settings.placement;
  for (size_t i = 0; i < placement.gpus.size(); ++i) {
    const LlamaCppGpu& g = placement.gpus[i];
    SchedulerGpu s{g.device, g.free_bytes, g.free_bytes, placement.unified};
    if (placement.unified) s.total_bytes = p.budget.budget_bytes;
    for (const GpuMemory& h : p.host.gpus) {
      const std::string device =
          fmt::format("{}:{}", h.vendor == GpuVendor::kNvidia ? "cuda" : "rocm", h.index);
      if (device == g.device) s.total_bytes = h.total_bytes;
    }
    gpus.push_back(std::move(s));
  }
  return gpus;
}

Result<OllamaDecisions> plan_load(const OllamaRequest& given, PreparedRequest& p) {
  if (!given.machine_gpus.empty()) p.llamacpp_settings.placement.gpus = given.machine_gpus;
  const std::vector<SchedulerGpu> gpus = scheduler_gpus(p);
  OllamaDecisions d = decide_defaults(given, *p.model, gpus);
  LlamaCppSettings& s = p.llamacpp_settings;
  if (d.runner == OllamaRunner::kLlamaServer) {
    if (Status st = apply_llama_server(p.model->spec, d, s); !st) return st.error();
    // A load planned before (fit's tries reuse the request) leaves its
    // --fit choice here; the profile takes no -ot of the user's.
    s.placement.n_gpu_layers = std::nullopt;
    s.placement.tensor_split.clear();
    s.placement.overrides.clear();
    if (gpus.empty()) return d;
    if (d.single_gpu && *d.single_gpu < s.placement.gpus.size()) {
      s.placement.gpus = {s.placement.gpus[*d.single_gpu]};
    }
    if (given.num_gpu) {
      // -ngl num_gpu (0: the host alone), llama.cpp's default split.
      s.placement.n_gpu_layers = *given.num_gpu;
      d.gpu_layers = std::min(*given.num_gpu, d.total_layers);
      return d;
    }
    if (Status st = fit_layers(*p.model, p.budget, s, d); !st) return st.error();
    return d;
  }
  apply_context(d, s);
  // The own engine's sliding-window cells (engine_cache.h), priced by the
  // llama.cpp rules on the model's layers as Ollama sizes them.
  if (d.runner == OllamaRunner::kOllama) {
    auto model = std::make_shared<Model>(*p.model);
    model->spec = own_engine_cache_spec(p.model->spec, d.parallel, d.context.num_ctx);
    p.model = std::move(model);
  }
  s.placement.n_gpu_layers = std::nullopt;
  s.placement.tensor_split.clear();
  if (gpus.empty()) return d;
  Result<LayerSizes> sizes =
      d.runner == OllamaRunner::kLlama ? llama_runner_sizes(*p.model, d) : ollama_runner_sizes(*p.model, d, s);
  if (!sizes) return sizes.error();
  // "On Metal there's no partial offload overhead" (llamaServer.Load).
  if (gpus.front().metal) sizes->graph_partial_bytes = sizes->graph_full_bytes;
  place_layers(*sizes, gpus, d);
  s.placement.n_gpu_layers = d.gpu_layers;
  if (gpus.size() > 1 && d.gpu_layers > 0) {
    for (uint64_t n : d.layers_per_gpu) s.placement.tensor_split.push_back(static_cast<double>(n));
  }
  return d;
}

SpeedPlan ollama_speed_plan(const PreparedRequest& p, const LlamaCppEstimate& e) {
  SpeedPlan plan = llamacpp_speed_plan(p, e);
  // A GGUF's pooling type sets by_architecture (model_spec.h).
  if (p.model->spec.embedding.by_architecture) {
    plan.no_decode = "an embedding model: Ollama returns vectors (/api/embed), not tokens";
  }
  return plan;
}

std::string launch_command(const OllamaDecisions& d, std::string_view model_path) {
  std::string env;
  const OllamaRequest& g = d.given;
  if (g.num_parallel) env += fmt::format("OLLAMA_NUM_PARALLEL={} ", *g.num_parallel);
  if (g.flash_attention) env += fmt::format("OLLAMA_FLASH_ATTENTION={} ", *g.flash_attention ? 1 : 0);
  if (g.kv_cache_type) env += fmt::format("OLLAMA_KV_CACHE_TYPE={} ", ggml_type_traits(*g.kv_cache_type).name);
  if (g.gpu_overhead_bytes) env += fmt::format("OLLAMA_GPU_OVERHEAD={} ", g.gpu_overhead_bytes);
  if (g.context_length) env += fmt::format("OLLAMA_CONTEXT_LENGTH={} ", *g.context_length);
  if (g.sched_spread) env += "OLLAMA_SCHED_SPREAD=1 ";
  std::string text = env + "ollama serve\n";
  text += fmt::format("Modelfile: FROM {}\n", model_path);
  if (g.num_ctx) text += fmt::format("PARAMETER num_ctx {}\n", *g.num_ctx);
  if (g.num_gpu) text += fmt::format("PARAMETER num_gpu {}\n", *g.num_gpu);
  if (g.num_batch) text += fmt::format("PARAMETER num_batch {}\n", *g.num_batch);
  text += "ollama create NAME -f Modelfile && ollama run NAME\n";
  return text;
}

nlohmann::ordered_json decisions_to_json(const OllamaDecisions& d, const std::vector<SchedulerGpu>& gpus) {
  nlohmann::ordered_json per_gpu = nlohmann::ordered_json::array();
  for (size_t i = 0; i < gpus.size() && i < d.layers_per_gpu.size() && i < d.estimate_weights_bytes.size(); ++i) {
    per_gpu.push_back({{"device", gpus[i].device},
                       {"layers", d.layers_per_gpu[i]},
                       {"weights_bytes", d.estimate_weights_bytes[i]},
                       {"cache_bytes", d.estimate_cache_bytes[i]},
                       {"graph_bytes", d.estimate_graph_bytes[i]}});
  }
  return {{"release", to_string(d.release)},
          {"runner", to_string(d.runner)},
          {"num_ctx", d.context.num_ctx},
          {"num_ctx_source", d.context.source},
          {"total_vram_bytes", d.context.total_vram_bytes},
          {"parallel", d.parallel},
          {"kv_cells", d.context.num_ctx * d.parallel},
          {"num_batch", d.num_batch},
          {"flash_attention", to_string(d.flash_attn)},
          {"kv_cache_type", ggml_type_traits(d.kv_type).name},
          {"gpu_layers", d.gpu_layers},
          {"total_layers", d.total_layers},
          {"graph_partial_bytes", d.graph_partial_bytes},
          {"graph_full_bytes", d.graph_full_bytes},
          {"layers_by", d.runner != OllamaRunner::kLlamaServer ? "scheduler"
                        : d.fit_placed                         ? "llama.cpp --fit"
                        : d.given.num_gpu                      ? "num_gpu"
                                                               : "none"},
          {"scheduler", std::move(per_gpu)}};
}

std::string render_decisions_text(const OllamaDecisions& d, const std::vector<SchedulerGpu>& gpus) {
  std::string text = fmt::format(
      "Ollama {}: runner {}, num_ctx {} ({}), parallel {} (KV cells {}), num_batch {}, flash "
      "attention {}, KV {}\n",
      to_string(d.release), to_string(d.runner), d.context.num_ctx, d.context.source, d.parallel, d.context.num_ctx * d.parallel,
      d.num_batch, to_string(d.flash_attn), ggml_type_traits(d.kv_type).name);
  if (!gpus.empty() && d.runner == OllamaRunner::kLlamaServer) {
    if (!d.fit_placed) {
      return text + fmt::format("llama-server: -ngl {} (num_gpu): {}/{} layers on the GPUs, llama.cpp's split\n",
                                *d.given.num_gpu, d.gpu_layers, d.total_layers);
    }
    text += fmt::format("llama-server --fit: {}/{} layers on the GPUs (each GPU's free memory less {} MiB)",
                        d.gpu_layers, d.total_layers, kFitTargetBytes >> 20);
    for (size_t i = 0; i < gpus.size() && i < d.layers_per_gpu.size(); ++i) {
      text += fmt::format("; {} {}", gpus[i].device, d.layers_per_gpu[i]);
      if (i < d.overflowing_per_gpu.size() && d.overflowing_per_gpu[i] > 0) {
        text += fmt::format(" ({} overflowing)", d.overflowing_per_gpu[i]);
      }
    }
    return text + "\n";
  }
  if (!gpus.empty()) {
    text += fmt::format("scheduler: {}/{} layers on the GPUs", d.gpu_layers, d.total_layers);
    for (size_t i = 0; i < gpus.size() && i < d.layers_per_gpu.size(); ++i) {
      text += fmt::format("; {} {} (Ollama's estimate: weights {:.2f} GiB, cache {:.2f} GiB, graph {:.2f} GiB)",
                          gpus[i].device, d.layers_per_gpu[i], d.estimate_weights_bytes[i] / 1073741824.0,
                          d.estimate_cache_bytes[i] / 1073741824.0, d.estimate_graph_bytes[i] / 1073741824.0);
    }
    text += "\n";
  }
  return text;
}

}  // namespace memfit::ollama
