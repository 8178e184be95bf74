// The ollama profile (engine.h): what the pinned Ollama (v0.24.0) decides
// for a GGUF model, its defaults and its scheduler's layers per GPU
// (defaults.cc, scheduler.cc), priced by the llamacpp profile's rules
// (docs/engine-ollama.md). Its settings are the llamacpp profile's
// (PreparedRequest::llamacpp_settings, EstimateRun::llamacpp); Ollama's
// decisions are in engine_settings and engine_estimate (OllamaDecisions).
#include <fmt/format.h>

#include <algorithm>

#include "engines/builtin.h"
#include "engines/llamacpp/speed_plan.h"
#include "engines/ollama/engine_cache.h"
#include "engines/ollama/engine_graph.h"
#include "engines/ollama/fields.h"
#include "engines/ollama/fit.h"
#include "engines/ollama/own_pool.h"
#include "engines/ollama/plan.h"
#include "engines/ollama/releases.h"
#include "engines/shared/trained_context.h"
#include "memfit/checked_math.h"
#include "memfit/gguf.h"
#include "memfit/llamacpp_report.h"
#include "memfit/request.h"

namespace memfit::engines {
namespace {

using ollama::OllamaDecisions;
using ollama::OllamaRequest;

const EngineProfile& llamacpp_profile() { return *EngineRegistry::instance().find("llamacpp"); }

// A device's compute buffer replaced by `graph` bytes, with the device's,
// the estimate's totals and the fit following.
void set_device_graph(LlamaCppDeviceUsage& device, uint64_t graph, LlamaCppEstimate& e) {
  const uint64_t before = device.compute_bytes;
  device.compute_bytes = graph;
  device.total_bytes = (CheckedBytes(device.total_bytes) - before + graph).saturated();
  e.compute_bytes = (CheckedBytes(e.compute_bytes) - before + graph).saturated();
  e.total_bytes = (CheckedBytes(e.total_bytes) - before + graph).saturated();
  device.fits = device.total_bytes <= device.usable_bytes;
  device.short_bytes = device.fits ? 0 : device.total_bytes - device.usable_bytes;
}

// Ollama's own engine builds its own graph (engine_graph.h): the device
// that runs every block has that graph's replay where memfit mirrors the
// family (qwen3, qwen3moe); a host that runs no block has its token rows
// and output rows (engine_cache.h, own_engine_host_graph_bytes). Any other
// device keeps llama.cpp's phases, a stand-in (docs/engine-ollama.md,
// "Ollama's own engine").
Status price_own_engine_graph(const Model& model, const OllamaDecisions& d, LlamaCppEstimate& e) {
  if (d.runner != ollama::OllamaRunner::kOllama) return Status::Ok();
  std::vector<LlamaCppDeviceUsage>& devices = e.placement.devices;
  const uint64_t blocks = model.spec.layers.size();
  // llama.cpp's replay of its own graph is not this engine's.
  e.compute_replayed = false;
  for (LlamaCppDeviceUsage& device : devices) {
    if (blocks == 0 || device.blocks != blocks) continue;
    const ollama::EngineGraphRun run =
        ollama::own_engine_graph_run(d, /*on_gpu=*/device.device != "cpu", device.output_layer);
    Result<std::optional<uint64_t>> graph = ollama::engine_graph_bytes(model.spec, run);
    if (!graph) return graph.error();
    if (!graph->has_value()) continue;
    // The GPU backend's pool the record adds where memfit replays it (own_pool.h).
    const uint64_t pool = ollama::own_engine_gpu_pool_bytes(model, d, device.device, run);
    set_device_graph(device, (CheckedBytes(**graph) + pool).saturated(), e);
    // A run on the host alone: the record is the replay (no pool).
    e.compute_replayed = devices.size() == 1 && !run.on_gpu;
  }
  if (devices.size() >= 2 && devices.back().device == "cpu" && devices.back().blocks == 0) {
    const ModelGeometry& g = model.spec.geometry;
    set_device_graph(devices.back(),
                     ollama::own_engine_host_graph_bytes(g.hidden, g.vocab, d.num_batch, d.parallel,
                                                         devices.back().output_layer),
                     e);
  }
  e.placement.fits = std::all_of(devices.begin(), devices.end(), [](const auto& u) { return u.fits; });
  e.fits = e.placement.fits;
  return Status::Ok();
}

// Each device's first block as llama.cpp places them: the host's blocks
// first, then each GPU's in order (the devices list the GPUs, then "cpu").
std::vector<uint64_t> first_blocks(const std::vector<LlamaCppDeviceUsage>& devices) {
  std::vector<uint64_t> first(devices.size(), 0);
  uint64_t next = devices.empty() || devices.back().device != "cpu" ? 0 : devices.back().blocks;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].device == "cpu") continue;
    first[i] = next;
    next += devices[i].blocks;
  }
  return first;
}

