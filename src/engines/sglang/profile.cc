// The sglang profile: the request checked against SGLang's flags, the GPU
// it runs on, the plan and its report (docs/engine-sglang.md).
#include "engines/sglang/profile.h"

#include <fmt/format.h>

#include "engines/builtin.h"
#include "engines/sglang/fields.h"
#include "engines/sglang/report.h"
#include "engines/sglang/speed_plan.h"
#include "engines/shared/cache_type_field.h"
#include "engines/shared/gpu_class.h"
#include "engines/shared/selected_gpu.h"
#include "engines/shared/trained_context.h"
#include "memfit/memory_size.h"
#include "request/field_text.h"
#include "request/machine.h"

namespace memfit::sglang {
namespace {

// The fields of the request SGLang has no use for, refused by name.
Status check_common_fields(const EstimateRequest& r) {
  const std::string_view cache = other_cache_type_field(r);
  if (!cache.empty()) {
    return Error::usage(cache, "is not an SGLang setting; SGLang's KV cache type is "
                               "sglang_kv_cache_dtype (--sglang-kv-cache-dtype)");
  }
  if (!r.quant.empty()) {
    return Error::usage("quant", "is not an SGLang setting: SGLang serves the checkpoint's own "
                                 "weights; price a checkpoint quantized to that mode");
  }
  if (r.backend) return Error::usage("backend", "is an mlxcel setting: SGLang runs on the GPU's platform");
  if (r.parallel.sharding != ShardingRules::kVllm) {
    return Error::usage("parallel_engine", "is an mlxcel setting: SGLang shards by its own rules");
  }
  if (r.parallel.pipeline_parallel != 1) {
    return Error::usage("pipeline_parallel", "the SGLang profile prices tensor and data "
                                             "parallelism only (pipeline parallelism: not yet)");
  }
  if (r.machine.mac) return Error::usage("mac", "SGLang serves on CUDA and ROCm GPUs: give --gpu");
  if (r.engine_fields.contains(request::kHostBandwidthField)) {
    return Error::usage(request::kHostBandwidthField,
                        "SGLang holds its weights and KV cache on its GPUs: no part of its plan "
                        "is read from host memory");
  }
  if (r.confidence) {
    return Error::usage("confidence", "the SGLang profile has no corpus band yet "
                                      "(docs/engine-sglang.md, \"Validation\")");
  }
  if (r.max_tokens && r.engine_fields.contains("context_length")) {
    return Error::usage("max_tokens", "and context_length are both the context: give one "
                                      "(context_length is SGLang's name)");
  }
  if (r.batch != 1 && r.engine_fields.contains("max_running_requests")) {
    return Error::usage("batch", "and max_running_requests are both the requests: give one "
                                 "(max_running_requests is SGLang's name)");
  }
  return Status::Ok();
}

Status check_parallel(const Settings& s) {
  if (s.dp_lm_head && !s.dp_attention) {
    // server_args.py: "Please enable dp attention when setting enable_dp_lm_head."
    return Error::usage("enable_dp_lm_head", "needs enable_dp_attention (SGLang asserts it)");
  }
  // FusedMoE: moe_tp_size = tp_size // ep_size, asserted whole
  // (distributed/parallel_state.py, initialize_model_parallel).
  if (s.tensor_parallel % s.ep_size != 0) {
    return Error::usage("ep_size", fmt::format("must divide tensor_parallel (got TP {}, EP {})",
                                               s.tensor_parallel, s.ep_size));
  }
  if (!s.dp_attention) return Status::Ok();
  if (s.dp_size < 2 || s.tensor_parallel % s.dp_size != 0) {
    return Error::usage("enable_dp_attention", fmt::format("needs dp_size > 1 dividing "
                                                           "tensor_parallel (got TP {}, DP {})",
                                                           s.tensor_parallel, s.dp_size));
  }
  return Status::Ok();
}

// The state pool's fields change only a hybrid model's plan: on any other
// they are refused by name rather than ignored.
Status check_state_fields(const EstimateRequest& r, const ModelSpec& spec) {
  if (prices_state(spec)) return Status::Ok();
  for (std::string_view field : {"max_mamba_cache_size", "mamba_full_memory_ratio", "mamba_ssm_dtype",
                                 "disable_radix_cache"}) {
    if (!r.engine_fields.contains(field)) continue;
    return Error::usage(field, "sizes the state pool of a hybrid (Mamba-2 or gated delta-net) "
                               "model; this model has none SGLang's pool prices "
                               "(docs/engine-sglang.md, \"Hybrid models\")");
  }
  return Status::Ok();
}

// SGLang's refusal: a --context-length past the config's does not start
// unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set
// (configs/model_config.py).
Status check_context(const ModelSpec& spec, const Settings& s) {
  const uint64_t derived = rope_scaled_context(spec).tokens;
  if (derived == 0 || s.context_length <= derived) return Status::Ok();
  return Error::usage("context_length",
                      fmt::format("{}: SGLang refuses a context past the config's ({}); give at "
                                  "most {}, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 on "
                                  "the server",
                                  s.context_length, derived, derived));
}

constexpr ReleaseDifference kReleases[] = {
    {"before 0.5.3", "refused: a fixed or hand-tuned --mem-fraction-static default, before the "
                     "computed one (sgl-project/sglang PR #10975)"},
    {"0.5.3 to 0.5.9", "the computed --mem-fraction-static without the piecewise CUDA graphs' "
                       "reserve: they are off unless --enable-piecewise-cuda-graph is given; before "
                       "0.5.8 an MLA model's embedding is whole on every rank under DP attention "
                       "(split by the attention TP group from #17403)"},
    // Read in sgl-project/sglang's tree to 2026-06-08 (0.5.12 is cut by
    // 2026-05-18): _handle_gpu_memory_settings and profile_max_num_token
    // keep 0.5.6's arithmetic; #16331 (2026-03-02) turns the piecewise graphs
    // on by default and reserves for them (docs/engine-sglang.md, "Releases").
    {"0.5.10 to 0.5.15", "the piecewise CUDA graphs on by default (#16331) where "
                         "_handle_piecewise_cuda_graph leaves them on (not under DP attention, on "
                         "ROCm, under a MoE all-to-all backend, PD disaggregation or the "
                         "hierarchical cache, for a multimodal model, Qwen3-Next, DeepSeek V4, or before 0.5.13 an NSA model, #23351): "
                         "the computed --mem-fraction-static reserves 8 MiB a captured token size up "
                         "to the chunked prefill (1.5 GiB under MLA), before the 10 GiB floor"},
    // Read in main after 0.5.20 (arg_groups/memory_hook.py, #29615 and
    // #37898 in; docs/engine-sglang.md, "Releases"); 0.5.14 and 0.5.15 were
    // not read for #29615.
    {"0.5.16 to 0.5.19", "--disable-cuda-graph leaves the decode graphs' 2 MiB a batch out of the "
                         "computed --mem-fraction-static, and it follows --disaggregation-mode: a "
                         "prefill server reserves neither those graphs nor DP attention's terms, a "
                         "decode server's activations are its running requests' (#29615, "
                         "2026-06-29; 0.5.14 and 0.5.15, which may hold it, were not read for it)"},
    {"0.5.20", "a GPU of 20 to 35 GiB defaults to --chunked-prefill-size 4096 and "
               "--cuda-graph-max-bs 48 (160 from TP 4), against 2048 and 24 (80) before (#37898): "
               "more reserved, a smaller computed fraction"},
    // Checked 2026-12-07: the newest release seen is 0.5.23 (PyPI, 2026-10).
    {"0.5.21 and later 0.5", "priced by 0.5.20's rules, not read at their tags (the newest, 0.5.23, "
                             "on PyPI by 2026-10); the main tree read after 0.5.20 keeps them for what "
                             "memfit takes (DeepEP's reserve, XPU and post-capture KV sizing are not "
                             "taken)"},
    {"0.6 and later", "refused: not read yet"},
};

}  // namespace

const Settings& prepared_settings(const PreparedRequest& p) { return std::any_cast<const Settings&>(p.engine_settings); }
const Plan& run_plan(const EstimateRun& run) { return std::any_cast<const Plan&>(run.engine_estimate); }

EngineVersions SglangProfile::versions() const {
  return {.field = "sglang_version",
          .default_text = "the pinned 0.5.20 (rules read from the 0.5 line, 0.5.3 to 0.5.20)",
          .differences = kReleases};
}

std::span<const RequestField> SglangProfile::fields() const { return sglang::fields(); }

Status SglangProfile::resolve(const EstimateRequest& r, PreparedRequest& p) const {
  if (Status common = check_common_fields(r); !common) return common;
  Result<Settings> settings = read_settings(r);
  if (!settings) return settings.error();
  if (Status parallel = check_parallel(*settings); !parallel) return parallel;
  if (Status context = check_context(p.model->spec, *settings); !context) return context;
  if (Status state = check_state_fields(r, p.model->spec); !state) return state;
  p.engine_settings = std::move(*settings);
  return Status::Ok();
}

Status SglangProfile::resolve_host(const EstimateRequest& r, RequestContext&, PreparedRequest& p) const {
  Settings& s = std::any_cast<Settings&>(p.engine_settings);
  s.rocm = p.platform.backend == Backend::kRocm;
  if (const GpuMemory* gpu = selected_gpu(r, p.host)) {
    s.gpu_total_bytes = gpu->total_bytes;
    s.mxfp4_kernel = sglang_mxfp4_kernel(gpu->name);
    s.sm10_or_later = classify_gpu(gpu->name) == GpuClass::kBlackwellDatacenter;
  } else if (r.memory_limit_bytes || p.budget.source == BudgetSource::kExplicit) {
    // The request's own limit first: a context may apply a limit of its
    // own to the budget (check-log's replay has no machine).
    s.gpu_total_bytes = r.memory_limit_bytes.value_or(p.budget.budget_bytes);
    p.warnings.push_back(Warning{WarningKind::kRequest,
                                 "no GPU found: the memory limit is taken as the GPU's total (give "
                                 "--gpu NAME for another machine's)"});
  }
  // check-log passes the MXFP4 kernel its log names, or its GPU's (plan.h).
  if (auto named = r.engine_fields.find(kSglangLogMxfp4Kernel); named != r.engine_fields.end()) {
    if (std::optional<Mxfp4Kernel> kernel = parse_mxfp4_kernel(named->second)) s.mxfp4_kernel = *kernel;
  }
  // check-log passes the named GPU's nvidia-smi MiB when its log prints the
  // free memory before the weights, the date of a log that shows the
  // piecewise CUDA graphs on, and that of a log that prints no release
  // (plan.h).
  if (auto mib = r.engine_fields.find(kSglangLogGpuMemMib); mib != r.engine_fields.end()) {
    if (Result<uint64_t> n = request::parse_decimal(mib->second); n.ok()) s.gpu_mem_mib = *n;
  }
  if (auto date = r.engine_fields.find(kSglangLogPiecewiseDate); date != r.engine_fields.end()) {
    s.piecewise_log_date = date->second;
  }
  // check-log passes the date of a log that prints no release (plan.h).
  if (auto date = r.engine_fields.find(kSglangLogDate); date != r.engine_fields.end()) s.log_date = date->second;
  // check-log passes a MUSA build's log as such (plan.h, Settings::musa).
  if (auto musa = r.engine_fields.find(kSglangLogMusa); musa != r.engine_fields.end()) s.musa = musa->second == "true";
  return Status::Ok();
}

Status SglangProfile::estimate(const EstimateRequest& r, EstimateRun& run) const {
  Result<Plan> plan = plan_sglang(*run.model, run.model->tensors, prepared_settings(run));
  if (!plan) return estimate_error(r, plan.error());
  if (!plan->starts) {
    run.warnings.push_back(Warning{
        WarningKind::kRequest,
        fmt::format("SGLang would refuse to start: \"Not enough memory. Please try to increase "
                    "--mem-fraction-static.\" (the weights, {}, leave no KV pool at {:.3f})",
                    format_bytes(plan->weights_bytes), plan->mem_fraction_static)});
  } else if (!plan->holds_context) {
    run.warnings.push_back(Warning{
        WarningKind::kRequest,
        fmt::format("the KV pool holds {} tokens, less than one request of context_length {}",
                    plan->max_total_num_tokens, plan->settings.context_length)});
  } else if (!plan->serves_request) {
    run.warnings.push_back(Warning{
        WarningKind::kRequest,
        fmt::format("the state pool's {} slots serve no request ({} slots a request): raise "
                    "--max-mamba-cache-size or --mamba-full-memory-ratio",
                    plan->state_pool.slots, plan->state_pool.slots_per_request)});
  }
  if (plan->state.unpriced) {
    run.warnings.push_back(Warning{WarningKind::kModel,
                                   "the model's recurrent state (Mamba-1, lightning, a short-conv other "
                                   "than LFM2's or KDA layers) is not priced by the SGLang profile: SGLang's rule "
                                   "for it was not read; the KV pool counts the attention layers "
                                   "only"});
  }
  if (plan->settings.max_total_tokens && plan->cell.swa_layers != 0 && plan->cell.full_layers != 0 &&
      !plan->cell.same_layers) {
    run.warnings.push_back(Warning{WarningKind::kRequest,
                                   "--max-total-tokens is not applied to a hybrid SWA model whose window "
                                   "layers take other bytes a token: its pools are priced from the memory "
                                   "left (HybridSWAPoolConfigurator was not read for the cap)"});
  }
  run.engine_estimate = std::move(*plan);
  return Status::Ok();
}

bool SglangProfile::fits(const EstimateRun& run) const { return plan_fits(run_plan(run), run.budget); }

nlohmann::ordered_json SglangProfile::report_json(const EstimateRun& run) const {
  nlohmann::ordered_json j = plan_to_json(*run.model, run_plan(run), run.budget, run.warnings);
  j["speed"] = speed_json(estimate_plan_speed(sglang_speed_plan(run, run_plan(run))));
  return j;
}

std::string SglangProfile::report_text(const EstimateRun& run) const {
  return render_plan_text(*run.model, run_plan(run), run.budget) + "\n" +
         speed_text(estimate_plan_speed(sglang_speed_plan(run, run_plan(run))));
}

}  // namespace memfit::sglang

namespace memfit::engines {

std::unique_ptr<EngineProfile> make_sglang_profile() { return std::make_unique<sglang::SglangProfile>(); }

}  // namespace memfit::engines
