// The num-gpu solve's plans ranked by decode speed (fit_plans.h). Ollama's
// runner is llama.cpp's: a plan's speed is llama.cpp's estimate at the
// placement the scheduler made (engines/llamacpp/speed_plan.h).
#include "engines/ollama/fit_plans.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "engines/ollama/plan.h"

namespace memfit::ollama {
namespace {

using Json = nlohmann::ordered_json;

// The KV types OLLAMA_KV_CACHE_TYPE takes (envconfig.KvCacheType).
constexpr std::array<GgmlType, 3> kKvTypes = {GgmlType::kF16, GgmlType::kQ8_0, GgmlType::kQ4_0};

std::string kv_name(const Priced& p) { return std::string(ggml_type_traits(p.decisions.kv_type).name); }

uint64_t num_gpu(const Priced& p) { return p.decisions.given.num_gpu.value_or(p.decisions.gpu_layers); }

// Two plans load alike: the same layers on the GPUs, the same KV type.
bool same_load(const Priced& a, const Priced& b) {
  return a.decisions.gpu_layers == b.decisions.gpu_layers && a.decisions.kv_type == b.decisions.kv_type;
}

// "num_gpu 33 -> 20, KV cache f16 -> q8_0: fits, decode 38 -> 31 tok/s".
std::string step_text(const OllamaRankedPlan& from, const OllamaRankedPlan& to) {
  const uint64_t n_from = num_gpu(from.priced);
  const uint64_t n_to = num_gpu(to.priced);
  const std::string layers =
      n_from == n_to ? fmt::format("num_gpu {}", n_to) : fmt::format("num_gpu {} -> {}", n_from, n_to);
  const std::string k_from = kv_name(from.priced);
  const std::string k_to = kv_name(to.priced);
  const std::string cache = k_from == k_to ? "KV cache " + k_to : fmt::format("KV cache {} -> {}", k_from, k_to);
  return fmt::format("{}, {}: {}, {}", layers, cache, to.priced.estimate.fits ? "fits" : "does not fit",
                     decode_step_text(from.rank, to.rank));
}

std::string first_text(const OllamaRankedPlan& r) {
  return fmt::format("num_gpu {}, KV cache {}{}: {}, decode {}", num_gpu(r.priced), kv_name(r.priced),
                     r.asked ? " (asked)" : "", r.priced.estimate.fits ? "fits" : "does not fit",
                     decode_rank_text(r.rank));
}

}  // namespace

Result<Priced> price(OllamaRequest given, PreparedRequest p) {
  Result<OllamaDecisions> d = plan_load(given, p);
  if (!d) return d.error();
  Result<LlamaCppEstimate> e = estimate_llamacpp(*p.model, p.llamacpp_settings, p.budget);
  if (!e) return e.error();
  return Priced{std::move(*d), std::move(*e)};
}

Result<std::vector<OllamaRankedPlan>> ollama_plans_by_speed(const PreparedRequest& p,
                                                            const OllamaRequest& base,
                                                            const NumGpuSolve& solve) {
  auto plan_of = [&](Priced priced, bool asked) {
    DecodeRank rank = rank_decode(ollama_speed_plan(p, priced.estimate));
    return OllamaRankedPlan{std::move(priced), asked, std::move(rank), ""};
  };
  std::vector<OllamaRankedPlan> plans;
  OllamaRequest every_layer = base;
  every_layer.num_gpu = std::any_cast<const OllamaDecisions&>(p.engine_settings).total_layers;
  Result<Priced> asked = price(every_layer, p);
  if (asked) plans.push_back(plan_of(std::move(*asked), true));

  std::vector<OllamaRankedPlan> fitting;
  for (GgmlType type : kKvTypes) {
    OllamaRequest given = base;
    given.kv_cache_type = type;
    // A quantized cache needs flash attention on (llm/server.go): on
    // unless the request turned it off.
    if (type != GgmlType::kF16) given.flash_attention = base.flash_attention.value_or(true);
    if (type == GgmlType::kF16 && !base.kv_cache_type) given.kv_cache_type.reset();
    Result<std::optional<Priced>> solved = solve(given);
    if (!solved) return solved.error();
    if (!*solved || !(*solved)->estimate.fits) continue;
    const Priced& s = **solved;
    const bool seen = (!plans.empty() && same_load(plans.front().priced, s)) ||
                      std::any_of(fitting.begin(), fitting.end(),
                                  [&](const OllamaRankedPlan& r) { return same_load(r.priced, s); });
    if (!seen) fitting.push_back(plan_of(std::move(**solved), false));
  }
  std::stable_sort(fitting.begin(), fitting.end(), [](const OllamaRankedPlan& a, const OllamaRankedPlan& b) {
    return decodes_faster(a.rank, b.rank);
  });
  for (OllamaRankedPlan& r : fitting) plans.push_back(std::move(r));
  for (size_t i = 0; i < plans.size(); ++i) {
    plans[i].step = i > 0 ? step_text(plans[i - 1], plans[i]) : first_text(plans[i]);
  }
  return plans;
}

Json ollama_plans_json(const std::vector<OllamaRankedPlan>& plans) {
  Json list = Json::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    const OllamaRankedPlan& r = plans[i];
    Json row = {{"value", num_gpu(r.priced)},
                {"n_gpu_layers", r.priced.decisions.gpu_layers},
                {"n_cpu_moe", 0},
                {"cache_type_k", kv_name(r.priced)},
                {"cache_type_v", kv_name(r.priced)},
                {"asked", r.asked},
                {"fits", r.priced.estimate.fits}};
    row.update(decode_rank_json(r.rank));
    row["step"] = i > 0 ? Json(r.step) : Json(nullptr);
    row["speed"] = speed_json(r.rank.speed);
    list.push_back(std::move(row));
  }
  return list;
}

std::string ollama_plans_text(const std::vector<OllamaRankedPlan>& plans) {
  if (plans.empty()) return "";
  const bool any_known = std::any_of(plans.begin(), plans.end(), [](const OllamaRankedPlan& r) {
    return r.rank.decode_tokens_per_second().has_value();
  });
  if (!any_known) {
    return fmt::format("\nPlans by decode speed: {}\n", decode_rank_text(plans.front().rank));
  }
  std::string out = fmt::format("\nPlans by decode speed at {} tokens (docs/speed.md):\n",
                                plans.front().priced.estimate.context.n_ctx_seq);
  for (const OllamaRankedPlan& r : plans) out += fmt::format("  {}\n", r.step);
  return out;
}

}  // namespace memfit::ollama
