// The sglang profile's report (engine.h: report_json, report_text) and the
// launch command it and fit print. Private to the library.
#ifndef MEMFIT_ENGINES_SGLANG_REPORT_H_
#define MEMFIT_ENGINES_SGLANG_REPORT_H_

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/sglang/plan.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/warning.h"

namespace memfit::sglang {

// Whether `plan` fits `budget`: SGLang starts (a positive pool), the pool
// holds one request of the context, and the rank's peak is within budget.
bool plan_fits(const Plan& plan, const MemoryBudget& budget);
// The bytes the rank's peak is checked against: an explicit limit, else
// the GPU's total.
uint64_t budget_limit(const Plan& plan, const MemoryBudget& budget);

// `python -m sglang.launch_server --model-path PATH --tp N
// --mem-fraction-static F --context-length C ...`: every setting the plan
// was priced at that is not SGLang's own default, the fraction and the
// context always; the path quoted for a POSIX shell (shell_word.h).
std::string launch_command(const Model& model, const Plan& plan);

nlohmann::ordered_json plan_to_json(const Model& model, const Plan& plan, const MemoryBudget& budget,
                                    std::span<const Warning> warnings);
std::string render_plan_text(const Model& model, const Plan& plan, const MemoryBudget& budget);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_REPORT_H_
