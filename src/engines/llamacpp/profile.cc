// The llamacpp profile (engine.h): what the pinned llama.cpp allocates, in
// its model, context and compute buffers (docs/engine-llamacpp.md); the
// default for GGUF models.
#include <fmt/format.h>

#include "engines/builtin.h"
#include "engines/shared/config_tower.h"
#include "engines/shared/parallel_field.h"
#include "engines/shared/report_head.h"
#include "engines/shared/trained_context.h"
#include "engines/llamacpp/commands.h"
#include "engines/llamacpp/fields.h"
#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/quantize_plan.h"
#include "engines/llamacpp/speed_plan.h"
#include "memfit/llamacpp_report.h"
#include "memfit/memory_size.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"

namespace memfit::engines {
namespace {

// The fields that set up a file the request does not give: the
// projector's offload without --mmproj, the draft's layers and cache types
// without --model-draft (llama-server reads them only with that file).
Status check_extras_given(const LlamaCppRequest& q) {
  if (q.no_mmproj_offload.value_or(false) && !q.mmproj) {
    return Error::usage("no_mmproj_offload", "keeps the multimodal projector off the GPUs, and no "
                                             "projector is given: give mmproj");
  }
  const std::string_view draft_only = q.n_gpu_layers_draft   ? "n_gpu_layers_draft"
                                      : q.cache_type_k_draft ? "cache_type_k_draft"
                                      : q.cache_type_v_draft ? "cache_type_v_draft"
                                                             : "";
  if (!draft_only.empty() && !q.model_draft) {
    return Error::usage(draft_only, "sets up the speculative-decoding draft, and no draft is "
                                    "given: give model_draft");
  }
  return Status::Ok();
}

// The request's fields read as llama.cpp's, over LlamaCppSettings' defaults.
Status resolve_settings(const EstimateRequest& r, LlamaCppSettings& s) {
  const LlamaCppRequest& q = r.llamacpp;
  if (Status extras = check_extras_given(q); !extras) return extras;
  if (r.max_tokens && q.ctx_size) {
    return Error::usage("max_tokens", "and ctx_size are both the context: give one (ctx_size is "
                                      "llama.cpp's name)");
  }
  s.ctx_size = q.ctx_size.value_or(r.max_tokens.value_or(s.ctx_size));
  s.parallel = q.parallel.value_or(s.parallel);
  s.batch_size = q.batch_size.value_or(s.batch_size);
  s.ubatch_size = q.ubatch_size.value_or(s.ubatch_size);
  s.confidence = r.confidence.value_or(0);
  // Read with the mlxcel names (engine auto): fp16 is f16, int8 is q8_0.
  auto ggml = [](KvElement e) { return e == KvElement::kInt8 ? GgmlType::kQ8_0 : GgmlType::kF16; };
  if (r.cache_type_k) s.cache_type_k = ggml(*r.cache_type_k);
  if (r.cache_type_v) s.cache_type_v = ggml(*r.cache_type_v);
  s.cache_type_k = q.cache_type_k.value_or(s.cache_type_k);
  s.cache_type_v = q.cache_type_v.value_or(s.cache_type_v);
  s.flash_attn = q.flash_attn.value_or(s.flash_attn);
  if (q.flash_attn_auto_on) s.flash_attn_auto_on = q.flash_attn_auto_on;
  if (q.n_outputs_max) s.outputs_max = *q.n_outputs_max;
  s.swa_full = q.swa_full.value_or(s.swa_full);
  s.kv_unified = q.kv_unified.value_or(s.kv_unified);
  s.embedding = q.embedding.value_or(false) || q.reranking.value_or(false);
  if (q.reranking.value_or(false)) s.pooling = "rank";
  if (q.pooling) {
    if (!s.embedding) {
      return Error::usage("pooling", "is how llama-server pools embeddings, and they are off: "
                                     "give embedding");
    }
    if (q.reranking.value_or(false) && *q.pooling != "rank") {
      return Error::usage("pooling", "reranking pools by rank: give one of them");
    }
    s.pooling = *q.pooling;
  }
  s.build = q.llamacpp_version;
  if (!q.batch_size) s.batch_size = llamacpp::default_batch_size(s);
  s.repack = q.repack.value_or(s.repack);
  s.placement = q.placement.applied(s.placement);
  s.extras.mmproj_offload = !q.no_mmproj_offload.value_or(false);
  if (q.cache_ram) s.extras.cache_ram_mib = *q.cache_ram;
  if (q.ctx_checkpoints) s.extras.ctx_checkpoints = *q.ctx_checkpoints;
  if (q.n_gpu_layers_draft) s.extras.draft_n_gpu_layers = *q.n_gpu_layers_draft;
  s.extras.draft_cache_type_k = q.cache_type_k_draft.value_or(s.extras.draft_cache_type_k);
  s.extras.draft_cache_type_v = q.cache_type_v_draft.value_or(s.extras.draft_cache_type_v);
  return Status::Ok();
}

// The GPUs: --gpu-memory's, else the probe's; Apple's unified memory is one
// GPU whose memory is the budget.
void resolve_gpus(const EstimateRequest& r, PreparedRequest& p) {
  LlamaCppSettings& s = p.llamacpp_settings;
  if (!r.llamacpp.placement.gpu_memory) {
    for (const GpuMemory& g : p.host.gpus) {
      s.placement.gpus.push_back(LlamaCppGpu{
          fmt::format("{}:{}", g.vendor == GpuVendor::kNvidia ? "cuda" : "rocm", g.index), g.name,
          g.free_bytes});
    }
    // A Mac (Metal's working set known) keeps its one GPU under a limit too.
    const bool unified =
        p.budget.source == BudgetSource::kUnifiedMemory || p.host.metal_working_set_bytes > 0;
    if (s.placement.gpus.empty() && unified) {
      s.placement.gpus.push_back(LlamaCppGpu{"metal:0", "Apple GPU", p.budget.budget_bytes});
      s.placement.unified = true;
    }
  }
  if (s.placement.gpus.empty() && !r.llamacpp.placement.first_given().empty()) {
    p.warnings.push_back(Warning{
        WarningKind::kRequest,
        fmt::format("{} places layers on GPUs, and none was found: priced as a CPU run (give "
                    "--gpu NAME to plan for another machine's)",
                    r.llamacpp.placement.first_given())});
  }
}

// The server extras' files: the projector and the LoRA adapters.
Status read_adapters(const EstimateRequest& r, RequestContext& context, LlamaCppSettings& s) {
  if (r.llamacpp.mmproj) {
    Result<GgufHeader> header = context.read_gguf_header("mmproj", *r.llamacpp.mmproj);
    if (!header) return header.error();
    Result<LlamaCppProjector> projector = llamacpp_projector(*header, *r.llamacpp.mmproj);
    if (!projector) return projector.error();
    s.extras.mmproj = std::move(*projector);
  }
  if (r.llamacpp.lora.size() > kLlamaCppMaxLoraAdapters) {
    return Error::usage("lora", fmt::format("names {} adapters; memfit reads at most {}",
                                            r.llamacpp.lora.size(), kLlamaCppMaxLoraAdapters));
  }
  for (const std::string& path : r.llamacpp.lora) {
    Result<GgufHeader> header = context.read_gguf_header("lora", path);
    if (!header) return header.error();
    Result<LlamaCppLora> lora = llamacpp_lora(*header, path);
    if (!lora) return lora.error();
    s.extras.loras.push_back(std::move(*lora));
  }
  return Status::Ok();
}

// The speculative-decoding draft, opened like the model.
Status open_draft(const EstimateRequest& r, RequestContext& context, LlamaCppSettings& s) {
  if (!r.llamacpp.model_draft) return Status::Ok();
  Result<std::shared_ptr<const Model>> draft =
      context.open_model(*r.llamacpp.model_draft, {.keep_tensors = true});
  if (!draft) return draft.error().within("model_draft");
  if ((*draft)->weights.source != WeightsSource::kGgufHeader) {
    return Error::usage("model_draft", fmt::format("{}: the draft must be a GGUF model",
                                                   quote_untrusted(*r.llamacpp.model_draft)));
  }
  s.extras.draft = std::move(*draft);
  s.extras.draft_path = *r.llamacpp.model_draft;
  return Status::Ok();
}

class LlamaCppProfile final : public LlamaCppCommands {
 public:
  std::string_view name() const override { return "llamacpp"; }
  std::vector<std::string_view> aliases() const override {
    return {"llama.cpp", "llama-cpp", "llama_cpp"};
  }
  std::string_view title() const override { return "llama.cpp"; }
  std::span<const RequestField> fields() const override { return llamacpp_fields(); }
  std::string_view summary() const override {
    return "what llama.cpp allocates: its model, context and compute buffers, per device";
  }
  std::string_view release() const override { return "llama.cpp v0.4.0 (node-llama-cpp 3.21.1)"; }
  EngineVersions versions() const override {
    return {.field = "llamacpp_version",
            .default_text = "the pinned release v0.4.0: an SWA cache of the window and one "
                            "ubatch, a stream per sequence, cells padded to 256",
            .differences = llamacpp::release_differences()};
  }
  bool is_default_for(const Model& model) const override {
    return model.weights.source == WeightsSource::kGgufHeader;
  }
  std::string_view default_for_text() const override { return "GGUF models"; }
  // n_ctx_train: the GGUF's context_length, rope scaling not considered.
  uint64_t context_limit_tokens(const Model& model) const override {
    return declared_context(model.spec).tokens;
  }

