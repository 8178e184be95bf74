// The report's speed (speed_report.h). Decode: each part's active bytes
// (its weights x active / all parameters) and its KV cache read at its
// device's bandwidth, the parts one after the other; the KV cache is none
// at the start of the context and all of it at the end. Prefill: the
// prompt's FLOPs at the compute device's peak that the backend's bands are
// fitted against (INT8 on CUDA and ROCm, else FP16). The bands are those of
// the plan's backend and its weights' family (docs/speed.md).
#include "engines/shared/speed_report.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "memfit/hardware.h"
#include "memfit/memory_size.h"
#include "memfit/published_runs.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

// The family of the plan's weights from their width: bits a parameter of
// 14 and more (F16, BF16 with a few F32 norms) is 16-bit, of 7.5 and more
// (Q8_0's 8.5, MLX 8bit's 8.5) 8-bit, narrower "under 8-bit".
std::string weight_family(const SpeedModelShape& shape) {
  if (shape.params == 0) return "under 8-bit";
  const double bits = 8.0 * static_cast<double>(shape.weight_bytes) / static_cast<double>(shape.params);
  if (bits >= 14) return "16-bit";
  if (bits >= 7.5) return "8-bit";
  return "under 8-bit";
}

struct FittedBands {
  EfficiencyTable decode;
  EfficiencyTable prefill;
  std::vector<std::string> engines;  // those with a published run
  std::string error;
};

const FittedBands& published_bands() {
  static const FittedBands bands = [] {
    FittedBands out;
    Result<const PublishedRuns*> runs = published_runs();
    Result<const HardwareTable*> table = hardware_table();
    if (!runs || !table) {
      out.error = "the published runs do not load";
      return out;
    }
    Result<EfficiencyTable> decode = fit_published_efficiency(**runs, **table, SpeedPhase::kDecode);
    Result<EfficiencyTable> prefill = fit_published_efficiency(**runs, **table, SpeedPhase::kPrefill);
    if (!decode || !prefill) {
      out.error = "the published runs do not fit";
      return out;
    }
    out.decode = std::move(*decode);
    out.prefill = std::move(*prefill);
    for (const PublishedRun& run : (*runs)->runs) {
      if (std::find(out.engines.begin(), out.engines.end(), run.engine) == out.engines.end()) {
        out.engines.push_back(run.engine);
      }
    }
    return out;
  }();
  return bands;
}

PlanSpeed unknown(std::string reason) {
  PlanSpeed out;
  out.unknown = std::move(reason);
  return out;
}

// Why the plan's bytes cannot be timed; "" when they can.
std::string missing_bandwidth(const SpeedPlan& plan) {
  bool any_known = false;
  for (const SpeedPlanPart& p : plan.parts) any_known = any_known || p.throughput.bandwidth_gb_s > 0;
  if (!any_known) return "give --gpu or --mac";
  for (const SpeedPlanPart& p : plan.parts) {
    if (p.throughput.bandwidth_gb_s > 0 || p.weight_bytes + p.kv_bytes == 0) continue;
    // The host's is the request's host_bandwidth_gb_s (the part every
    // plan names "cpu"): say so.
    const std::string_view ask =
        p.device == "cpu" ? ": give --host-bandwidth (memfit hardware --measure prints this host's)" : "";
    return fmt::format("the memory bandwidth of {} ({}) is not known, and it holds {} of the plan{}",
                       p.device, p.throughput.name, format_bytes(p.weight_bytes + p.kv_bytes), ask);
  }
  return "";
}

// Sets out's prefill and first token from the compute device's FP16 peak;
// returns why they have no figure ("" when they have one).
std::string add_prefill(const SpeedPlan& plan, const EfficiencyTable& prefill,
                        const std::string& group, const std::string& family, PlanSpeed& out) {
  // The peak the group's prefill bands were fitted against.
  const ComputePeak peak = prefill_compute_peak(group);
  if (peak_tera_per_second(plan.compute, peak) <= 0) {
    return fmt::format("the FP16 peak of {} is not known", plan.compute.name);
  }
  std::optional<EfficiencyBand> band = prefill.find(group, family);
  if (!band) return "no published run to fit a band on";
  Result<double> bound =
      prefill_bound_tokens_per_second(plan.shape, plan.prompt_tokens / 2, plan.compute, peak);
  if (!bound) return bound.error().message();
  out.prefill = apply_efficiency(*bound, plan.shape.n_layers, *band);
  out.prefill_peak = peak;
  const double prompt = static_cast<double>(plan.prompt_tokens);
  out.ttft_s = prompt / out.prefill.median;
  out.ttft_low_s = prompt / out.prefill.high;
  out.ttft_high_s = prompt / out.prefill.low;
  if (plan.first_call) {
    out.first_call_ttft_s = out.ttft_s + plan.first_call->median;
    out.first_call_ttft_low_s = out.ttft_low_s + plan.first_call->low;
    out.first_call_ttft_high_s = out.ttft_high_s + plan.first_call->high;
  }
  return "";
}

