// The placement solves' plans ranked by decode speed (fit_plans.h). Each
// plan is labelled by what the solve moves: -ngl (with --n-cpu-moe when
// it keeps experts on the host) or --n-cpu-moe; a step names a setting
// that does not change once.
#include "engines/llamacpp/fit_plans.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "engines/llamacpp/speed_plan.h"
#include "engines/shared/plan_list.h"
#include "memfit/llamacpp_solver.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

bool ranks_plans(LlamaCppSolveFor what) {
  return what == LlamaCppSolveFor::kGpuLayers || what == LlamaCppSolveFor::kNCpuMoe;
}

// -ngl as asked, else as the placement resolved it.
uint64_t gpu_layers(const LlamaCppEstimate& e) {
  return e.settings.placement.n_gpu_layers.value_or(e.placement.n_gpu_layers);
}

// A plan named by what the solve moves: "--n-cpu-moe 33" (n-cpu-moe),
// "-ngl 28" or "-ngl 49 --n-cpu-moe 33" (gpu-layers).
PlanSettings settings_of(LlamaCppSolveFor what, const LlamaCppRankedPlan& r) {
  const LlamaCppEstimate& e = r.estimate;
  const uint64_t n_cpu_moe = e.settings.placement.n_cpu_moe;
  PlanSettings s;
  if (what == LlamaCppSolveFor::kNCpuMoe) {
    s.placement = fmt::format("--n-cpu-moe {}", n_cpu_moe);
    s.value = n_cpu_moe;
    s.value_alone = true;
  } else {
    s.placement = n_cpu_moe == 0 ? fmt::format("-ngl {}", gpu_layers(e))
                                 : fmt::format("-ngl {} --n-cpu-moe {}", gpu_layers(e), n_cpu_moe);
    s.value = gpu_layers(e);
    s.value_alone = n_cpu_moe == 0;
  }
  s.n_gpu_layers = gpu_layers(e);
  s.n_cpu_moe = n_cpu_moe;
  s.cache_type_k = e.settings.cache_type_k;
  s.cache_type_v = e.settings.cache_type_v;
  s.asked = r.asked;
  s.fits = e.fits;
  return s;
}

// The estimate at the solve's most demanding value (every layer on the
// GPUs; no expert on the host) and the request's own K and V types.
std::optional<LlamaCppEstimate> asked_estimate(const PreparedRequest& p, LlamaCppSolveFor what) {
  LlamaCppSettings s = p.llamacpp_settings;
  if (what == LlamaCppSolveFor::kGpuLayers) {
    // The solver's ceiling (llamacpp_solver.h): blocks + the output layer.
    s.placement.n_gpu_layers = p.model->spec.layers.size() + p.model->spec.nextn_layers + 1;
  } else {
    s.placement.n_cpu_moe = 0;
  }
  Result<LlamaCppEstimate> e = estimate_llamacpp(*p.model, s, p.budget);
  if (!e) return std::nullopt;
  return std::move(*e);
}

// Under gpu-layers, for a mixture of experts whose tensors can be moved by
// name: at each cache type, the fewest --n-cpu-moe with every layer on the
// GPUs, when some (not none) fit.
std::vector<LlamaCppEstimate> expert_plans(const PreparedRequest& p, const LlamaCppFit& fit) {
  std::vector<LlamaCppEstimate> out;
  const LlamaCppSettings& asked = p.llamacpp_settings;
  if (fit.what != LlamaCppSolveFor::kGpuLayers || p.model->spec.moe.experts == 0 ||
      p.model->tensors.empty() || asked.placement.n_cpu_moe != 0) {
    return out;
  }
  for (const LlamaCppSolution& row : fit.by_cache_type) {
    LlamaCppSettings s = asked;
    s.cache_type_k = s.cache_type_v = row.cache_type;
    Result<LlamaCppSolution> moe = solve_llamacpp(LlamaCppSolveFor::kNCpuMoe, *p.model, s, p.budget);
    if (moe && moe->value && *moe->value > 0 && moe->estimate) out.push_back(std::move(*moe->estimate));
  }
  return out;
}

}  // namespace

std::vector<LlamaCppRankedPlan> llamacpp_plans_by_speed(const PreparedRequest& p, const LlamaCppFit& fit) {
  std::vector<LlamaCppRankedPlan> plans;
  if (!ranks_plans(fit.what)) return plans;
  auto plan_of = [&](const LlamaCppEstimate& e, bool asked) {
    return LlamaCppRankedPlan{e, asked, rank_decode(llamacpp_speed_plan(p, e)), ""};
  };
  auto same = [&](const LlamaCppEstimate& a, const LlamaCppEstimate& b) {
    return gpu_layers(a) == gpu_layers(b) &&
           a.settings.placement.n_cpu_moe == b.settings.placement.n_cpu_moe &&
           a.settings.cache_type_k == b.settings.cache_type_k &&
           a.settings.cache_type_v == b.settings.cache_type_v;
  };
  const std::optional<LlamaCppEstimate> asked = asked_estimate(p, fit.what);
  std::vector<LlamaCppRankedPlan> fitting;
  auto add = [&](const LlamaCppEstimate& e) {
    if (!e.fits || (asked && same(*asked, e))) return;
    for (const LlamaCppRankedPlan& r : fitting) {
      if (same(r.estimate, e)) return;
    }
    fitting.push_back(plan_of(e, false));
  };
  for (const LlamaCppSolution& row : fit.by_cache_type) {
    if (row.estimate) add(*row.estimate);
  }
  if (fit.answer.estimate) add(*fit.answer.estimate);
  for (const LlamaCppEstimate& e : expert_plans(p, fit)) add(e);
  order_by_decode(fitting);
  if (asked) plans.push_back(plan_of(*asked, true));
  for (LlamaCppRankedPlan& r : fitting) plans.push_back(std::move(r));
  write_steps(plans, [&](const LlamaCppRankedPlan& r) { return settings_of(fit.what, r); });
  return plans;
}

Json llamacpp_plans_json(LlamaCppSolveFor what, const std::vector<LlamaCppRankedPlan>& plans) {
  if (!ranks_plans(what)) return nullptr;
  Json list = Json::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    list.push_back(plan_row_json(settings_of(what, plans[i]), plans[i].rank, i == 0, plans[i].step));
  }
  return list;
}

std::string llamacpp_plans_text(const std::vector<LlamaCppRankedPlan>& plans) {
  if (plans.empty()) return "";
  return plans_text(plans, plans.front().estimate.context.n_ctx_seq);
}

}  // namespace memfit