  Status resolve(const EstimateRequest& r, PreparedRequest& p) const override {
    const std::string_view mlxcel_only = r.kv_cache_mode               ? "kv_cache_mode"
                                         : r.batch != 1                ? "batch"
                                         : wants_parallel_plan(r.parallel) ? parallel_field_given(r.parallel)
                                         : r.parallel.sharding != ShardingRules::kVllm
                                             ? "parallel_engine"
                                             : "";
    if (!mlxcel_only.empty()) {
      return Error::usage(mlxcel_only, "is an mlxcel setting; llamacpp takes cache_type_k, "
                                       "cache_type_v and its own " + field_names_text("llamacpp"));
    }
    if (r.backend) {
      return Error::usage("backend", "is an mlxcel setting: llama.cpp's buffers are priced per "
                                     "device, for the GPUs given (gpu, gpu_memory) or found");
    }
    // With a file type the GGUF's converted tensors replace the weights,
    // and apply_gguf_file_type says where the tower went.
    if (r.quant.empty()) {
      drop_config_tower(p, "llama.cpp's converter writes it to an mmproj GGUF of its own "
                           "(llama-server --mmproj), not the model file");
    }
    // A GGUF file type: the model as llama-quantize would write it.
    if (Status quant = llamacpp::apply_gguf_file_type(r, p); !quant) return quant;
    if (r.llamacpp.placement.gpu_memory && r.machine.given()) {
      return Error::usage("gpu_memory", "and the machine's gpu or mac both give the GPUs' memory: "
                                        "give one");
    }
    if (Status settings = resolve_settings(r, p.llamacpp_settings); !settings) return settings;
    // 0 is the training context itself (llama-server's default).
    warn_past_trained_context(declared_context(p.model->spec), p.llamacpp_settings.ctx_size,
                              r.llamacpp.ctx_size ? "--ctx-size" : "--max-tokens", p.warnings);
    return Status::Ok();
  }