// The one-time cost's source, as the report names it.
constexpr std::string_view kFirstCallBasis =
    "a process's first forward pass builds its Metal kernels (mlx_lm.generate runs no warm-up): "
    "docs/speed.md, \"mlx-lm: the first call\"";

Json range_json(const SpeedRange& r) {
  return {{"bound", r.bound}, {"median", r.median}, {"low", r.low}, {"high", r.high}};
}

// "120" above 10, "8.4" below: tokens a second as a reader compares them.
std::string rate(double tokens_per_second) {
  return tokens_per_second >= 10 ? fmt::format("{:.0f}", tokens_per_second)
                                 : fmt::format("{:.1f}", tokens_per_second);
}

std::string range_text(const SpeedRange& r) {
  return fmt::format("{} tok/s ({}-{})", rate(r.median), rate(r.low), rate(r.high));
}

// Sets out's prefill and first-token figures, or "prefill_unknown".
void add_prefill_json(const PlanSpeed& s, Json& out) {
  if (!s.prefill_unknown.empty()) {
    out["prefill_unknown"] = s.prefill_unknown;
    return;
  }
  out["prefill_tokens_per_second"] = {{"bound", s.prefill.bound},
                                      {"peak", to_string(s.prefill_peak)},
                                      {"median", s.prefill.median},
                                      {"low", s.prefill.low},
                                      {"high", s.prefill.high},
                                      {"prompt_tokens", s.prompt_tokens},
                                      {"basis", s.prefill.efficiency.basis},
                                      {"runs", s.prefill.efficiency.runs}};
  out["time_to_first_token_s"] = {{"median", s.ttft_s},
                                  {"low", s.ttft_low_s},
                                  {"high", s.ttft_high_s},
                                  {"prompt_tokens", s.prompt_tokens}};
  if (s.first_call_ttft_s) {
    out["time_to_first_token_s"]["first_call"] = {{"median", *s.first_call_ttft_s},
                                                  {"low", s.first_call_ttft_low_s},
                                                  {"high", s.first_call_ttft_high_s},
                                                  {"basis", kFirstCallBasis}};
  }
}

// ", 0.43 s (0.25-0.61) on a process's first call" or "".
std::string first_call_text(const PlanSpeed& s) {
  if (!s.first_call_ttft_s) return "";
  return fmt::format(", {:.2g} s ({:.2g}-{:.2g}) on a process's first call", *s.first_call_ttft_s,
                     s.first_call_ttft_low_s, s.first_call_ttft_high_s);
}

// A plan that decodes nothing: decode null with the reason, the prompt's
// prefill and time as usual.
Json no_decode_json(const PlanSpeed& s) {
  Json out = {{"decode_tokens_per_second", nullptr},
              {"prefill_tokens_per_second", nullptr},
              {"time_to_first_token_s", nullptr},
              {"no_decode", s.no_decode}};
  add_prefill_json(s, out);
  if (!s.engine_basis.empty()) out["engine_basis"] = s.engine_basis;
  return out;
}

// "speed: no decode (...); prefill 9000 tok/s (...); the prompt's 512
// tokens in 0.057 s (...) (basis, N runs)".
std::string no_decode_text(const PlanSpeed& s) {
  if (!s.prefill_unknown.empty()) {
    return fmt::format("speed: no decode ({}); prefill unknown: {}\n", s.no_decode, s.prefill_unknown);
  }
  const std::string engine = s.engine_basis.empty() ? "" : "; " + s.engine_basis;
  return fmt::format("speed: no decode ({}); prefill {}; the prompt's {} tokens in {:.2g} s ({:.2g}-{:.2g}){} "
                     "({}, {} runs{})\n",
                     s.no_decode, range_text(s.prefill), s.prompt_tokens, s.ttft_s, s.ttft_low_s,
                     s.ttft_high_s, first_call_text(s), s.prefill.efficiency.basis,
                     s.prefill.efficiency.runs, engine);
}

}  // namespace

