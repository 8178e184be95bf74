// The mlxcel profile (engine.h): the MLX runtime's own estimator, with its
// allocator headroom (docs/engine-mlxcel.md); the default for models that
// are not GGUF.
#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "engines/builtin.h"
#include "engines/mlxcel/speed_plan.h"
#include "engines/shared/config_tower.h"
#include "engines/shared/speed_report.h"
#include "engines/shared/trained_context.h"
#include "engines/mlxcel/commands.h"
#include "engines/shared/weight_mode.h"
#include "memfit/checked_math.h"
#include "memfit/parallel_report.h"
#include "memfit/mlxcel_report.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"
#include "request/request_fields.h"

namespace memfit::engines {
namespace {

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

// A cache type with no mlxcel reading (set_cache_type kept only the
// llama.cpp one) names a llama.cpp type.
Status check_cache_types(const EstimateRequest& r) {
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

// The KV width; its warning goes with the request's, before the model's.
Status resolve_kv_width(const EstimateRequest& r, PreparedRequest& p) {
  std::vector<Warning> kv_warnings;
  Result<KvElement> element = request::resolve_kv_element(r, kv_warnings);
  if (!element) return element.error();
  p.inputs.kv_element = *element;
  auto first_model = std::find_if(p.warnings.begin(), p.warnings.end(),
                                  [](const Warning& w) { return w.kind == WarningKind::kModel; });
  p.warnings.insert(first_model, kv_warnings.begin(), kv_warnings.end());
  return Status::Ok();
}

class MlxcelProfile final : public MlxcelCommands {
 public:
  std::string_view name() const override { return "mlxcel"; }
  std::string_view summary() const override {
    return "the MLX runtime's own estimator: weights, KV cache and its allocator headroom";
  }
  std::string_view release() const override {
    return "the MLX runtime's own estimator (docs/engine-mlxcel.md)";
  }
  bool is_default_for(const Model& model) const override {
    return model.weights.source != WeightsSource::kGgufHeader;
  }
  std::string_view default_for_text() const override { return "models that are not GGUF"; }
  bool needs_tensors(const EstimateRequest& r) const override {
    return wants_parallel_plan(r.parallel);
  }

  Status resolve(const EstimateRequest& r, PreparedRequest& p) const override {
    if (Status types = check_cache_types(r); !types) return types;
    if (r.confidence) {
      // The corpus holds runs of the engines that print their memory
      // (docs/validation-logs.md), none of this runtime's: no margin.
      return Error::usage("confidence", "has no band to add under mlxcel: the log corpus holds no "
                                        "mlxcel runs; give engine llamacpp, mlx-lm or vllm");
    }
    if (r.parallel.sharding != ShardingRules::kVllm && !wants_parallel_plan(r.parallel)) {
      // The sharding rules are read by the per-rank plan only.
      return Error::usage("parallel_engine", "chooses the sharding rules of the per-rank plan, "
                                             "and there is none: give tensor_parallel or "
                                             "pipeline_parallel above 1");
    }
    warn_past_trained_context(rope_scaled_context(p.model->spec), p.inputs.max_tokens,
                              r.max_tokens ? "--max-tokens" : "the default --max-tokens",
                              p.warnings);
    drop_config_tower(p, "mlxcel loads the language model alone, as mlx-lm does");
    if (Status mode = apply_mlx_weight_mode(r, p); !mode) return mode;
    return resolve_kv_width(r, p);
  }

  Status estimate(const EstimateRequest& r, EstimateRun& run) const override {
    Result<MlxcelEstimate> estimate =
        memfit::estimate_mlxcel(*run.model, run.inputs, run.settings, run.platform, run.budget);
    if (!estimate) return estimate.error().within(quote_untrusted(r.model));
    run.estimate = std::move(*estimate);
    // The load the host must hold now: weights + KV + activation.
    const uint64_t load = (CheckedBytes(run.estimate.weights_bytes) + run.estimate.kv.total_bytes +
                           run.estimate.activation_bytes)
                              .saturated();
    warn_if_not_available_now(run, load);
    if (wants_parallel_plan(r.parallel)) {
      Result<ParallelPlan> plan = plan_for(r, run);
      if (!plan) return plan.error();
      run.parallel = std::move(*plan);
    }
    return Status::Ok();
  }

  bool fits(const EstimateRun& run) const override {
    // With a per-rank plan every rank must fit its device; the whole-model
    // figure (one device holding everything) no longer decides.
    return run.parallel ? run.parallel->fits : run.estimate.fits;
  }

  nlohmann::ordered_json report_json(const EstimateRun& run) const override {
    nlohmann::ordered_json j = mlxcel_estimate_to_json(*run.model, run.estimate, run.budget, run.warnings);
    if (run.parallel) j["parallel"] = parallel_plan_to_json(*run.parallel);
    j["speed"] = speed_json(estimate_plan_speed(mlxcel_speed_plan(run, run.estimate)));
    return j;
  }

  std::string report_text(const EstimateRun& run) const override {
    std::string out = render_mlxcel_text(*run.model, run.estimate, run.budget);
    if (run.parallel) out += render_parallel_plan_text(*run.parallel);
    return out + "\n" + speed_text(estimate_plan_speed(mlxcel_speed_plan(run, run.estimate)));
  }
};

}  // namespace

std::unique_ptr<EngineProfile> make_mlxcel_profile() { return std::make_unique<MlxcelProfile>(); }

}  // namespace memfit::engines
