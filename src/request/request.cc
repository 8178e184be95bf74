// prepare() and run(): the one path from a request to an answer.
//
// Order matters for the user: the request's own fields are checked before
// anything is opened, so a typo fails in microseconds; the model is opened
// before the host is read, so a missing model is reported as such even on
// a machine whose GPU library is broken.
#include <tuple>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "memfit/header_cache.h"
#include "memfit/memory_size.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"
#include "request/request_fields.h"

namespace memfit {
namespace {

void add_warnings(std::vector<Warning>& out, WarningKind kind,
                  const std::vector<std::string>& texts) {
  for (const std::string& text : texts) out.push_back(Warning{kind, text});
}

Status check_request_fields(const EstimateRequest& r) {
  if (r.model.empty()) return Error::usage("model", "required");
  if (r.max_tokens == 0) return Error::usage("max_tokens", "must be at least 1");
  if (r.batch == 0) return Error::usage("batch", "must be at least 1");
  return Status::Ok();
}

// The per-rank plan over the model's tensor list when its headers were
// read, else the proportional split.
Result<ParallelPlan> plan_for(const EstimateRequest& r, const PreparedRequest& p) {
  const ParallelConfig& config = r.parallel;
  if (Status refused = check_parallel_config(p.model->spec, config); !refused) {
    return Error::usage(fmt::format("tensor parallel {} x pipeline parallel {}: {}",
                                    config.tensor_parallel, config.pipeline_parallel,
                                    refused.error().message()));
  }
  Result<ParallelPlan> plan =
      plan_parallel(*p.model, p.model->tensors, p.inputs, p.settings, p.platform, p.budget, config);
  if (!plan) return plan.error().within(quote_untrusted(r.model));
  return plan;
}

// mlx-lm's fields with their defaults: max_tokens is the tokens generated
// and batch the sequences; the other engines' fields are usage errors.
Status resolve_mlxlm(const EstimateRequest& r, PreparedRequest& p) {
  if (std::string_view field = r.llamacpp.first_given(); !field.empty()) {
    return Error::usage(field, "is a llama.cpp setting: give engine llamacpp");
  }
  const std::string_view other = r.kv_cache_mode                       ? "kv_cache_mode"
                                 : (r.cache_type_k || r.llamacpp.cache_type_k) ? "cache_type_k"
                                 : (r.cache_type_v || r.llamacpp.cache_type_v) ? "cache_type_v"
                                 : wants_parallel_plan(r.parallel)             ? "tensor_parallel"
                                                                               : "";
  if (!other.empty()) {
    return Error::usage(other, "is not an mlx-lm setting; mlx-lm takes prompt_tokens, max_tokens, "
                               "batch, prefill_step_size, kv_bits, kv_group_size and max_kv_size");
  }
  const MlxLmRequest& q = r.mlxlm;
  MlxLmSettings& s = p.mlxlm_settings;
  s.prompt_tokens = q.prompt_tokens.value_or(s.prompt_tokens);
  s.max_tokens = r.max_tokens.value_or(s.max_tokens);
  s.batch = r.batch;
  s.prefill_step_size = q.prefill_step_size.value_or(s.prefill_step_size);
  s.kv_bits = q.kv_bits.value_or(s.kv_bits);
  s.kv_group_size = q.kv_group_size.value_or(s.kv_group_size);
  s.max_kv_size = q.max_kv_size.value_or(s.max_kv_size);
  return Status::Ok();
}

// vLLM's fields with their defaults: tensor_parallel is
// --tensor-parallel-size, max_tokens --max-model-len and a batch other than
// 1 --max-num-seqs when their own fields are not given; the GPU's total
// waits for the host (prepare()).
Status resolve_vllm(const EstimateRequest& r, PreparedRequest& p) {
  if (std::string_view field = r.llamacpp.first_given(); !field.empty()) {
    return Error::usage(field, "is a llama.cpp setting: give engine llamacpp");
  }
  if (std::string_view field = r.mlxlm.first_given(); !field.empty()) {
    return Error::usage(field, "is an mlx-lm setting: give engine mlx-lm");
  }
  const std::string_view other = r.kv_cache_mode                                ? "kv_cache_mode"
                                 : (r.cache_type_k || r.llamacpp.cache_type_k) ? "cache_type_k"
                                 : (r.cache_type_v || r.llamacpp.cache_type_v) ? "cache_type_v"
                                                                               : "";
  if (!other.empty()) {
    return Error::usage(other, "is not a vLLM setting; vLLM's KV cache type is kv_cache_dtype "
                               "(auto or fp8)");
  }
  if (r.parallel.pipeline_parallel != 1) {
    return Error::usage("pipeline_parallel", "the vLLM profile prices tensor parallelism only "
                                             "(pipeline parallelism: not yet)");
  }
  const VllmRequest& q = r.vllm;
  if (r.max_tokens && q.max_model_len) {
    return Error::usage("max_tokens", "and max_model_len are both the context: give one "
                                      "(max_model_len is vLLM's name)");
  }
  if (r.batch != 1 && q.max_num_seqs) {
    return Error::usage("batch", "and max_num_seqs are both the sequences: give one "
                                 "(max_num_seqs is vLLM's name)");
  }
  VllmSettings& s = p.vllm_settings;
  s.tensor_parallel = r.parallel.tensor_parallel;
  s.gpu_memory_utilization = q.gpu_memory_utilization.value_or(s.gpu_memory_utilization);
  s.kv_cache_memory = q.kv_cache_memory;
  s.block_size = q.block_size.value_or(s.block_size);
  s.kv_cache_fp8 = q.kv_cache_fp8.value_or(s.kv_cache_fp8);
  s.max_model_len = q.max_model_len.value_or(r.max_tokens.value_or(s.max_model_len));
  s.max_num_seqs = q.max_num_seqs.value_or(r.batch != 1 ? r.batch : s.max_num_seqs);
  s.max_num_batched_tokens = q.max_num_batched_tokens.value_or(s.max_num_batched_tokens);
  s.num_speculative_tokens = q.num_speculative_tokens.value_or(s.num_speculative_tokens);
  s.enforce_eager = q.enforce_eager.value_or(s.enforce_eager);
  s.release = q.vllm_version;
  if (q.gpu_memory_total) s.gpu_memory_total = *q.gpu_memory_total;
  if (q.gpu_name) {
    // Checked again: a C++ caller fills VllmRequest without the parsers.
    Result<std::string> name = parse_gpu_name(*q.gpu_name);
    if (!name) return Error::usage("gpu_name", name.error().message());
    s.gpu_name = std::move(*name);
    s.gpu_name_given = true;
  }
  return Status::Ok();
}

// The engine a request resolves to, and its fields checked against it: a
// llama.cpp field with mlxcel, or an mlxcel-only field with llamacpp, is a
// usage error naming the field. max_tokens and batch are plain values, so
// they count as given when they differ from their defaults.
Status resolve_engine(const EstimateRequest& r, const Model& model, PreparedRequest& p) {
  p.engine = r.engine.value_or(default_engine(model));
  if (p.engine != Engine::kVllm) {
    if (std::string_view field = r.vllm.first_given(); !field.empty()) {
      return Error::usage(field, "is a vLLM setting: give engine vllm");
    }
  }
  if (p.engine == Engine::kVllm) return resolve_vllm(r, p);
  if (p.engine != Engine::kMlxLm) {
    if (std::string_view field = r.mlxlm.first_given(); !field.empty()) {
      return Error::usage(field, "is an mlx-lm setting: give engine mlx-lm");
    }
  }
  if (p.engine == Engine::kMlxLm) return resolve_mlxlm(r, p);
  if (p.engine == Engine::kMlxcel) {
    if (std::string_view field = r.llamacpp.first_given(); !field.empty()) {
      return Error::usage(field, "is a llama.cpp setting: give engine llamacpp");
    }
    // A cache type with no mlxcel reading (set_cache_type kept only the
    // llama.cpp one) names a llama.cpp type.
    for (auto [field, ggml, element] :
         {std::tuple{"cache_type_k", r.llamacpp.cache_type_k, r.cache_type_k},
          std::tuple{"cache_type_v", r.llamacpp.cache_type_v, r.cache_type_v}}) {
      if (ggml && !element) {
        return Error::usage(field, fmt::format("{} is a llama.cpp cache type: give engine llamacpp, "
                                               "or fp16 or int8",
                                               ggml_type_traits(*ggml).name));
      }
    }
    return Status::Ok();
  }
  const std::string_view mlxcel_only = r.kv_cache_mode   ? "kv_cache_mode"
                                       : r.batch != 1         ? "batch"
                                       : wants_parallel_plan(r.parallel) ? "tensor_parallel"
                                                                         : "";
  if (!mlxcel_only.empty()) {
    return Error::usage(mlxcel_only,
                        "is an mlxcel setting; llamacpp takes ctx_size, parallel, batch_size, "
                        "ubatch_size, cache_type_k/v, flash_attn, swa_full, kv_unified and repack");
  }
  const LlamaCppRequest& q = r.llamacpp;
  LlamaCppSettings& s = p.llamacpp_settings;
  if (r.max_tokens && q.ctx_size) {
    return Error::usage("max_tokens", "and ctx_size are both the context: give one (ctx_size is "
                                      "llama.cpp's name)");
  }
  s.ctx_size = q.ctx_size.value_or(r.max_tokens.value_or(s.ctx_size));
  s.parallel = q.parallel.value_or(s.parallel);
  s.batch_size = q.batch_size.value_or(s.batch_size);
  s.ubatch_size = q.ubatch_size.value_or(s.ubatch_size);
  // Read with the mlxcel names (engine auto): fp16 is f16, int8 is q8_0.
  auto ggml = [](KvElement e) { return e == KvElement::kInt8 ? GgmlType::kQ8_0 : GgmlType::kF16; };
  if (r.cache_type_k) s.cache_type_k = ggml(*r.cache_type_k);
  if (r.cache_type_v) s.cache_type_v = ggml(*r.cache_type_v);
  s.cache_type_k = q.cache_type_k.value_or(s.cache_type_k);
  s.cache_type_v = q.cache_type_v.value_or(s.cache_type_v);
  s.flash_attn = q.flash_attn.value_or(s.flash_attn);
  s.swa_full = q.swa_full.value_or(s.swa_full);
  s.kv_unified = q.kv_unified.value_or(s.kv_unified);
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

}  // namespace

namespace request {

Result<KvElement> resolve_kv_element(const EstimateRequest& r, std::vector<Warning>& warnings) {
  if (r.cache_type_k.has_value() != r.cache_type_v.has_value()) {
    return Error::usage("the K and V cache types go together: give both or neither");
  }
  if (!r.cache_type_k) return r.kv_cache_mode.value_or(KvElement::kFp16);
  KvElement both = *r.cache_type_k;
  if (*r.cache_type_k != *r.cache_type_v) {
    both = KvElement::kFp16;
    warnings.push_back(Warning{WarningKind::kRequest,
                               "the K and V cache types differ: the KV cache is sized at the "
                               "wider type, fp16"});
  }
  if (r.kv_cache_mode && *r.kv_cache_mode != both) {
    return Error::usage("the KV cache mode disagrees with the K and V cache types");
  }
  return both;
}

}  // namespace request

Error mlxlm_not_supported(std::string_view command) {
  return Error::usage("engine", fmt::format("mlx-lm is priced by inspect and preflight generate "
                                            "only; {} does not take it",
                                            command));
}

Error vllm_not_supported(std::string_view command) {
  return Error::usage("engine", fmt::format("vllm is priced by inspect and preflight generate "
                                            "only; {} does not take it",
                                            command));
}

bool wants_parallel_plan(const ParallelConfig& c) {
  // tensor x pipeline may overflow: either one alone past the cap is a
  // request for a plan (which check_parallel_config then refuses).
  return c.tensor_parallel > kMaxParallelRanks || c.pipeline_parallel > kMaxParallelRanks ||
         c.tensor_parallel * c.pipeline_parallel > 1;
}

Result<PreparedRequest> prepare(const EstimateRequest& r, RequestContext& context,
                                const PrepareOptions& options) {
  PreparedRequest p;
  add_warnings(p.warnings, WarningKind::kSettings, context.settings_warnings());
  if (Status fields = check_request_fields(r); !fields) return fields.error();

  p.settings = context.settings();
  p.inputs.max_tokens = r.max_tokens.value_or(p.inputs.max_tokens);
  p.inputs.batch = r.batch;
  p.inputs.quant = r.quant;
  p.platform = context.platform();
  if (r.backend) p.platform.backend = *r.backend;

  OpenModelOptions open;
  open.keep_tensors = options.keep_tensors || wants_parallel_plan(r.parallel) ||
                      r.engine == Engine::kVllm;
  Result<std::shared_ptr<const Model>> model = context.open_model(r.model, open);
  if (!model) return model.error();
  p.model = std::move(*model);
  const size_t request_warnings_at = p.warnings.size();
  add_warnings(p.warnings, WarningKind::kModel, p.model->warnings);
  if (Status engine = resolve_engine(r, *p.model, p); !engine) return engine.error();
  // The mlxcel KV width: its K/V rules are mlxcel's, so they wait for the
  // engine (a GGUF model's default is llama.cpp's, with its own types).
  // Its warning keeps its place among the request's, before the model's.
  if (p.engine == Engine::kMlxcel) {
    std::vector<Warning> kv_warnings;
    Result<KvElement> element = request::resolve_kv_element(r, kv_warnings);
    if (!element) return element.error();
    p.inputs.kv_element = *element;
    p.warnings.insert(p.warnings.begin() + static_cast<std::ptrdiff_t>(request_warnings_at),
                      kv_warnings.begin(), kv_warnings.end());
  }

  p.host = context.host_memory(r.device, r.memory_limit_bytes);
  if (p.host.device_error) return Error(*p.host.device_error, ErrorKind::kHost);
  add_warnings(p.warnings, WarningKind::kHost, p.host.warnings);
  p.budget = to_memory_budget(p.host);

  if (p.engine == Engine::kVllm && p.vllm_settings.gpu_memory_total != 0 &&
      p.budget.source != BudgetSource::kExplicit) {
    // A GPU total given prices that GPU (often another machine's): its
    // memory, not this host's RAM or GPU, is what the rank's peak must fit.
    p.budget.budget_bytes = p.vllm_settings.gpu_memory_total;
    p.budget.source = BudgetSource::kGpuTotalGiven;
  }
  if (p.engine == Engine::kVllm && p.vllm_settings.gpu_memory_total == 0) {
    // The GPU's total: the selected GPU's, else the first found; with none,
    // an explicit limit stands for the device.
    const GpuMemory* gpu = nullptr;
    for (const GpuMemory& g : p.host.gpus) {
      const bool selected =
          (r.device.kind == DeviceSelector::Kind::kCuda && g.vendor == GpuVendor::kNvidia) ||
          (r.device.kind == DeviceSelector::Kind::kRocm && g.vendor != GpuVendor::kNvidia);
      if (selected && g.index == r.device.index) gpu = &g;
      if (gpu == nullptr && r.device.kind == DeviceSelector::Kind::kAuto) gpu = &g;
    }
    if (gpu != nullptr) {
      p.vllm_settings.gpu_memory_total = gpu->total_bytes;
      if (!p.vllm_settings.gpu_name_given) {
        p.vllm_settings.gpu_name = gpu->name;
        p.vllm_settings.rocm = gpu->vendor == GpuVendor::kAmd;
      } else if (p.vllm_settings.gpu_name != gpu->name) {
        // A name given without a total prices this host's GPU's memory
        // under another GPU's name: say so, the user may have meant both.
        p.warnings.push_back(Warning{
            WarningKind::kRequest,
            fmt::format("gpu_name is given but gpu_memory_total is not: the total is this host's "
                        "GPU's ({}, {}); give gpu_memory_total for another machine's",
                        escape_untrusted(gpu->name), format_bytes(gpu->total_bytes))});
      }
    } else if (p.budget.source == BudgetSource::kExplicit && !p.vllm_settings.kv_cache_memory) {
      p.vllm_settings.gpu_memory_total = p.budget.budget_bytes;
      p.warnings.push_back(Warning{WarningKind::kRequest,
                                   "no GPU found: the memory limit is taken as the GPU's total "
                                   "(give gpu_memory_total for another machine's)"});
    }
  }

  if (p.engine == Engine::kLlamaCpp) {
    // The repacked copies: auto is the host's CPU; a GGUF model is reopened
    // with its tensor list (the sizing pass kept none).
    std::string assumption;
    LlamaCppSettings& s = p.llamacpp_settings;
    s.repack = resolve_repack_cpu(s.repack, p.host.cpu, &assumption);
    if (!assumption.empty()) p.warnings.push_back(Warning{WarningKind::kHost, std::move(assumption)});
    // The GPUs: --gpu-memory's, else the probe's; Apple's unified memory
    // is one GPU whose memory is the budget.
    if (!r.llamacpp.placement.gpu_memory) {
      for (const GpuMemory& g : p.host.gpus) {
        s.placement.gpus.push_back(LlamaCppGpu{
            fmt::format("{}:{}", g.vendor == GpuVendor::kNvidia ? "cuda" : "rocm", g.index), g.name,
            g.free_bytes});
      }
      if (s.placement.gpus.empty() && p.budget.source == BudgetSource::kUnifiedMemory) {
        s.placement.gpus.push_back(LlamaCppGpu{"metal:0", "Apple GPU", p.budget.budget_bytes});
        s.placement.unified = true;
      }
    }
    if (s.placement.gpus.empty() && !r.llamacpp.placement.first_given().empty()) {
      p.warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("{} places layers on GPUs, and none was found: priced as a CPU run (give "
                      "--gpu-memory 0=24GiB,... to plan for another machine's)",
                      r.llamacpp.placement.first_given())});
    }
    // The server extras' files.
    if (r.llamacpp.mmproj) {
      Result<GgufHeader> header = context.read_gguf_header("mmproj", *r.llamacpp.mmproj);
      if (!header) return header.error();
      Result<LlamaCppProjector> projector = llamacpp_projector(*header, *r.llamacpp.mmproj);
      if (!projector) return projector.error();
      s.extras.mmproj = std::move(*projector);
    }
    if (r.llamacpp.lora.size() > kLlamaCppMaxLoraAdapters) {
      return Error::usage("lora", fmt::format("names {} adapters; memfit reads at most {}", r.llamacpp.lora.size(),
                                              kLlamaCppMaxLoraAdapters));
    }
    for (const std::string& path : r.llamacpp.lora) {
      Result<GgufHeader> header = context.read_gguf_header("lora", path);
      if (!header) return header.error();
      Result<LlamaCppLora> lora = llamacpp_lora(*header, path);
      if (!lora) return lora.error();
      s.extras.loras.push_back(std::move(*lora));
    }
    if (r.llamacpp.model_draft) {
      Result<std::shared_ptr<const Model>> draft =
          context.open_model(*r.llamacpp.model_draft, {.keep_tensors = true});
      if (!draft) return draft.error().within("model_draft");
      if ((*draft)->weights.source != WeightsSource::kGgufHeader) {
        return Error::usage("model_draft", fmt::format("{}: the draft must be a GGUF model",
                                                       quote_untrusted(*r.llamacpp.model_draft)));
      }
      s.extras.draft = std::move(*draft);
      s.extras.draft_path = *r.llamacpp.model_draft;
    }
    // Placement reads the tensor names too, and so do the adapters.
    if ((s.repack != RepackCpu::kNone || !s.placement.gpus.empty() || !s.extras.loras.empty()) &&
        p.model->tensors.empty() &&
        p.model->weights.source == WeightsSource::kGgufHeader) {
      Result<std::shared_ptr<const Model>> model = context.open_model(r.model, {.keep_tensors = true});
      if (!model) return model.error();
      p.model = std::move(*model);
    }
  }
  return p;
}

