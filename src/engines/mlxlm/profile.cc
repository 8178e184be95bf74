// The mlx-lm profile (engine.h): the peak mx.get_peak_memory() reports for
// mlx_lm.generate (docs/engine-mlxlm.md).
#include "engines/builtin.h"
#include "engines/shared/config_tower.h"
#include "engines/shared/parallel_field.h"
#include "engines/shared/cache_type_field.h"
#include "engines/shared/trained_context.h"
#include "engines/mlxlm/commands.h"
#include "engines/mlxlm/fields.h"
#include "engines/mlxlm/release_defaults.h"
#include "memfit/checked_math.h"
#include "memfit/hardware.h"
#include "engines/mlxlm/speed_plan.h"
#include "engines/shared/speed_report.h"
#include "engines/shared/weight_mode.h"
#include "memfit/mlxlm_report.h"
#include "memfit/request.h"

namespace memfit::engines {
namespace {

// The Apple GPU's class: --mlx-chip, else the tier of the Mac --mac names
// (data/hardware/apple.tsv), else none (Metal's Max limits).
std::optional<MlxChip> chip_of(const EstimateRequest& r) {
  if (r.mlxlm.mlx_chip) return r.mlxlm.mlx_chip;
  if (!r.machine.mac) return std::nullopt;
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return std::nullopt;
  Result<const MacSpec*> mac = find_mac(**table, *r.machine.mac);
  if (!mac) return std::nullopt;  // the machine's own check refuses the name
  Result<MlxChip> chip = parse_mlx_chip((*mac)->tier);
  return chip ? std::optional<MlxChip>(*chip) : std::nullopt;
}

// MLX's command-buffer limits (docs/engine-mlxlm.md, "Run-ahead"): Metal's
// for the chip (Max when none is named), or with backend cuda the CUDA
// graphs'; then the limits the request gives, as MLX's environment
// variables override either. Another backend is refused by name.
Result<MlxBufferLimits> buffer_limits(const EstimateRequest& r) {
  MlxBufferLimits limits;
  if (r.backend && *r.backend == Backend::kCuda) {
    if (r.mlxlm.mlx_chip) {
      return Error::usage("mlx_chip", "is an Apple GPU's class, and backend cuda runs MLX on an "
                                      "NVIDIA GPU: give mlx_max_ops_per_buffer and "
                                      "mlx_max_mb_per_buffer for its limits");
    }
    limits = mlx_cuda_limits(r.mlxlm.mlx_version);
  } else if (r.backend && *r.backend != Backend::kMetal) {
    return Error::usage("backend", "mlx-lm runs on MLX's Metal or CUDA backend: give metal or "
                                   "cuda (docs/engine-mlxlm.md)");
  } else if (std::optional<MlxChip> chip = chip_of(r)) {
    limits = mlx_metal_limits(*chip);
  }
  limits.max_ops = r.mlxlm.mlx_max_ops_per_buffer.value_or(limits.max_ops);
  limits.max_mega_elements = r.mlxlm.mlx_max_mb_per_buffer.value_or(limits.max_mega_elements);
  return limits;
}

// Where releases differ (docs/engine-mlxlm.md, "Releases"), oldest first.
constexpr ReleaseDifference kMlxLmReleases[] = {
    {"mlx-lm before 0.17.0", "refused: the prompt ran in one pass (prefill_step_size came with "
                             "mlx-examples #931)"},
    {"mlx-lm 0.17.0 to 0.19.x", "the prompt's attention unfused (the score matrix): the MLX of "
                                "their time had no fused prompt kernel (MLX v0.21.0)"},
    {"mlx-lm 0.17.0 to 0.22.1", "prompt chunks of 512 tokens by default (2048 since mlx-lm #40)"},
    {"mlx-lm 0.17.0 to 0.26.x", "the last chunk's logits over all its tokens"},
    {"mlx-lm 0.27.0 and later", "the last chunk's logits one row: the prompt's last token alone "
                                "gets logits (mlx-lm #406), as when none is given"},
    // Checked 2026-12-07: the stored mlx-lm and MLX repositories' newest
    // tags are v0.31.3 (2026-04-22) and v0.32.1 (2026-08-18); PyPI lists
    // mlx-lm 0.32.2 and MLX 0.32.4 (2026-10), whose sources are not stored.
    {"mlx-lm 0.32.0 and later", "priced by 0.31.3's rules, not read: the stored mlx-lm ends at "
                                "main of 2026-08-22 (0.32.0, untagged), where ChunkedKVCache's "
                                "trim counts its valid tokens (#1673) and ArraysCache's state "
                                "carries its padding (#1632)"},
    {"MLX before 0.24.0", "refused (--mlx-version): no bound on the command buffers in flight"},
    {"MLX 0.24.0 to 0.30.4", "a 16-bit projection splits its reduction (float32 partials held "
                             "with the op) only when (M/16) x (N/16) <= 32; a quantized one never"},
    {"MLX 0.30.5 and later", "16-bit: when ceil(M/16) x ceil(N/16) <= 1024 (2048 on Max, Ultra) "
                             "and K >= max(M, N) (mlx #3087)"},
    {"MLX 0.31.2 and later", "quantized: at the chip's matvec row limit and over, toward 512 "
                             "threadgroups (mlx #3120); the MLX priced is the lowest the mlx-lm "
                             "release installs with (0.31.2 from mlx-lm 0.31.3)"},
    {"MLX after 0.32.1", "priced as 0.32.1, not read (0.32.4 on PyPI by 2026-10)"},
};

class MlxLmProfile final : public MlxLmCommands {
 public:
  std::string_view name() const override { return "mlx-lm"; }
  std::vector<std::string_view> aliases() const override { return {"mlxlm", "mlx_lm"}; }
  std::span<const RequestField> fields() const override { return mlxlm_fields(); }
  std::string_view summary() const override {
    return "the peak mx.get_peak_memory() reports for mlx_lm.generate";
  }
  std::string_view release() const override { return "mlx-lm v0.31.3 (older releases by their rules) on MLX v0.24.0 to v0.32.1 (docs/engine-mlxlm.md)"; }
  EngineVersions versions() const override {
    return {.field = "mlx_lm_version",
            .default_text = "0.31.3, the newest release read (v0.31.3 of 2026-04-22; later "
                            "ones by its rules, not read)",
            .differences = kMlxLmReleases};
  }

