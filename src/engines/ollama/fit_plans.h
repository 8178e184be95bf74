// The num-gpu solve's plans ranked by decode speed (docs/speed.md, "Plans
// chosen for speed"): what `fit --engine ollama --solve num-gpu` lists
// after its answer, in text and JSON, the shape of llama.cpp's
// (engines/llamacpp/fit_plans.h). Private to the library.
#ifndef MEMFIT_ENGINES_OLLAMA_FIT_PLANS_H_
#define MEMFIT_ENGINES_OLLAMA_FIT_PLANS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/ollama/settings.h"
#include "engines/shared/speed_rank.h"
#include "memfit/request.h"

namespace memfit::ollama {

// One load as Ollama would make it, priced by llama.cpp's rules.
struct Priced {
  OllamaDecisions decisions;
  LlamaCppEstimate estimate;
};

// Plans `given` (plan_load) on a copy of `p` and prices it.
Result<Priced> price(OllamaRequest given, PreparedRequest p);

// The largest num_gpu whose load fits for `given` (its num_gpu ignored);
// nullopt when none does.
using NumGpuSolve = std::function<Result<std::optional<Priced>>(const OllamaRequest& given)>;

struct OllamaRankedPlan {
  Priced priced;
  bool asked = false;  // every layer on the GPUs, before the solver cut it
  DecodeRank rank;
  // From the plan before it: "num_gpu 33 -> 20, KV cache f16 -> q8_0:
  // fits, decode 38 -> 31 tok/s"; the first plan's own line.
  std::string step;
};

// The plan asked first (num_gpu = every layer at the request's KV type;
// left out when it cannot be priced), then the largest num_gpu that fits
// at each KV type Ollama takes (f16, q8_0, q4_0; a quantized type with
// OLLAMA_FLASH_ATTENTION on unless the request turned it off, which
// Ollama requires), fastest first (speed_rank.h). Plans that load alike
// (the scheduler's layers and the KV type Ollama applied) are listed once.
Result<std::vector<OllamaRankedPlan>> ollama_plans_by_speed(const PreparedRequest& p,
                                                            const OllamaRequest& base,
                                                            const NumGpuSolve& solve);

// [{"value" (num_gpu), "n_gpu_layers" (the scheduler's), "n_cpu_moe" (0),
// "cache_type_k", "cache_type_v", "asked", "fits",
// "decode_tokens_per_second", "not_counted", "step", "speed"}]
// (schema/inspect-report.schema.json, $defs/plan_by_speed).
nlohmann::ordered_json ollama_plans_json(const std::vector<OllamaRankedPlan>& plans);

// "\nPlans by decode speed at N tokens (docs/speed.md):\n" and a line a
// plan; one line saying why when no plan's speed is known; "" for none.
std::string ollama_plans_text(const std::vector<OllamaRankedPlan>& plans);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_FIT_PLANS_H_