Result<EstimateRun> run(const EstimateRequest& r, RequestContext& context) {
  Result<PreparedRequest> prepared = prepare(r, context);
  if (!prepared) return prepared.error();
  return run_prepared(r, std::move(*prepared));
}

Result<EstimateRun> run_prepared(const EstimateRequest& r, PreparedRequest prepared) {
  EstimateRun run;
  static_cast<PreparedRequest&>(run) = std::move(prepared);

  if (run.engine == Engine::kMlxLm) {
    Result<MlxLmEstimate> estimate = estimate_mlxlm(*run.model, run.mlxlm_settings, run.budget);
    if (!estimate) {
      if (estimate.error().kind() == ErrorKind::kUsage) return estimate.error();
      return estimate.error().within(quote_untrusted(r.model));
    }
    run.mlxlm = std::move(*estimate);
    if (run.mlxlm->max_kv_size_ignored) {
      run.warnings.push_back(Warning{WarningKind::kRequest,
                                     "max_kv_size is ignored: this model's make_cache builds its "
                                     "own caches, as mlx-lm's make_prompt_cache does"});
    }
    if (std::optional<std::string> line = available_now_warning(run.host, run.mlxlm->total_bytes)) {
      run.warnings.push_back(Warning{WarningKind::kAvailableNow, std::move(*line)});
    }
    return run;
  }
  if (run.engine == Engine::kVllm) {
    Result<VllmEstimate> estimate =
        estimate_vllm(*run.model, run.model->tensors, run.vllm_settings, run.budget);
    if (!estimate) {
      if (estimate.error().kind() == ErrorKind::kUsage) return estimate.error();
      return estimate.error().within(quote_untrusted(r.model));
    }
    run.vllm = std::move(*estimate);
    if (!run.vllm->starts) {
      run.warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("vLLM would refuse to start: {} KV blocks hold no request of {} tokens "
                      "(largest that fits: {})",
                      run.vllm->num_blocks, run.vllm->settings.max_model_len,
                      run.vllm->max_model_len_fit)});
    }
    // This host's RAM is not where a rank loads when the budget is a GPU
    // the request sized (its total, or a limit standing for it).
    const bool gpu_given = run.budget.source == BudgetSource::kGpuTotalGiven ||
                           run.budget.source == BudgetSource::kExplicit;
    if (std::optional<std::string> line = available_now_warning(run.host, run.vllm->total_bytes);
        line && !gpu_given) {
      run.warnings.push_back(Warning{WarningKind::kAvailableNow, std::move(*line)});
    }
    return run;
  }
  if (run.engine == Engine::kLlamaCpp) {
    Result<LlamaCppEstimate> estimate = estimate_llamacpp(*run.model, run.llamacpp_settings, run.budget);
    if (!estimate) {
      if (estimate.error().kind() == ErrorKind::kUsage) return estimate.error();
      return estimate.error().within(quote_untrusted(r.model));
    }
    run.llamacpp = std::move(*estimate);
    // What the host must hold now: its own device's total (discrete GPUs
    // hold the rest); without GPUs, or with unified memory, everything.
    const LlamaCppEstimate& e = *run.llamacpp;
    const uint64_t host_load = e.placement.devices.empty() || e.settings.placement.unified
                                   ? e.total_bytes
                                   : e.placement.devices.back().total_bytes;
    if (std::optional<std::string> line = available_now_warning(run.host, host_load)) {
      run.warnings.push_back(Warning{WarningKind::kAvailableNow, std::move(*line)});
    }
    return run;
  }

  Result<Estimate> estimate =
      memfit::estimate(*run.model, run.inputs, run.settings, run.platform, run.budget);
  if (!estimate) return estimate.error().within(quote_untrusted(r.model));
  run.estimate = std::move(*estimate);

  // The load the host must hold now: weights + KV + activation (seed 001).
  const uint64_t load = (CheckedBytes(run.estimate.weights_bytes) + run.estimate.kv.total_bytes +
                         run.estimate.activation_bytes)
                            .saturated();
  if (std::optional<std::string> line = available_now_warning(run.host, load)) {
    run.warnings.push_back(Warning{WarningKind::kAvailableNow, std::move(*line)});
  }

  if (wants_parallel_plan(r.parallel)) {
    Result<ParallelPlan> plan = plan_for(r, run);
    if (!plan) return plan.error();
    run.parallel = std::move(*plan);
  }
  return run;
}

