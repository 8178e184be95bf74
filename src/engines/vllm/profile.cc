// The vllm profile (engine.h): one rank of `vllm serve`, its weights and
// KV cache capacity (docs/engine-vllm.md).
#include <fmt/format.h>

#include "engines/builtin.h"
#include "engines/vllm/speed_plan.h"
#include "engines/shared/speed_report.h"
#include "engines/shared/trained_context.h"
#include "engines/vllm/commands.h"
#include "engines/vllm/fields.h"
#include "engines/vllm/parts.h"
#include "engines/shared/cache_type_field.h"
#include "engines/shared/selected_gpu.h"
#include "memfit/checked_math.h"
#include "memfit/hardware.h"
#include "memfit/memory_size.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm_report.h"
#include "request/machine.h"

namespace memfit::engines {
namespace {

Status check_vllm_fields(const EstimateRequest& r) {
  const std::string_view other = other_cache_type_field(r);
  if (!other.empty()) {
    return Error::usage(other, "is not a vLLM setting; vLLM's KV cache type is kv_cache_dtype "
                               "(auto or fp8)");
  }
  if (r.backend) {
    return Error::usage("backend", "is an mlxcel setting: vLLM's platform, CUDA or ROCm, follows "
                                   "the GPU's name (gpu, gpu_name)");
  }
  if (r.parallel.sharding != ShardingRules::kVllm) {
    return Error::usage("parallel_engine", "is an mlxcel setting: vLLM shards by its own rules "
                                           "(tensor_parallel)");
  }
  if (r.parallel.pipeline_parallel != 1) {
    return Error::usage("pipeline_parallel", "the vLLM profile prices tensor parallelism only "
                                             "(pipeline parallelism: not yet)");
  }
  if (r.max_tokens && r.vllm.max_model_len) {
    return Error::usage("max_tokens", "and max_model_len are both the context: give one "
                                      "(max_model_len is vLLM's name)");
  }
  if (r.batch != 1 && r.vllm.max_num_seqs) {
    return Error::usage("batch", "and max_num_seqs are both the sequences: give one "
                                 "(max_num_seqs is vLLM's name)");
  }
  if (r.machine.given() && (r.vllm.gpu_memory_total || r.vllm.gpu_name)) {
    return Error::usage(r.vllm.gpu_name ? "gpu_name" : "gpu_memory_total",
                        "and gpu describe the same GPU: give gpu alone (the hardware table has "
                        "its name and total)");
  }
  if (r.engine_fields.contains(request::kHostBandwidthField)) {
    return Error::usage(request::kHostBandwidthField,
                        "vLLM holds its weights and KV cache on its GPUs: no part of its plan "
                        "is read from host memory");
  }
  return Status::Ok();
}

// tensor_parallel is --tensor-parallel-size, max_tokens --max-model-len and
// a batch other than 1 --max-num-seqs when their own fields are not given;
// the GPU's total waits for the host (resolve_host).
Status resolve_settings(const EstimateRequest& r, VllmSettings& s) {
  const VllmRequest& q = r.vllm;
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
  s.runner = q.runner.value_or(s.runner);
  s.release = q.vllm_version;
  s.lora.enabled = q.enable_lora.value_or(s.lora.enabled);
  // vLLM builds no LoRA config without --enable-lora: the slots' shape
  // alone would be accepted and ignored.
  if (!s.lora.enabled) {
    const std::string_view shape = q.max_loras             ? "max_loras"
                                   : q.max_lora_rank       ? "max_lora_rank"
                                   : q.lora_dtype          ? "lora_dtype"
                                   : q.fully_sharded_loras ? "fully_sharded_loras"
                                                           : "";
    if (!shape.empty()) {
      return Error::usage(shape, "counts only with enable_lora (vLLM builds no LoRA config "
                                 "without --enable-lora)");
    }
  }
  s.lora.max_loras = q.max_loras.value_or(s.lora.max_loras);
  s.lora.max_lora_rank = q.max_lora_rank.value_or(s.lora.max_lora_rank);
  s.lora.dtype = q.lora_dtype.value_or(s.lora.dtype);
  s.lora.fully_sharded = q.fully_sharded_loras.value_or(s.lora.fully_sharded);
  // --mamba-cache-dtype and --mamba-ssm-cache-dtype (fields.cc keeps their
  // text in engine_fields; estimate_vllm checks them against the release).
  if (auto cache = r.engine_fields.find(kVllmMambaCacheDtypeField); cache != r.engine_fields.end()) {
    s.mamba_cache_dtype = cache->second;
  }
  if (auto ssm = r.engine_fields.find(kVllmMambaSsmCacheDtypeField); ssm != r.engine_fields.end()) {
    s.mamba_ssm_cache_dtype = ssm->second;
  }
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

// vLLM's own refusal (its ModelConfig check): a max_model_len past the
// length it derives from the config, rope scaling considered
// (trained_context.h), does not start unless
// VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set on the server. 0 is the default,
// the derived length itself.
Status check_derived_max_model_len(const ModelSpec& spec, const VllmSettings& s) {
  const TrainedContext derived = rope_scaled_context(spec);
  if (derived.tokens == 0 || s.max_model_len <= derived.tokens) return Status::Ok();
  return Error::usage(
      "max_model_len",
      fmt::format("{}: vLLM refuses to start: \"User-specified max_model_len ({}) is greater than "
                  "the derived max_model_len ({}: {})\"; give at most {}, or set "
                  "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 on the server",
                  s.max_model_len, s.max_model_len, derived.tokens, derived.basis,
                  derived.tokens));
}

// The GPU's total: the selected GPU's, else the first found; with none,
// an explicit limit stands for the device.
void resolve_gpu_total(const EstimateRequest& r, PreparedRequest& p) {
  VllmSettings& s = p.vllm_settings;
  if (const GpuMemory* gpu = selected_gpu(r, p.host)) {
    s.gpu_memory_total = gpu->total_bytes;
    if (!s.gpu_name_given) {
      s.gpu_name = gpu->name;
      s.rocm = gpu->vendor == GpuVendor::kAmd;
      // --gpu named it (the hardware table's name): given, not probed.
      s.gpu_name_given = p.host.described_by == "gpu";
    } else if (s.gpu_name != gpu->name) {
      // A name given without a total prices this host's GPU's memory
      // under another GPU's name: say so, the user may have meant both.
      p.warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("gpu_name is given but gpu_memory_total is not: the total is this host's "
                      "GPU's ({}, {}); give gpu_memory_total for another machine's",
                      escape_untrusted(gpu->name), format_bytes(gpu->total_bytes))});
    }
  } else if (p.budget.source == BudgetSource::kExplicit && !s.kv_cache_memory) {
    s.gpu_memory_total = p.budget.budget_bytes;
    p.warnings.push_back(Warning{WarningKind::kRequest,
                                 "no GPU found: the memory limit is taken as the GPU's total "
                                 "(give gpu_memory_total for another machine's)"});
  }
}

// The total the hardware table gives a GPU of that name; 0 when it has
// none (an unknown name prices as before: the limit, or a refusal).
uint64_t table_total_bytes(const std::string& name) {
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return 0;
  Result<const GpuSpec*> gpu = find_gpu(**table, name);
  return gpu ? (*gpu)->memory_bytes() : 0;
}

// Where releases differ (docs/engine-vllm.md, "Older releases").
constexpr ReleaseDifference kVllmReleases[] = {
    {"before 0.7, and 0.8 to 0.10", "refused: no V1 engine, or its accounting changing step by "
                                    "step"},
    {"0.7", "v0.7's V1 worker: the CUDA context counted as non-torch, logits over every batched "
            "token, no sampler run, 256 sequences"},
    {"0.11 to 0.20", "the rules read at v0.11: the CUDA graphs captured past the utilization "
                     "(not subtracted from the KV memory), the utilization's default 0.9"},
    {"after 0.32", "refused: not read yet"},
};

class VllmProfile final : public VllmCommands {
 public:
  std::string_view name() const override { return "vllm"; }
  std::string_view title() const override { return "vLLM"; }
  std::span<const RequestField> fields() const override { return vllm_fields(); }
  std::string_view summary() const override {
    return "one rank of vllm serve: its weights, KV cache capacity and startup peak";
  }
  std::string_view release() const override {
    return "vLLM 0.21 to 0.32, the worker read at v0.23 (docs/engine-vllm.md)";
  }
  EngineVersions versions() const override {
    return {.field = "vllm_version",
            .default_text = "the current line, 0.21 to 0.32 (the CUDA graphs' estimate subtracted "
                            "from the KV memory, utilization 0.92)",
            .differences = kVllmReleases};
  }
  bool needs_tensors(const EstimateRequest&) const override { return true; }