// Ollama's own engine's recurrent cache also reserves its checkpoints
// (engine_cache.h, own_engine_recurrent_checkpoints): `count` copies of
// each recurrent layer's state a sequence, in each device's context.
void price_own_engine_checkpoints(const Model& model, const OllamaDecisions& d, LlamaCppEstimate& e) {
  if (d.runner != ollama::OllamaRunner::kOllama) return;
  const uint64_t count =
      ollama::own_engine_recurrent_checkpoints(d.release, ollama::ollama_architecture(model.spec.model_type));
  if (count == 0) return;
  const std::vector<LayerCache>& layers = model.spec.layers;
  std::vector<LlamaCppDeviceUsage>& devices = e.placement.devices;
  const std::vector<uint64_t> first = first_blocks(devices);
  CheckedBytes added(0);
  for (size_t i = 0; i < devices.size(); ++i) {
    CheckedBytes bytes(0);
    for (uint64_t l = first[i]; l < first[i] + devices[i].blocks && l < layers.size(); ++l) {
      bytes = bytes + CheckedBytes(layers[l].state_bytes) * count * d.parallel;
    }
    LlamaCppDeviceUsage& u = devices[i];
    u.context_bytes = (bytes + u.context_bytes).saturated();
    u.total_bytes = (bytes + u.total_bytes).saturated();
    u.fits = u.total_bytes <= u.usable_bytes;
    u.short_bytes = u.fits ? 0 : u.total_bytes - u.usable_bytes;
    added = added + bytes;
  }
  e.recurrent_bytes = (added + e.recurrent_bytes).saturated();
  e.context_bytes = (added + e.context_bytes).saturated();
  e.total_bytes = (added + e.total_bytes).saturated();
  e.placement.fits = std::all_of(devices.begin(), devices.end(), [](const auto& u) { return u.fits; });
  e.fits = devices.empty() ? e.total_bytes <= e.budget_bytes : e.placement.fits;
}

// The common fields Ollama names otherwise.
Status refuse_common(const EstimateRequest& r) {
  if (r.cache_type_k || r.cache_type_v || r.llamacpp.cache_type_k || r.llamacpp.cache_type_v) {
    return Error::usage(r.cache_type_k || r.llamacpp.cache_type_k ? "cache_type_k" : "cache_type_v",
                        "is OLLAMA_KV_CACHE_TYPE under ollama: give ollama_kv_cache_type");
  }
  if (r.max_tokens && r.engine_fields.contains("num_ctx")) {
    return Error::usage("max_tokens", "and num_ctx are both the context: give one (num_ctx is "
                                      "Ollama's name)");
  }
  return Status::Ok();
}

class OllamaProfile final : public ollama::OllamaCommands {
 public:
  std::string_view name() const override { return "ollama"; }
  std::string_view title() const override { return "Ollama"; }
  std::span<const RequestField> fields() const override { return ollama::fields(); }
  std::string_view summary() const override {
    return "what Ollama decides for a GGUF model (its context, sequences and layers per GPU), "
           "priced by its runner's rules: llama.cpp's buffers, or its own engine's cache and graph";
  }
  // is_default_for stays false (a Model does not know its store): the
  // request path gives a model of Ollama's store this engine
  // (request.cc, with_store_defaults).
  std::string_view default_for_text() const override { return "models of Ollama's store (ollama:NAME)"; }
  std::string_view release() const override { return "Ollama v0.32.15"; }
  EngineVersions versions() const override {
    return {.field = "ollama_version",
            .default_text = "the newest release read, v0.32.15: the VRAM tier's num_ctx, one "
                            "sequence, llama-server at b10488 with a stream per slot, flash "
                            "attention auto and the automatic num_batch, the layers by llama.cpp's --fit",
            .differences = ollama::release_differences()};
  }
  // Its llama.cpp runner's n_ctx_train: the GGUF's context_length, rope
  // scaling not considered (Ollama clamps num_ctx to it).
  uint64_t context_limit_tokens(const Model& model) const override {
    return declared_context(model.spec).tokens;
  }