SpeedModelShape speed_shape(const Model& model, uint64_t weight_bytes) {
  const ModelSpec& spec = model.spec;
  const ModelGeometry& g = spec.geometry;
  SpeedModelShape shape;
  shape.weight_bytes = weight_bytes;
  shape.params = spec.analytical_params;
  shape.active_params = spec.analytical_params;
  if (spec.moe.experts > 0 && spec.moe.experts_per_token < spec.moe.experts) {
    // A routed expert is gate, up and down: 3 x hidden x its width.
    const uint64_t width = spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : g.intermediate;
    // The config's fields are untrusted: an overflow leaves every
    // parameter counted as active (the slower, safer figure).
    const CheckedBytes expert_layers = CheckedBytes(g.layers) * 3 * g.hidden * width;  // one expert, every layer
    const CheckedBytes unused = expert_layers * (spec.moe.experts - spec.moe.experts_per_token);
    if (unused.value() && *unused.value() < shape.params) shape.active_params = shape.params - *unused.value();
    // Every routed expert: what a llama.cpp prompt's expert products are
    // priced from (SpeedModelShape::expert_tile_factor); left 0 where it
    // does not fit the counts above.
    const CheckedBytes routed = expert_layers * spec.moe.experts;
    if (routed.value() && *routed.value() <= shape.params &&
        shape.params - *routed.value() <= shape.active_params) {
      shape.expert_params = *routed.value();
    }
  }
  shape.n_layers = g.layers;
  shape.attention_width = g.heads * g.head_dim;
  shape.kv_width = g.kv_heads * g.head_dim;
  return shape;
}

SpeedPlan single_device_speed_plan(const PreparedRequest& run, std::string backend,
                                   uint64_t weight_bytes, uint64_t kv_bytes,
                                   uint64_t context_tokens, uint64_t prompt_tokens) {
  const SpeedMachine& m = run.speed_machine;
  SpeedPlan plan;
  plan.shape = speed_shape(*run.model, weight_bytes);
  plan.backend = std::move(backend);
  plan.engine = std::string(run.engine->name());
  plan.context_tokens = context_tokens;
  plan.prompt_tokens = prompt_tokens;
  plan.compute = m.unified ? *m.unified : (m.gpus.empty() ? m.host : m.gpus.front());
  plan.parts.push_back({m.unified ? "gpu" : (m.gpus.empty() ? "cpu" : "gpu:0"), plan.compute,
                        weight_bytes, kv_bytes});
  return plan;
}

PlanSpeed estimate_plan_speed(const SpeedPlan& plan) {
  const FittedBands& bands = published_bands();
  if (!bands.error.empty()) return unknown(bands.error);
  return estimate_plan_speed(plan, bands.decode, bands.prefill, bands.engines);
}