  Status resolve(const EstimateRequest& r, PreparedRequest& p) const override {
    if (Status fields = check_vllm_fields(r); !fields) return fields;
    if (!r.quant.empty()) {
      // vLLM serves the checkpoint's own quantization (its config's
      // quantization_config), which the headers price.
      return Error::usage("quant", "is not a vLLM setting: vLLM serves the checkpoint's own "
                                   "weights; price a checkpoint quantized to that mode (AWQ, "
                                   "GPTQ, FP8, ...)");
    }
    if (Status settings = resolve_settings(r, p.vllm_settings); !settings) return settings;
    p.vllm_settings.confidence = r.confidence.value_or(0);
    // A log whose engine started with the length shows vLLM accepted it
    // (check-log: parts.h); the config beside it may be a stand-in's.
    if (r.engine_fields.contains(kVllmLogStartedMaxModelLen)) return Status::Ok();
    return check_derived_max_model_len(p.model->spec, p.vllm_settings);
  }

  Status resolve_host(const EstimateRequest& r, RequestContext&,
                      PreparedRequest& p) const override {
    // A name alone, of no GPU here: the hardware table's total for it, as
    // --gpu would give (docs/hardware.md).
    VllmSettings& s = p.vllm_settings;
    if (s.gpu_name_given && s.gpu_memory_total == 0 && selected_gpu(r, p.host) == nullptr) {
      s.gpu_memory_total = table_total_bytes(s.gpu_name);
    }
    if (p.vllm_settings.gpu_memory_total != 0 && p.budget.source != BudgetSource::kExplicit) {
      // A GPU total given prices that GPU (often another machine's): its
      // memory, not this host's RAM or GPU, is what the rank's peak must fit.
      p.budget.budget_bytes = p.vllm_settings.gpu_memory_total;
      p.budget.source = BudgetSource::kGpuTotalGiven;
    }
    if (p.vllm_settings.gpu_memory_total == 0) resolve_gpu_total(r, p);
    // check-log passes the platform its log shows (parts.h).
    if (r.engine_fields.contains(kVllmLogPlatform)) p.vllm_settings.rocm = true;
    if (auto graphs = r.engine_fields.find(kVllmLogCudaGraphEstimate); graphs != r.engine_fields.end()) {
      p.vllm_settings.cuda_graph_estimate = graphs->second == "on";
    }
    if (auto runner = r.engine_fields.find(kVllmLogModelRunner); runner != r.engine_fields.end()) {
      p.vllm_settings.v2_model_runner = runner->second == "v2";
    }
    if (auto sampler = r.engine_fields.find(kVllmLogSampler); sampler != r.engine_fields.end()) {
      p.vllm_settings.flashinfer_sampler = sampler->second == "flashinfer";
    }
    if (auto engine = r.engine_fields.find(kVllmLogEngine); engine != r.engine_fields.end()) {
      p.vllm_settings.v0_engine = engine->second == "v0";
    }
    return Status::Ok();
  }

