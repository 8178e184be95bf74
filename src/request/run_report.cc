#include "memfit/run_report.h"

#include "memfit/llamacpp_report.h"
#include "memfit/mlxlm_report.h"
#include "memfit/parallel_report.h"
#include "memfit/report.h"
#include "memfit/vllm_report.h"

namespace memfit {

nlohmann::ordered_json run_to_json(const EstimateRun& run) {
  if (run.llamacpp) return llamacpp_estimate_to_json(*run.model, *run.llamacpp, run.budget, run.warnings);
  if (run.mlxlm) return mlxlm_estimate_to_json(*run.model, *run.mlxlm, run.budget, run.warnings);
  if (run.vllm) return vllm_estimate_to_json(*run.model, *run.vllm, run.budget, run.warnings);
  nlohmann::ordered_json j = estimate_to_json(*run.model, run.estimate, run.budget, run.warnings);
  if (run.parallel) j["parallel"] = parallel_plan_to_json(*run.parallel);
  return j;
}

std::string render_run_text(const EstimateRun& run) {
  if (run.llamacpp) return render_llamacpp_text(*run.model, *run.llamacpp, run.budget);
  if (run.mlxlm) return render_mlxlm_text(*run.model, *run.mlxlm, run.budget);
  if (run.vllm) return render_vllm_text(*run.model, *run.vllm, run.budget);
  std::string out = render_estimate_text(*run.model, run.estimate, run.budget);
  if (run.parallel) out += render_parallel_plan_text(*run.parallel);
  return out;
}

}  // namespace memfit
