// Ollama's decisions applied to the llama.cpp settings (docs/engine-ollama.md):
// the runner gets n_ctx = num_ctx x parallel, n_seq_max = parallel,
// n_batch = num_batch x parallel, n_ubatch = num_batch (llama/llama.go,
// NewContextParams; older releases' in releases.h), the llama.cpp build
// its release vendors, the KV type and flash attention decided, and the
// scheduler's layers per GPU as -ngl and the split.
#include "engines/ollama/plan.h"

#include <fmt/format.h>

#include "engines/llamacpp/parts.h"
#include "memfit/llama_server.h"
#include "engines/ollama/engine_cache.h"
#include "engines/ollama/releases.h"
#include "engines/llamacpp/speed_plan.h"
#include "memfit/checked_math.h"

namespace memfit::ollama {
namespace {

// Ollama's own engine measures its buffers at load (the server's fit and
// alloc requests; runner/ollamarunner/runner.go reserveWorstCaseGraph):
// each layer's weights (Ollama's grouping) and cache (llama.cpp's rules,
// windows kept), and the graph the engine reserves: its own replayed
// where memfit mirrors the family's Forward (engine_graph.h), else
// llama.cpp's largest phase, a stand-in.
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
  Result<std::optional<uint64_t>> own =
      engine_graph_bytes(model.spec, own_engine_graph_run(d, /*on_gpu=*/true, /*output_layer=*/true));
  if (!own) return own.error();
  if (own->has_value()) graph = **own;
  sizes->graph_full_bytes = sizes->graph_partial_bytes = graph;
  return sizes;
}

// llama-server as llm/llama_server.go starts it (v0.30.0 on): -c num_ctx
// x parallel -np parallel (a stream a slot: no --kv-unified), -b and -ub
// num_batch, the cache types and --flash-attn decided, --embedding for an
// embedding model, no -ngl unless num_gpu gives it; llama-server's own
// defaults for the rest (memfit/llama_server.h: one output row a slot from
// b9460, the host's prompt cache), at the release's LLAMA_CPP_VERSION
// build, with llama.cpp's repacking, windows and output-first offload.
Status apply_llama_server(const ModelSpec& spec, const OllamaDecisions& d, LlamaCppSettings& s) {
  s.ctx_size = (CheckedBytes(d.context.num_ctx) * d.parallel).saturated();
  s.parallel = d.parallel;
  s.kv_unified = false;
  s.batch_size = s.ubatch_size = d.num_batch;
  s.build = vendored_llamacpp_build(d.release);
  s.embedding = d.embedding;
  s.cache_type_k = s.cache_type_v = d.kv_type;
  s.flash_attn = d.flash_attn;
  s.placement.mmap = d.mmap;
  s.placement.gpu_margin_bytes = kFitTargetBytes;
  return apply_llama_server_rules(spec, /*parallel_given=*/true, s);
}

// llama.cpp's --fit (common/fit.cpp, common_params_fit_impl; llama.cpp
// #16653, read at ggml-org/llama.cpp 08033df), for a run that gives no
// -ngl. Each GPU's target is its free memory less kFitTargetBytes.
//  1. Every layer offloaded at the default split keeps every target: no change.
//  2. The context: Ollama's -c is the user's, which --fit leaves alone.
//  3. Back to front, the last GPU first, each GPU takes the most of the
//     layers not yet given (the output layer and the last blocks) whose
//     memory stays within its target; a MoE model's layers "dense-only"
//     (their experts on the host), the output layer whole.
//  4. A MoE model whose dense weights all fit with room to spare
//     (global_surplus_cpu_moe > 0): front to back, each GPU turns the most
//     dense-only layers into full ones, then tries one more layer with its
//     up experts on it (overflow UP: gate and down to the next GPU, else
//     the host), then its gate too (GATE), else its attention alone (ATTN).
// The search takes the most layers that fit by bisection where llama.cpp
// steps by false position: the same answer when memory grows with the
// layers. The overrides are set_ngl_tensor_split_tbo's (as check-log reads
// a log's choice, src/logs/llamacpp_fit.cc).
enum class Fraction { kMoe, kUp, kGate, kAttn };

struct FitDevice {
  uint64_t n_layer = 0;
  uint64_t n_part = 0;  // dense-only layers, the last n_part of its n_layer
  Fraction overflow = Fraction::kMoe;
  std::optional<uint64_t> overflow_gpu;  // the first partial layer's buffer; nullopt: the host
  uint64_t full() const { return n_layer - n_part; }
};

std::string fraction_pattern(uint64_t il, Fraction f) {
  switch (f) {
    case Fraction::kUp:
      return fmt::format("blk\\.{}\\.ffn_(gate|gate_up|down)", il);
    case Fraction::kGate:
      return fmt::format("blk\\.{}\\.ffn_down", il);
    case Fraction::kAttn:
      return fmt::format("blk\\.{}\\.ffn_(gate|up|gate_up|down)", il);
    case Fraction::kMoe:
      break;
  }
  return fmt::format("blk\\.{}\\.ffn_(up|down|gate_up|gate)_(ch)?exps", il);
}

// -ngl, -ts and the overrides of `devices` (set_ngl_tensor_split_tbo).
void set_fit_placement(const std::vector<FitDevice>& devices, uint64_t total, LlamaCppPlacementSettings& p) {
  uint64_t ngl = 0;
  for (const FitDevice& f : devices) ngl += f.n_layer;
  p.n_gpu_layers = ngl;
  p.tensor_split.clear();
  if (devices.size() > 1 && ngl > 0) {
    for (const FitDevice& f : devices) p.tensor_split.push_back(static_cast<double>(f.n_layer));
  }
  p.overrides.clear();
  uint64_t il0 = total - std::min(ngl, total);
  for (const FitDevice& f : devices) {
    il0 += f.full();
    for (uint64_t il = il0; il < il0 + f.n_part; ++il) {
      if (il + 1 >= total) continue;  // the output layer's index: no tensor is "blk.N"
      p.overrides.push_back(il == il0 ? LlamaCppTensorOverride{fraction_pattern(il, f.overflow), f.overflow_gpu}
                                      : LlamaCppTensorOverride{fraction_pattern(il, Fraction::kMoe), std::nullopt});
    }
    il0 += f.n_part;
  }
}

class FitSearch {
 public:
  FitSearch(const Model& model, const MemoryBudget& budget, const LlamaCppSettings& s, uint64_t total)
      : model_(model), budget_(budget), s_(s), total_(total) {}

