// The placement solves' plans ranked by decode speed (fit_plans.h). Each
// plan is labelled by what the solve moves: -ngl (with --n-cpu-moe when
// it keeps experts on the host) or --n-cpu-moe; a step names a setting
// that does not change once.
#include "engines/llamacpp/fit_plans.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "engines/llamacpp/speed_plan.h"
#include "memfit/llamacpp_solver.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

std::string type_name(GgmlType type) { return std::string(ggml_type_traits(type).name); }

bool ranks_plans(LlamaCppSolveFor what) {
  return what == LlamaCppSolveFor::kGpuLayers || what == LlamaCppSolveFor::kNCpuMoe;
}

// -ngl as asked, else as the placement resolved it.
uint64_t gpu_layers(const LlamaCppEstimate& e) {
  return e.settings.placement.n_gpu_layers.value_or(e.placement.n_gpu_layers);
}

uint64_t solved_value(LlamaCppSolveFor what, const LlamaCppEstimate& e) {
  return what == LlamaCppSolveFor::kNCpuMoe ? e.settings.placement.n_cpu_moe : gpu_layers(e);
}

// "--n-cpu-moe 33" (n-cpu-moe), "-ngl 28" or "-ngl 49 --n-cpu-moe 33".
std::string placement_label(LlamaCppSolveFor what, const LlamaCppEstimate& e) {
  const uint64_t n_cpu_moe = e.settings.placement.n_cpu_moe;
  if (what == LlamaCppSolveFor::kNCpuMoe) return fmt::format("--n-cpu-moe {}", n_cpu_moe);
  if (n_cpu_moe == 0) return fmt::format("-ngl {}", gpu_layers(e));
  return fmt::format("-ngl {} --n-cpu-moe {}", gpu_layers(e), n_cpu_moe);
}

std::string cache_label(const LlamaCppSettings& s) {
  if (s.cache_type_k == s.cache_type_v) return type_name(s.cache_type_k);
  return fmt::format("K {} V {}", type_name(s.cache_type_k), type_name(s.cache_type_v));
}

// "-ngl 81 -> 28, KV cache f16 -> q4_0: fits, decode 38 -> 31 tok/s".
std::string step_text(LlamaCppSolveFor what, const LlamaCppRankedPlan& from, const LlamaCppRankedPlan& to) {
  const std::string p_from = placement_label(what, from.estimate);
  const std::string p_to = placement_label(what, to.estimate);
  const bool one_setting = from.estimate.settings.placement.n_cpu_moe == 0 &&
                           to.estimate.settings.placement.n_cpu_moe == 0;
  std::string placement = p_to;
  if (p_from != p_to) {
    // "-ngl 37 -> 36" when only the one number moves.
    placement = what == LlamaCppSolveFor::kNCpuMoe || one_setting
                    ? fmt::format("{} -> {}", p_from, solved_value(what, to.estimate))
                    : fmt::format("{} -> {}", p_from, p_to);
  }
  const std::string c_from = cache_label(from.estimate.settings);
  const std::string c_to = cache_label(to.estimate.settings);
  const std::string cache =
      c_from == c_to ? "KV cache " + c_to : fmt::format("KV cache {} -> {}", c_from, c_to);
  return fmt::format("{}, {}: {}, {}", placement, cache, to.estimate.fits ? "fits" : "does not fit",
                     decode_step_text(from.rank, to.rank));
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
  std::stable_sort(fitting.begin(), fitting.end(), [](const LlamaCppRankedPlan& a, const LlamaCppRankedPlan& b) {
    return decodes_faster(a.rank, b.rank);
  });
  if (asked) plans.push_back(plan_of(*asked, true));
  for (LlamaCppRankedPlan& r : fitting) plans.push_back(std::move(r));
  for (size_t i = 0; i < plans.size(); ++i) {
    LlamaCppRankedPlan& r = plans[i];
    r.step = i > 0 ? step_text(fit.what, plans[i - 1], r)
                   : fmt::format("{}, KV cache {}{}: {}, decode {}", placement_label(fit.what, r.estimate),
                                 cache_label(r.estimate.settings), r.asked ? " (asked)" : "",
                                 r.estimate.fits ? "fits" : "does not fit", decode_rank_text(r.rank));
  }
  return plans;
}

Json llamacpp_plans_json(LlamaCppSolveFor what, const std::vector<LlamaCppRankedPlan>& plans) {
  if (!ranks_plans(what)) return nullptr;
  Json list = Json::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    const LlamaCppRankedPlan& r = plans[i];
    Json row = {{"value", solved_value(what, r.estimate)},
                {"n_gpu_layers", gpu_layers(r.estimate)},
                {"n_cpu_moe", r.estimate.settings.placement.n_cpu_moe},
                {"cache_type_k", type_name(r.estimate.settings.cache_type_k)},
                {"cache_type_v", type_name(r.estimate.settings.cache_type_v)},
                {"asked", r.asked},
                {"fits", r.estimate.fits}};
    row.update(decode_rank_json(r.rank));
    row["step"] = i > 0 ? Json(r.step) : Json(nullptr);
    row["speed"] = speed_json(r.rank.speed);
    list.push_back(std::move(row));
  }
  return list;
}

std::string llamacpp_plans_text(const std::vector<LlamaCppRankedPlan>& plans) {
  if (plans.empty()) return "";
  const bool any_known = std::any_of(plans.begin(), plans.end(), [](const LlamaCppRankedPlan& r) {
    return r.rank.decode_tokens_per_second().has_value();
  });
  if (!any_known) {
    return fmt::format("\nPlans by decode speed: {}\n", decode_rank_text(plans.front().rank));
  }
  std::string out = fmt::format("\nPlans by decode speed at {} tokens (docs/speed.md):\n",
                                plans.front().estimate.context.n_ctx_seq);
  for (const LlamaCppRankedPlan& r : plans) out += fmt::format("  {}\n", r.step);
  return out;
}

}  // namespace memfit