  Status resolve(const EstimateRequest& r, PreparedRequest& p) const override {
    if (Status refused = refuse_common(r); !refused) return refused;
    Result<OllamaRequest> given = ollama::read_ollama_request(r);
    if (!given) return given.error();
    if (given->gpus_free && r.machine.given()) {
      return Error::usage("ollama_gpus_free", "and the machine's gpu or mac both give the GPUs' "
                                              "memory: give one");
    }
    // The architecture describes the GPUs ollama_gpus_free gives (check-log's
    // from the discovery's compute=); a machine's GPU is a catalogue row.
    if (given->gpu_arch && r.machine.given()) {
      return Error::usage("ollama_gpu_arch", "describes the GPUs of ollama_gpus_free, not the machine's "
                                             "gpu or mac: give it with ollama_gpus_free");
    }
    // max_tokens is num_ctx under ollama; Ollama clamps it to the trained
    // context, so llama.cpp's warning past it is not asked for.
    if (r.max_tokens) given->num_ctx = *r.max_tokens;
    EstimateRequest as_llamacpp = r;
    as_llamacpp.max_tokens.reset();
    if (Status s = llamacpp_profile().resolve(as_llamacpp, p); !s) return s;
    p.engine_settings = *given;
    return Status::Ok();
  }

  Status resolve_host(const EstimateRequest& r, RequestContext& context, PreparedRequest& p) const override {
    // Ollama's llama runner repacks no weights: its logs print the host's
    // model buffer with no CPU_REPACK one, for Q4_0 and Q4_K files on AVX2
    // and AVX-512 hosts (docs/engine-ollama.md, "Validation").
    // From v0.30.0 the run is llama-server's, which repacks as llama.cpp does.
    const OllamaRequest asked = std::any_cast<OllamaRequest>(p.engine_settings);
    if (!ollama::starts_llama_server(asked.release.value_or(ollama::kNewestRelease))) {
      p.llamacpp_settings.repack = RepackCpu::kNone;
    }
    // The GPUs and the tensor list as llama.cpp's profile reads them; a
    // model with GPUs is reopened with its tensors there.
    if (Status s = llamacpp_profile().resolve_host(r, context, p); !s) return s;
    OllamaRequest given = std::any_cast<OllamaRequest>(p.engine_settings);
    if (given.gpus_free) {
      p.llamacpp_settings.placement.gpus = *given.gpus_free;
      p.llamacpp_settings.placement.unified = false;
    }
    // Every GPU, which a llama-server load may narrow to one (plan.cc).
    given.machine_gpus = p.llamacpp_settings.placement.gpus;
    if (p.model->tensors.empty() && p.model->weights.source == WeightsSource::kGgufHeader) {
      Result<std::shared_ptr<const Model>> model = context.open_model(r.model, {.keep_tensors = true});
      if (!model) return model.error();
      p.model = std::move(*model);
    }
    Result<OllamaDecisions> d = ollama::plan_load(given, p);
    if (!d) return d.error();
    add_warnings(*d, p.warnings);
    p.engine_settings = std::move(*d);
    return Status::Ok();
  }

  Status estimate(const EstimateRequest& r, EstimateRun& run) const override {
    if (Status s = llamacpp_profile().estimate(r, run); !s) return s;
    price_own_engine_checkpoints(*run.model, std::any_cast<const OllamaDecisions&>(run.engine_settings),
                                 *run.llamacpp);
    if (Status s = price_own_engine_graph(*run.model, std::any_cast<const OllamaDecisions&>(run.engine_settings),
                                          *run.llamacpp);
        !s) {
      return s;
    }
    run.engine_estimate = run.engine_settings;
    return Status::Ok();
  }

  bool fits(const EstimateRun& run) const override { return run.llamacpp->fits; }

  nlohmann::ordered_json report_json(const EstimateRun& run) const override {
    const auto& d = std::any_cast<const OllamaDecisions&>(run.engine_estimate);
    nlohmann::ordered_json j = llamacpp_estimate_to_json(*run.model, *run.llamacpp, run.budget, run.warnings);
    j["engine"] = "ollama";
    j["ollama"] = ollama::decisions_to_json(d, ollama::scheduler_gpus(run));
    j["ollama"]["start"] = ollama::launch_command(d, run.model->path);
    // Ollama's runner is llama.cpp's: its layers and experts placed as above.
    j["speed"] = speed_json(estimate_plan_speed(ollama::ollama_speed_plan(run, *run.llamacpp)));
    return j;
  }

