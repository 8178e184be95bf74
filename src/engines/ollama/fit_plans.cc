// The num-gpu solve's plans ranked by decode speed (fit_plans.h). Ollama's
// runner is llama.cpp's: a plan's speed is llama.cpp's estimate at the
// placement the scheduler made (engines/llamacpp/speed_plan.h).
#include "engines/ollama/fit_plans.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "engines/ollama/plan.h"
#include "engines/shared/plan_list.h"

namespace memfit::ollama {
namespace {

using Json = nlohmann::ordered_json;

// The KV types OLLAMA_KV_CACHE_TYPE takes (envconfig.KvCacheType).
constexpr std::array<GgmlType, 3> kKvTypes = {GgmlType::kF16, GgmlType::kQ8_0, GgmlType::kQ4_0};

uint64_t num_gpu(const Priced& p) { return p.decisions.given.num_gpu.value_or(p.decisions.gpu_layers); }

// Two plans load alike: the same layers on the GPUs, the same KV type.
bool same_load(const Priced& a, const Priced& b) {
  return a.decisions.gpu_layers == b.decisions.gpu_layers && a.decisions.kv_type == b.decisions.kv_type;
}

// A plan named by num_gpu and OLLAMA_KV_CACHE_TYPE (one type for K and V).
PlanSettings settings_of(const OllamaRankedPlan& r) {
  PlanSettings s;
  s.value = num_gpu(r.priced);
  s.placement = fmt::format("num_gpu {}", s.value);
  s.value_alone = true;
  s.n_gpu_layers = r.priced.decisions.gpu_layers;
  s.cache_type_k = s.cache_type_v = r.priced.decisions.kv_type;
  s.asked = r.asked;
  s.fits = r.priced.estimate.fits;
  return s;
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
  order_by_decode(fitting);
  for (OllamaRankedPlan& r : fitting) plans.push_back(std::move(r));
  write_steps(plans, settings_of);
  return plans;
}

Json ollama_plans_json(const std::vector<OllamaRankedPlan>& plans) {
  Json list = Json::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    list.push_back(plan_row_json(settings_of(plans[i]), plans[i].rank, i == 0, plans[i].step));
  }
  return list;
}

std::string ollama_plans_text(const std::vector<OllamaRankedPlan>& plans) {
  if (plans.empty()) return "";
  return plans_text(plans, plans.front().priced.estimate.context.n_ctx_seq);
}

}  // namespace memfit::ollama