PlanSpeed estimate_plan_speed(const SpeedPlan& plan, const EfficiencyTable& decode,
                              const EfficiencyTable& prefill,
                              std::span<const std::string> engines_with_runs) {
  const std::string family = weight_family(plan.shape);
  PlanSpeed out;
  out.context_tokens = plan.context_tokens;
  out.prompt_tokens = plan.prompt_tokens;
  // vLLM and SGLang are priced by their own group's bands where it has
  // enough runs of the phase, else by their backend's (band_group()).
  const std::string group = engine_fit_group(plan.engine, plan.backend);
  const std::string decode_group = band_group(decode, group, plan.backend);
  const std::string prefill_group = band_group(prefill, group, plan.backend);
  if (!plan.engine.empty() && std::find(engines_with_runs.begin(), engines_with_runs.end(),
                                        plan.engine) == engines_with_runs.end()) {
    out.engine_basis =
        fmt::format("no published {} run: the band is fitted on other engines' runs", plan.engine);
  } else if (group != plan.backend && (decode_group != group || prefill_group != group)) {
    const std::string phases = decode_group != group && prefill_group != group ? "decode and prefill"
                               : decode_group != group                        ? "decode"
                                                                              : "prefill";
    out.engine_basis = fmt::format(
        "too few published vllm/sglang {} runs on {}: that band is fitted on other engines' runs",
        phases, plan.backend);
  }
  if (!plan.no_decode.empty()) {
    // Nothing is decoded: the prompt's prefill, compute-bound, is all the
    // figure there is; no bandwidth is read.
    out.no_decode = plan.no_decode;
    out.prefill_unknown = add_prefill(plan, prefill, prefill_group, family, out);
    return out;
  }
  if (std::string why = missing_bandwidth(plan); !why.empty()) return unknown(std::move(why));
  std::optional<EfficiencyBand> decode_band = decode.find(decode_group, family);
  if (!decode_band) return unknown("no published run to fit a band on");
  double start_s = 0;
  double end_s = 0;
  for (const SpeedPlanPart& p : plan.parts) {
    SpeedModelShape part_shape = plan.shape;
    part_shape.weight_bytes = p.weight_bytes;
    PartSpeed ps{p, part_shape.active_weight_bytes(), 0, 0};
    if (p.throughput.bandwidth_gb_s > 0) {
      const double bytes_per_s = p.throughput.bandwidth_gb_s * 1e9;
      ps.bound_start_s = static_cast<double>(ps.active_weight_bytes) / bytes_per_s;
      ps.bound_end_s = static_cast<double>(ps.active_weight_bytes + p.kv_bytes) / bytes_per_s;
    }
    // The parts are layers in sequence: a token waits for each in turn.
    start_s += ps.bound_start_s;
    end_s += ps.bound_end_s;
    out.parts.push_back(std::move(ps));
  }
  if (start_s <= 0) return unknown("the plan reads no bytes a token");
  out.decode_start = apply_efficiency(1 / start_s, plan.shape.n_layers, *decode_band);
  out.decode_end = apply_efficiency(1 / end_s, plan.shape.n_layers, *decode_band);
  out.prefill_unknown = add_prefill(plan, prefill, prefill_group, family, out);
  return out;
}

Json speed_json(const PlanSpeed& s) {
  if (!s.unknown.empty()) {
    return {{"decode_tokens_per_second", nullptr},
            {"prefill_tokens_per_second", nullptr},
            {"time_to_first_token_s", nullptr},
            {"unknown", s.unknown}};
  }
  if (!s.no_decode.empty()) return no_decode_json(s);
  Json devices = Json::array();
  for (const PartSpeed& p : s.parts) {
    devices.push_back({{"device", p.part.device},
                       {"name", p.part.throughput.name},
                       {"bandwidth_gb_s", p.part.throughput.bandwidth_gb_s},
                       {"weight_bytes", p.part.weight_bytes},
                       {"active_weight_bytes", p.active_weight_bytes},
                       {"kv_bytes", p.part.kv_bytes},
                       {"bound_seconds_per_token_start", p.bound_start_s},
                       {"bound_seconds_per_token_end", p.bound_end_s}});
  }
  Json out = {{"decode_tokens_per_second",
               {{"start", range_json(s.decode_start)},
                {"end", range_json(s.decode_end)},
                {"context_tokens", s.context_tokens},
                {"basis", s.decode_start.efficiency.basis},
                {"runs", s.decode_start.efficiency.runs}}},
              {"prefill_tokens_per_second", nullptr},
              {"time_to_first_token_s", nullptr}};
  add_prefill_json(s, out);
  if (!s.engine_basis.empty()) out["engine_basis"] = s.engine_basis;
  out["devices"] = devices;
  return out;
}

std::string speed_text(const PlanSpeed& s) {
  if (!s.unknown.empty()) return fmt::format("speed: unknown: {}\n", s.unknown);
  if (!s.no_decode.empty()) return no_decode_text(s);
  const std::string prefill =
      s.prefill_unknown.empty()
          ? fmt::format("prefill {}; first token {:.2g} s ({:.2g}-{:.2g}) for {} tokens{}",
                        range_text(s.prefill), s.ttft_s, s.ttft_low_s, s.ttft_high_s, s.prompt_tokens,
                        first_call_text(s))
          : fmt::format("prefill unknown: {}", s.prefill_unknown);
  const std::string engine = s.engine_basis.empty() ? "" : "; " + s.engine_basis;
  return fmt::format("speed: decode {} at the start, {} at {} tokens; {} ({}, {} runs{})\n",
                     range_text(s.decode_start), range_text(s.decode_end), s.context_tokens, prefill,
                     s.decode_start.efficiency.basis, s.decode_start.efficiency.runs, engine);
}

}  // namespace memfit