  Status resolve_host(const EstimateRequest& r, RequestContext& context,
                      PreparedRequest& p) const override {
    // The repacked copies: auto is the host's CPU.
    std::string assumption;
    LlamaCppSettings& s = p.llamacpp_settings;
    s.repack = resolve_repack_cpu(s.repack, p.host.cpu, &assumption);
    if (!assumption.empty()) p.warnings.push_back(Warning{WarningKind::kHost, std::move(assumption)});
    resolve_gpus(r, p);
    if (Status adapters = read_adapters(r, context, s); !adapters) return adapters;
    if (Status draft = open_draft(r, context, s); !draft) return draft;
    // Placement reads the tensor names too, and so do the adapters: a GGUF
    // model is reopened with its tensor list (the sizing pass kept none).
    if ((s.repack != RepackCpu::kNone || !s.placement.gpus.empty() || !s.extras.loras.empty()) &&
        p.model->tensors.empty() && p.model->weights.source == WeightsSource::kGgufHeader) {
      Result<std::shared_ptr<const Model>> model = context.open_model(r.model, {.keep_tensors = true});
      if (!model) return model.error();
      p.model = std::move(*model);
    }
    return Status::Ok();
  }

  Status estimate(const EstimateRequest& r, EstimateRun& run) const override {
    Result<LlamaCppEstimate> estimate = estimate_llamacpp(*run.model, run.llamacpp_settings, run.budget);
    if (!estimate) return estimate_error(r, estimate.error());
    run.llamacpp = std::move(*estimate);
    if (run.model->spec.embedding.any() && !run.llamacpp->settings.embedding) {
      run.warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("an {}: llama-server computes its embeddings only with --embedding "
                      "(embedding), priced without it",
                      embedding_kind(run.model->spec.embedding))});
    }
    // What the host must hold now: its own device's total (discrete GPUs
    // hold the rest); without GPUs, or with unified memory, everything.
    const LlamaCppEstimate& e = *run.llamacpp;
    const uint64_t host_load = e.placement.devices.empty() || e.settings.placement.unified
                                   ? e.total_bytes
                                   : e.placement.devices.back().total_bytes;
    warn_if_not_available_now(run, host_load);
    return Status::Ok();
  }

  bool fits(const EstimateRun& run) const override { return run.llamacpp->fits; }
  // With GPUs, each device's buffers against its usable memory (the
  // per-device table); a CPU run is one figure on the host.
  std::vector<DeviceClaim> device_claims(const EstimateRun& run) const override {
    const std::vector<LlamaCppDeviceUsage>& devices = run.llamacpp->placement.devices;
    if (devices.empty()) return EngineProfile::device_claims(run);
    std::vector<DeviceClaim> claims;
    for (const LlamaCppDeviceUsage& d : devices) {
      DeviceClaim claim;
      claim.device = d.device;
      claim.bytes = d.total_bytes;
      claim.budget_bytes = d.usable_bytes;
      claims.push_back(std::move(claim));
    }
    return claims;
  }
  nlohmann::ordered_json report_json(const EstimateRun& run) const override {
    nlohmann::ordered_json j =
        llamacpp_estimate_to_json(*run.model, *run.llamacpp, run.budget, run.warnings);
    j["speed"] = speed_json(estimate_plan_speed(llamacpp_speed_plan(run, *run.llamacpp)));
    return j;
  }
  std::string report_text(const EstimateRun& run) const override {
    return render_llamacpp_text(*run.model, *run.llamacpp, run.budget) + "\n" +
           speed_text(estimate_plan_speed(llamacpp_speed_plan(run, *run.llamacpp)));
  }
};

}  // namespace

std::unique_ptr<EngineProfile> make_llamacpp_profile() { return std::make_unique<LlamaCppProfile>(); }

}  // namespace memfit::engines
