// The llama.cpp placement solves' plans ranked by decode speed
// (docs/speed.md, "Plans chosen for speed"): what `fit --solve gpu-layers`
// and `--solve n-cpu-moe` list after their rows, in text and JSON.
#ifndef MEMFIT_ENGINES_LLAMACPP_FIT_PLANS_H_
#define MEMFIT_ENGINES_LLAMACPP_FIT_PLANS_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/shared/speed_rank.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/request.h"

namespace memfit {

struct LlamaCppRankedPlan {
  LlamaCppEstimate estimate;
  bool asked = false;  // the plan asked, before the solver cut it
  DecodeRank rank;
  // From the plan before it: "-ngl 81 -> 28, KV cache f16 -> q4_0: fits,
  // decode 38 -> 31 tok/s"; the first plan's own line.
  std::string step;
};

// gpu-layers and n-cpu-moe: the plan asked first (every layer on the GPUs,
// or no expert on the host, at the request's K and V types; left out when
// its estimate fails), then each cache type's solved plan that fits,
// fastest first (speed_rank.h). Under gpu-layers a mixture of experts with
// a GGUF tensor list (and no --n-cpu-moe asked) adds each cache type's
// fewest --n-cpu-moe with every layer on the GPUs: experts on the host
// instead of whole layers. Empty for the other solves.
std::vector<LlamaCppRankedPlan> llamacpp_plans_by_speed(const PreparedRequest& prepared,
                                                        const LlamaCppFit& fit);

// [{"value", "n_gpu_layers", "n_cpu_moe", "cache_type_k", "cache_type_v",
// "asked", "fits", "decode_tokens_per_second", "not_counted", "step",
// "speed"}] (schema/inspect-report.schema.json, $defs/plan_by_speed);
// null for the solves that rank nothing.
nlohmann::ordered_json llamacpp_plans_json(LlamaCppSolveFor what,
                                           const std::vector<LlamaCppRankedPlan>& plans);

// "\nPlans by decode speed at N tokens (docs/speed.md):\n" and a line a
// plan; one line saying why when no plan's speed is known; "" for none.
std::string llamacpp_plans_text(const std::vector<LlamaCppRankedPlan>& plans);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_LLAMACPP_FIT_PLANS_H_