  // mlx_lm.generate takes the prompt and the tokens to generate as they are.
  std::optional<GenerationTokens> generation_tokens(uint64_t prompt, uint64_t generated,
                                                    bool) const override {
    return GenerationTokens{.max_tokens = generated, .prompt_tokens = prompt};
  }

  // max_tokens is the tokens generated and batch the sequences.
  Status resolve(const EstimateRequest& r, PreparedRequest& p) const override {
    std::string_view other = other_cache_type_field(r);
    if (other.empty()) {
      other = wants_parallel_plan(r.parallel)               ? parallel_field_given(r.parallel)
              : r.parallel.sharding != ShardingRules::kVllm ? "parallel_engine"
                                                            : "";
    }
    if (!other.empty()) {
      return Error::usage(other, "is not an mlx-lm setting; mlx-lm takes prompt_tokens, max_tokens, "
                                 "batch, prefill_step_size, kv_bits, kv_group_size, max_kv_size, "
                                 "mlx_lm_version, mlx_version, mlx_chip, mlx_max_ops_per_buffer, "
                                 "mlx_max_mb_per_buffer and backend");
    }
    Result<MlxBufferLimits> buffers = buffer_limits(r);
    if (!buffers) return buffers.error();
    const MlxLmRequest& q = r.mlxlm;
    MlxLmSettings& s = p.mlxlm_settings;
    s.prompt_tokens = q.prompt_tokens.value_or(s.prompt_tokens);
    s.max_tokens = r.max_tokens.value_or(s.max_tokens);
    s.batch = r.batch;
    s.mlx_lm_release = q.mlx_lm_version.value_or(kMlxLmNewestRead);
    s.prefill_step_size =
        q.prefill_step_size.value_or(mlxlm_default_prefill_step_size(s.mlx_lm_release));
    // A release older than MLX's fused prompt kernel ran on an MLX without it.
    if (s.mlx_lm_release < kMlxLmAfterMlxFusedPrompt) s.fused_sdpa = false;
    s.kv_bits = q.kv_bits.value_or(s.kv_bits);
    s.kv_group_size = q.kv_group_size.value_or(s.kv_group_size);
    s.max_kv_size = q.max_kv_size.value_or(s.max_kv_size);
    s.buffers = *buffers;
    s.confidence = r.confidence.value_or(0);
    // The cache holds the prompt and every generated token.
    warn_past_trained_context(rope_scaled_context(p.model->spec),
                              (CheckedBytes(s.prompt_tokens) + s.max_tokens).saturated(),
                              "--prompt-tokens + --max-tokens =", p.warnings);
    drop_config_tower(p, "mlx-lm loads the language model alone (models/gemma3.py and "
                         "qwen3_5.py sanitize() drop the vision weights)");
    return apply_mlx_weight_mode(r, p);
  }

  Status estimate(const EstimateRequest& r, EstimateRun& run) const override {
    Result<MlxLmEstimate> estimate = estimate_mlxlm(*run.model, run.mlxlm_settings, run.budget);
    if (!estimate) return estimate_error(r, estimate.error());
    run.mlxlm = std::move(*estimate);
    if (run.mlxlm->max_kv_size_ignored) {
      run.warnings.push_back(Warning{WarningKind::kRequest,
                                     "max_kv_size is ignored: this model's make_cache builds its "
                                     "own caches, as mlx-lm's make_prompt_cache does"});
    }
    warn_if_not_available_now(run, run.mlxlm->total_bytes);
    return Status::Ok();
  }

  bool fits(const EstimateRun& run) const override { return run.mlxlm->fits; }
  nlohmann::ordered_json report_json(const EstimateRun& run) const override {
    nlohmann::ordered_json j = mlxlm_estimate_to_json(*run.model, *run.mlxlm, run.budget, run.warnings);
    j["speed"] = speed_json(estimate_plan_speed(mlxlm_speed_plan(run, *run.mlxlm)));
    return j;
  }
  std::string report_text(const EstimateRun& run) const override {
    return render_mlxlm_text(*run.model, *run.mlxlm, run.budget) + "\n" +
           speed_text(estimate_plan_speed(mlxlm_speed_plan(run, *run.mlxlm)));
  }
};

}  // namespace

std::unique_ptr<EngineProfile> make_mlxlm_profile() { return std::make_unique<MlxLmProfile>(); }

}  // namespace memfit::engines