  std::string report_text(const EstimateRun& run) const override {
    const auto& d = std::any_cast<const OllamaDecisions&>(run.engine_estimate);
    std::string text = render_llamacpp_text(*run.model, *run.llamacpp, run.budget);
    // The head names the engine whose rules price the buffers: say whose
    // run it is and which runner's rules price it.
    constexpr std::string_view kHead = " (engine llamacpp)";
    if (const size_t at = text.find(kHead); at != std::string::npos && at < text.find('\n')) {
      text.replace(at, kHead.size(), head_text(*run.model, d));
    }
    return text + ollama::render_decisions_text(d, ollama::scheduler_gpus(run)) + "start: " +
           ollama::launch_command(d, run.model->path) + "\n" +
           speed_text(estimate_plan_speed(ollama::ollama_speed_plan(run, *run.llamacpp)));
  }

 private:
  // The report head's engine: the llama.cpp runner's buffers are llama.cpp's;
  // Ollama's own engine sizes its cache by its own rules (kvcache/) and
  // reserves its own graph, replayed where memfit mirrors the family's
  // Forward (engine_graph.h), else llama.cpp's phases stand in.
  static std::string head_text(const Model& model, const OllamaDecisions& d) {
    if (d.runner == ollama::OllamaRunner::kLlama) {
      return " (engine ollama, llama.cpp runner: buffers by llama.cpp's rules)";
    }
    if (d.runner == ollama::OllamaRunner::kLlamaServer) {
      return " (engine ollama, llama-server: buffers by llama.cpp's rules)";
    }
    if (ollama::mirrors_engine_graph(model.spec)) {
      return " (engine ollama, its own engine: cache and graph by its rules)";
    }
    return " (engine ollama, its own engine: cache by its rules, graph llama.cpp's as a stand-in)";
  }

  static void add_warnings(const OllamaDecisions& d, std::vector<Warning>& warnings) {
    if (d.context.trained_tokens > 0) {
      warnings.push_back(Warning{WarningKind::kRequest,
                                 fmt::format("num_ctx is past the model's trained context: Ollama "
                                             "lowers it to {}",
                                             d.context.trained_tokens)});
    }
    if (!d.given.num_parallel && d.parallel > 1) {
      // server/sched.go (v0.2.0 to v0.9.6): the default is tried first and
      // 1 when it does not fit the GPUs whole; memfit prices the default.
      warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("OLLAMA_NUM_PARALLEL unset: Ollama {} loads {} sequences when they fit on the "
                      "GPUs whole, else 1; priced at {} (give ollama_num_parallel to choose)",
                      ollama::to_string(d.release), d.parallel, d.parallel)});
    }
    if (d.runner == ollama::OllamaRunner::kLlama && d.gpu_layers < d.total_layers && !d.given.num_gpu &&
        ollama::memory_go_places_layers(d.release)) {
      warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("Ollama {} placed the llama.cpp runner's layers by llm/memory.go's estimate: "
                      "memfit's are v0.24.0's scheduler's (give num_gpu for the layers a log printed)",
                      ollama::to_string(d.release))});
    }
    if (d.parallel_unread) {
      warnings.push_back(Warning{WarningKind::kRequest,
                                 fmt::format("OLLAMA_NUM_PARALLEL: Ollama {} serves one sequence (the "
                                             "variable is read from v0.1.33)",
                                             ollama::to_string(d.release))});
    }
    if (d.parallel_forced_one) {
      warnings.push_back(Warning{WarningKind::kRequest,
                                 "OLLAMA_NUM_PARALLEL: Ollama serves this model one sequence at a time"});
    }
    if (!d.kv_type_note.empty()) {
      warnings.push_back(Warning{WarningKind::kRequest, "OLLAMA_KV_CACHE_TYPE ignored: " + d.kv_type_note});
    }
  }
};

}  // namespace

std::unique_ptr<EngineProfile> make_ollama_profile() { return std::make_unique<OllamaProfile>(); }

}  // namespace memfit::engines
