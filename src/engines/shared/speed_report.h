// A plan's speed as every engine's report gives it (docs/speed.md, "In the
// report"): decode tokens a second at the start and at the end of the
// context asked, prefill tokens a second and the time to the first token
// of the prompt asked, each with its band and basis, and per device the
// bytes a token reads there. An engine lists the parts of its plan
// (SpeedPlan) and adds speed_json() / speed_text() to its report.
#ifndef MEMFIT_ENGINES_SHARED_SPEED_REPORT_H_
#define MEMFIT_ENGINES_SHARED_SPEED_REPORT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/model.h"
#include "memfit/request.h"
#include "memfit/speed.h"

namespace memfit {

// One device's part of a plan.
struct SpeedPlanPart {
  std::string device;           // "cuda:0", "cpu", "gpu"
  DeviceThroughput throughput;  // bandwidth 0: unknown
  uint64_t weight_bytes = 0;    // the weights held there, as stored
  uint64_t kv_bytes = 0;        // its KV cache at the end of the context asked
};

struct SpeedPlan {
  SpeedModelShape shape;  // weight_bytes: every weight of the plan
  std::vector<SpeedPlanPart> parts;
  DeviceThroughput compute;  // where the prompt's matrix products run
  std::string backend;       // an efficiency group: "cuda", "metal", "rocm", "mlx"
  // The runtime whose runs published-runs.tsv would hold ("llamacpp" for
  // Ollama too: it runs llama.cpp's runner); "": not checked.
  std::string engine;
  uint64_t context_tokens = 0;
  uint64_t prompt_tokens = 0;
  // Non-empty: the plan decodes no token (an embedding or reranking model
  // served for its vectors or scores), and why; only prefill is timed.
  std::string no_decode;
  // Set: the engine's first call of a process pays this one-time cost
  // before its first token (mlx-lm on a Mac: first_call_seconds()), which
  // the report adds to the time to the first token as a second figure.
  std::optional<FirstCallSeconds> first_call;
};

// One part as decoded: its active bytes a token and the seconds a token at
// the bound, at the start (no cache) and at the end of the context.
struct PartSpeed {
  SpeedPlanPart part;
  uint64_t active_weight_bytes = 0;
  double bound_start_s = 0;
  double bound_end_s = 0;
};

struct PlanSpeed {
  std::string unknown;  // non-empty: why there is no figure; the rest unset
  // Non-empty: why prefill and the first token have no figure (the
  // compute device's FP16 peak is unknown: a host CPU); decode has one.
  std::string prefill_unknown;
  // Non-empty: the plan decodes no token (SpeedPlan::no_decode); decode
  // is unset and the prompt's prefill is the whole figure.
  std::string no_decode;
  // Non-empty when published-runs.tsv has no run of the plan's engine:
  // "no published mlxcel run: the band is fitted on other engines' runs",
  // or when a vLLM or SGLang plan's own group (engine_fit_group()) has too
  // few runs of a phase and that phase takes the backend's band: "too few
  // published vllm/sglang prefill runs on cuda: that band is fitted on
  // other engines' runs" (docs/speed.md, "vLLM and SGLang").
  std::string engine_basis;
  SpeedRange decode_start;
  SpeedRange decode_end;
  SpeedRange prefill;
  ComputePeak prefill_peak = ComputePeak::kFp16;  // the peak prefill.bound is at
  uint64_t context_tokens = 0;
  uint64_t prompt_tokens = 0;
  double ttft_s = 0;  // prompt_tokens / prefill.median; low and high from its band
  double ttft_low_s = 0;
  double ttft_high_s = 0;
  // The first token of a process's first call, for a plan whose first
  // forward pass pays a one-time cost (SpeedPlan::first_call): ttft + the
  // cost's median, ttft_low + its low, ttft_high + its high. Unset for
  // other plans and when prefill is unknown.
  std::optional<double> first_call_ttft_s;
  double first_call_ttft_low_s = 0;
  double first_call_ttft_high_s = 0;
  std::vector<PartSpeed> parts;
};

// The plan's speed with the bands fitted on the published runs
// (memfit/published_runs.h, fitted once). unknown is "give --gpu or --mac"
// when no part's device has a known bandwidth, names the device when a
// part holding bytes has none, and says why when the bands or the compute
// figure are missing.
PlanSpeed estimate_plan_speed(const SpeedPlan& plan);
// The same with the bands given (tests), and the engines that have
// published runs (engine_basis is set when plan.engine is not among them,
// or when a phase of a vLLM or SGLang plan falls back to its backend's band).
PlanSpeed estimate_plan_speed(const SpeedPlan& plan, const EfficiencyTable& decode,
                              const EfficiencyTable& prefill,
                              std::span<const std::string> engines_with_runs = {});

// The shape the speed estimate reads of a model whose plan holds
// `weight_bytes`: parameters from the config, active ones the experts a
// token uses (memfit/speed.h: SpeedModelShape).
SpeedModelShape speed_shape(const Model& model, uint64_t weight_bytes);

// A plan on one device: a Mac's unified memory (--mac), else the first
// GPU, else the host; all of `weight_bytes` and `kv_bytes` (at the end of
// `context_tokens`) there, the prompt's products on it too. For the
// engines without a layer split (mlx-lm, vLLM on one GPU, mlxcel).
SpeedPlan single_device_speed_plan(const PreparedRequest& run, std::string backend,
                                   uint64_t weight_bytes, uint64_t kv_bytes,
                                   uint64_t context_tokens, uint64_t prompt_tokens);

// {"decode_tokens_per_second": {"start", "end", "context_tokens", "basis",
// "runs"}, "prefill_tokens_per_second": {...}, "time_to_first_token_s":
// {..., "first_call": {"median", "low", "high", "basis"} for an engine whose
// first call pays a one-time cost}, "devices": [...]}, with "engine_basis" when the engine has no
// published run (or too few for a phase); unknown: the three figures null and "unknown"; prefill
// unknown: its two figures null and "prefill_unknown"; no decode: decode
// null, "no_decode" its reason and no "devices".
nlohmann::ordered_json speed_json(const PlanSpeed& speed);

// One line ending in a newline: "speed: decode ...", "speed: no decode
// (...); prefill ..." or "speed: unknown: ...".
std::string speed_text(const PlanSpeed& speed);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_SPEED_REPORT_H_