  // Each GPU's memory (model + context + compute + extras) at `devices`.
  Result<std::vector<uint64_t>> memory(const std::vector<FitDevice>& devices) const {
    LlamaCppSettings t = s_;
    set_fit_placement(devices, total_, t.placement);
    return memory_of(t);
  }
  Result<std::vector<uint64_t>> memory_of(const LlamaCppSettings& t) const {
    Result<LlamaCppEstimate> e = estimate_llamacpp(model_, t, budget_);
    if (!e) return e.error();
    std::vector<uint64_t> bytes(gpus(), 0);
    for (size_t id = 0; id < gpus(); ++id) {
      for (const LlamaCppDeviceUsage& u : e->placement.devices) {
        if (u.device == s_.placement.gpus[id].device) bytes[id] = u.total_bytes;
      }
    }
    return bytes;
  }
  int64_t target(size_t id) const {
    return static_cast<int64_t>(s_.placement.gpus[id].free_bytes) - static_cast<int64_t>(kFitTargetBytes);
  }
  bool within(const std::vector<uint64_t>& mem, size_t id) const {
    return static_cast<int64_t>(mem[id]) <= target(id);
  }
  size_t gpus() const { return s_.placement.gpus.size(); }
  // The largest v in [lo, hi] whose `at(v)` keeps GPU id within its
  // target, lo taken to fit.
  template <typename At>
  Result<uint64_t> most(uint64_t lo, uint64_t hi, size_t id, At at) const {
    while (hi > lo) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      Result<std::vector<uint64_t>> mem = memory(at(mid));
      if (!mem) return mem.error();
      if (within(*mem, id)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

 private:
  const Model& model_;
  const MemoryBudget& budget_;
  const LlamaCppSettings& s_;
  uint64_t total_;
};

Status fit_layers(const Model& model, const MemoryBudget& budget, LlamaCppSettings& s, OllamaDecisions& d) {
  const size_t nd = s.placement.gpus.size();
  const uint64_t total = d.total_layers;
  const bool moe = model.spec.moe.experts > 0;
  FitSearch search(model, budget, s, total);
  const auto done = [&](const std::vector<FitDevice>& devices) {
    set_fit_placement(devices, total, s.placement);
    d.gpu_layers = *s.placement.n_gpu_layers;
    d.layers_per_gpu.clear();
    d.overflowing_per_gpu.clear();
    for (const FitDevice& f : devices) {
      d.layers_per_gpu.push_back(f.n_layer);
      d.overflowing_per_gpu.push_back(f.n_part);
    }
    d.fit_placed = true;
    return Status::Ok();
  };
  // Step 1: every layer at llama.cpp's default split.
  {
    LlamaCppSettings t = s;
    t.placement.n_gpu_layers = total;
    Result<std::vector<uint64_t>> mem = search.memory_of(t);
    if (!mem) return mem.error();
    bool fits = true;
    for (size_t id = 0; id < nd; ++id) fits = fits && search.within(*mem, id);
    if (fits) {
      Result<LlamaCppEstimate> e = estimate_llamacpp(model, t, budget);
      if (!e) return e.error();
      s.placement.n_gpu_layers = total;
      d.gpu_layers = total;
      d.layers_per_gpu.assign(nd, 0);
      d.overflowing_per_gpu.assign(nd, 0);
      for (size_t id = 0; id < nd; ++id) {
        for (const LlamaCppDeviceUsage& u : e->placement.devices) {
          if (u.device == s.placement.gpus[id].device) d.layers_per_gpu[id] = u.blocks + (u.output_layer ? 1 : 0);
        }
      }
      d.fit_placed = true;
      return Status::Ok();
    }
  }
  // A MoE model's surplus with every expert on the host.
  int64_t surplus_cpu_moe = 0;
  if (moe) {
    LlamaCppSettings t = s;
    t.placement.n_gpu_layers = total;
    t.placement.overrides = {{"blk\\.\\d+\\.ffn_(up|down|gate_up|gate)_(ch)?exps", std::nullopt}};
    Result<std::vector<uint64_t>> mem = search.memory_of(t);
    if (!mem) return mem.error();
    for (size_t id = 0; id < nd; ++id) surplus_cpu_moe += search.target(id) - static_cast<int64_t>((*mem)[id]);
  }
  // Step 3: back to front.
  std::vector<FitDevice> devices(nd);
  for (size_t id = nd; id-- > 0;) {
    uint64_t unassigned = total;
    for (size_t j = id + 1; j < nd; ++j) unassigned -= devices[j].n_layer;
    const auto at = [&](uint64_t k) {
      std::vector<FitDevice> t = devices;
      t[id].n_layer = k;
      t[id].n_part = !moe ? 0 : id + 1 < nd ? k : (k > 0 ? k - 1 : 0);
      return t;
    };
    Result<uint64_t> k = search.most(0, unassigned, id, at);
    if (!k) return k.error();
    devices = at(*k);
  }
  if (!moe || surplus_cpu_moe <= 0) return done(devices);
  // Step 4: front to back, dense-only layers made full.
  size_t dense_start = nd;
  for (size_t id = nd; id-- > 0;) {
    if (devices[id].n_layer == 0) break;
    dense_start = id;
  }
  for (size_t id = 0; id <= dense_start && dense_start < nd; ++id) {
    // Converting c dense-only layers (from dense_start on) into full ones on GPU id.
    const auto convert = [&](uint64_t c, size_t* start) {
      std::vector<FitDevice> t = devices;
      size_t jd = dense_start;
      uint64_t converted = 0;
      for (; jd < nd; ++jd) {
        const uint64_t n = std::min(c - converted, t[jd].n_part);
        t[jd].n_layer -= n;
        t[jd].n_part -= n;
        t[id].n_layer += n;
        converted += n;
        if (t[jd].n_part > 0) break;
      }
      if (start != nullptr) *start = jd;
      return t;
    };
    uint64_t convertible = 0;
    for (size_t jd = dense_start; jd < nd; ++jd) convertible += devices[jd].n_part;
    Result<uint64_t> c = search.most(0, convertible, id, [&](uint64_t v) { return convert(v, nullptr); });
    if (!c) return c.error();
    size_t start = dense_start;
    devices = convert(*c, &start);
    dense_start = std::min(start, nd - 1);
    // One more layer, part of it on GPU id.
    if (start < nd && devices[dense_start].n_layer > (id + 1 < nd ? 0u : 1u) && devices[dense_start].n_part > 0) {
      std::vector<FitDevice> t = devices;
      t[dense_start].n_layer--;
      t[dense_start].n_part--;
      t[id].n_layer++;
      t[id].n_part++;
      const size_t start_test = t[dense_start].n_part == 0 ? dense_start + 1 : dense_start;
      t[id].overflow_gpu = id + 1 < nd ? std::optional<uint64_t>(id + 1) : std::nullopt;
      const auto try_fraction = [&](Fraction f) -> Result<bool> {
        t[id].overflow = f;
        Result<std::vector<uint64_t>> mem = search.memory(t);
        if (!mem) return mem.error();
        const auto under = [&](size_t i) { return static_cast<int64_t>((*mem)[i]) < search.target(i); };
        if (!under(id) || (id + 1 < nd && !under(id + 1))) return false;
        devices = t;
        dense_start = std::min(start_test, nd - 1);
        return true;
      };
      Result<bool> up = try_fraction(Fraction::kUp);
      if (!up) return up.error();
      if (*up) {
        if (Result<bool> gate = try_fraction(Fraction::kGate); !gate) return gate.error();
      } else if (Result<bool> attn = try_fraction(Fraction::kAttn); !attn) {
        return attn.error();
      }
    }
    if (start >= nd) break;
  }
  return done(devices);
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
  const std::vector<SchedulerGpu> gpus = scheduler_gpus(p);
  OllamaDecisions d = decide_defaults(given, *p.model, gpus);
  LlamaCppSettings& s = p.llamacpp_settings;
  if (d.runner == OllamaRunner::kLlamaServer) {
    if (Status st = apply_llama_server(p.model->spec, d, s); !st) return st.error();
    s.placement.n_gpu_layers = std::nullopt;
    s.placement.tensor_split.clear();
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
