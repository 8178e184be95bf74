// The mlx-lm engine's answer (mlxlm.h) as JSON and as text: the head every
// engine's report has (model, model_type, family, layout, engine "mlx-lm",
// weights, budget, total, fits, assumptions, warnings), the mlx-lm inputs,
// and
//   "mlxlm": {"peak_phase", "weights_bytes", "kv_bytes", "recurrent_bytes",
//             "transient_bytes", "phases": {"prefill_chunk" | "last_chunk" |
//             "decode": {kv, attention, mlp, logits, regrow, transient,
//             total}}, "figures": {term: "exact" | "modelled" | ...},
//             "wired": {"limit_bytes", "limit_mb", "set_wired_limit",
//             "sysctl"}}
// total_bytes is the peak mx.get_peak_memory() reports.
#ifndef MEMFIT_MLXLM_REPORT_H_
#define MEMFIT_MLXLM_REPORT_H_

#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "memfit/memory_budget.h"
#include "memfit/mlxlm.h"
#include "memfit/model.h"
#include "memfit/visibility.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

nlohmann::ordered_json mlxlm_estimate_to_json(const Model& model, const MlxLmEstimate& e,
                                              const MemoryBudget& budget,
                                              std::span<const Warning> warnings);

std::string render_mlxlm_text(const Model& model, const MlxLmEstimate& e,
                              const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXLM_REPORT_H_