  Status estimate(const EstimateRequest& r, EstimateRun& run) const override {
    // check-log passes the MXFP4 kernel its log names (parts.h).
    std::optional<Mxfp4Kernel> kernel;
    if (auto named = r.engine_fields.find(kVllmLogMxfp4Kernel); named != r.engine_fields.end()) {
      kernel = parse_mxfp4_kernel(named->second);
    }
    Result<VllmEstimate> estimate = estimate_vllm_for_kernel(
        *run.model, run.model->tensors, run.vllm_settings, run.budget, kernel);
    if (!estimate) return estimate_error(r, estimate.error());
    run.vllm = std::move(*estimate);
    const EmbeddingInfo& embedding = run.model->spec.embedding;
    if (embedding.by_folder && run.vllm->settings.runner == VllmRunner::kGenerate) {
      run.warnings.push_back(Warning{
          WarningKind::kRequest,
          "a sentence-transformers embedding model, priced as a text generator: vLLM serves it "
          "for embeddings with --runner pooling (runner: pooling)"});
    }
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
    if (!gpu_given) warn_if_not_available_now(run, run.vllm->total_bytes);
    return Status::Ok();
  }

  bool fits(const EstimateRun& run) const override { return run.vllm->fits; }
  // One rank's peak on the budget's device; sized from the utilization
  // (no --kv-cache-memory-bytes), vLLM reserves that fraction of the GPU's
  // total for itself (docs/multi-model.md).
  std::vector<DeviceClaim> device_claims(const EstimateRun& run) const override {
    std::vector<DeviceClaim> claims = EngineProfile::device_claims(run);
    if (!run.vllm->kv_given) {
      claims.front().reserved_fraction = run.vllm->settings.gpu_memory_utilization;
      claims.front().fraction_field = "gpu_memory_utilization";
    }
    return claims;
  }
  nlohmann::ordered_json report_json(const EstimateRun& run) const override {
    nlohmann::ordered_json j = vllm_estimate_to_json(*run.model, *run.vllm, run.budget, run.warnings);
    j["speed"] = speed_json(estimate_plan_speed(vllm_speed_plan(run, *run.vllm)));
    return j;
  }
  std::string report_text(const EstimateRun& run) const override {
    return render_vllm_text(*run.model, *run.vllm, run.budget) + "\n" +
           speed_text(estimate_plan_speed(vllm_speed_plan(run, *run.vllm)));
  }
};

}  // namespace

std::unique_ptr<EngineProfile> make_vllm_profile() { return std::make_unique<VllmProfile>(); }

}  // namespace memfit::engines
