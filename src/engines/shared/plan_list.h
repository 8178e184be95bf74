// A solver's list of plans by decode speed (docs/speed.md, "Plans chosen
// for speed"), as every engine writes it: each plan named by the settings
// the solve moves, the plan asked first, then the plans that fit, fastest
// first, and each step's cost ("-ngl 81 -> 28, KV cache f16 -> q4_0: fits,
// decode 38 -> 31 tok/s"). The engines say what their settings are called
// (PlanSettings); the wording and order are here, once.
#ifndef MEMFIT_ENGINES_SHARED_PLAN_LIST_H_
#define MEMFIT_ENGINES_SHARED_PLAN_LIST_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engines/shared/speed_rank.h"
#include "memfit/ggml_types.h"

namespace memfit {

// What a row of the list says of its plan.
struct PlanSettings {
  std::string placement;     // "-ngl 28", "num_gpu 33", "-ngl 49 --n-cpu-moe 33"
  uint64_t value = 0;        // the number the solve moves
  bool value_alone = false;  // placement is that one setting: a step says "-ngl 37 -> 36"
  uint64_t n_gpu_layers = 0;
  uint64_t n_cpu_moe = 0;
  GgmlType cache_type_k = GgmlType::kF16;
  GgmlType cache_type_v = GgmlType::kF16;
  bool asked = false;  // every layer on the GPUs, before the solver cut it
  bool fits = false;
};

// The first plan's line: "-ngl 81, KV cache f16 (asked): does not fit,
// decode 45 tok/s".
std::string first_plan_text(const PlanSettings& plan, const DecodeRank& rank);

// The step from one plan to the next: a setting that does not change is
// named once ("num_gpu 20, KV cache f16 -> q8_0: fits, decode 38 -> 31 tok/s").
std::string plan_step_text(const PlanSettings& from, const DecodeRank& from_rank, const PlanSettings& to,
                           const DecodeRank& to_rank);

// {"value", "n_gpu_layers", "n_cpu_moe", "cache_type_k", "cache_type_v",
// "asked", "fits", "decode_tokens_per_second", "not_counted", "step",
// "speed"} (schema/inspect-report.schema.json, $defs/plan_by_speed); step
// null for the first plan.
nlohmann::ordered_json plan_row_json(const PlanSettings& plan, const DecodeRank& rank, bool first,
                                     const std::string& step);

// Plan is an engine's ranked plan: members `rank` (DecodeRank) and `step`
// (std::string). The plans that fit, fastest first; equal ones keep their
// order.
template <class Plan>
void order_by_decode(std::vector<Plan>& plans) {
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Plan& a, const Plan& b) { return decodes_faster(a.rank, b.rank); });
}

// Fills each plan's `step` from `settings_of(plan)` (a PlanSettings).
template <class Plan, class SettingsOf>
void write_steps(std::vector<Plan>& plans, SettingsOf settings_of) {
  for (size_t i = 0; i < plans.size(); ++i) {
    plans[i].step = i == 0 ? first_plan_text(settings_of(plans[i]), plans[i].rank)
                           : plan_step_text(settings_of(plans[i - 1]), plans[i - 1].rank,
                                            settings_of(plans[i]), plans[i].rank);
  }
}

// "\nPlans by decode speed at N tokens (docs/speed.md):\n" and a line a
// plan; one line saying why when no plan's speed is known; "" for none.
std::string plans_text(const std::vector<const DecodeRank*>& ranks, const std::vector<std::string>& steps,
                       uint64_t n_ctx);

template <class Plan>
std::string plans_text(const std::vector<Plan>& plans, uint64_t n_ctx) {
  std::vector<const DecodeRank*> ranks;
  std::vector<std::string> steps;
  for (const Plan& p : plans) {
    ranks.push_back(&p.rank);
    steps.push_back(p.step);
  }
  return plans_text(ranks, steps, n_ctx);
}

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PLAN_LIST_H_