LocalRequestContext::LocalRequestContext(const Environment& env)
    : settings_(settings_from_environment(env, settings_warnings_)),
      host_options_(host_query_options_from_environment(env)) {
  host_options_.explicit_limit_bytes = settings_.memory_limit_bytes;
  model_names_.hf_cache = hf_cache_options_from_environment(env);
  model_names_.hub = hub_options_from_environment(env);
  header_cache_ = make_header_cache_from_environment(env);
  model_names_.header_store = header_cache_.get();
}

Result<std::shared_ptr<const Model>> LocalRequestContext::open_model(
    const std::string& name, const OpenModelOptions& options) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model_by_name(*fs, name, model_names_, options);
  if (!model) return model.error();
  return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*model)));
}

Result<GgufHeader> RequestContext::read_gguf_header(std::string_view field, const std::string&) {
  return Error::usage(field, "this front end reads no files besides the model");
}

Result<GgufHeader> LocalRequestContext::read_gguf_header(std::string_view, const std::string& path) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  return memfit::read_gguf_header(*fs, path);
}

HostMemoryStatus LocalRequestContext::host_memory(const DeviceSelector& device,
                                                  std::optional<uint64_t> explicit_limit_bytes) {
  HostQueryOptions options = host_options_;
  options.device = device;
  if (explicit_limit_bytes) options.explicit_limit_bytes = explicit_limit_bytes;
  const bool names_a_gpu = device.kind == DeviceSelector::Kind::kCuda ||
                           device.kind == DeviceSelector::Kind::kRocm;
  if (options.explicit_limit_bytes && !names_a_gpu) options.probe_gpus = false;
  return query_host_memory(options);
}

}  // namespace memfit
