// The llama.cpp engine's answer (llamacpp.h) as JSON and as text: the same
// head as the mlxcel report (model, model_type, family, layout, weights,
// budget, total, fits, assumptions, warnings), with "engine": "llamacpp",
// the llama.cpp inputs as resolved, and
//   "llamacpp": {"model_bytes", "context_bytes", "compute_bytes",
//                "context": {"kv_bytes", "k_bytes", "v_bytes",
//                            "recurrent_bytes", "output_bytes"},
//                "figures": {"model_bytes": "exact" | "estimated",
//                            "context_bytes": "exact",
//                            "compute_bytes": "modelled"}}
#ifndef MEMFIT_LLAMACPP_REPORT_H_
#define MEMFIT_LLAMACPP_REPORT_H_

#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "memfit/llamacpp.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/visibility.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

nlohmann::ordered_json llamacpp_estimate_to_json(const Model& model, const LlamaCppEstimate& e,
                                                 const MemoryBudget& budget,
                                                 std::span<const Warning> warnings);

std::string render_llamacpp_text(const Model& model, const LlamaCppEstimate& e,
                                 const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMACPP_REPORT_H_
