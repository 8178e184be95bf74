// fit_vllm(): the request layer's step from a prepared vllm request to the
// solver's answer (vllm_fit.h).
#include <fmt/format.h>

#include "memfit/untrusted_text.h"
#include "memfit/vllm_fit.h"
#include "memfit/vllm_report.h"

namespace memfit {

Result<VllmSolveFor> parse_vllm_solve(std::string_view text) {
  if (text == "max-model-len" || text == "max-tokens") return VllmSolveFor::kMaxModelLen;
  if (text == "max-num-seqs" || text == "batch") return VllmSolveFor::kMaxNumSeqs;
  const std::string_view what = "vllm solves max-model-len (or max-tokens) and max-num-seqs (or batch)";
  if (text == "ctx-size" || text == "parallel" || text == "gpu-layers" || text == "n-cpu-moe") {
    return Error::usage("solve", fmt::format("{} is a llamacpp solve; {}", text, what));
  }
  if (text == "slots") {
    return Error::usage("solve", fmt::format("slots is an mlxcel and llamacpp solve; {}", what));
  }
  return Error::usage("solve", fmt::format("{}: {}", quote_untrusted(text), what));
}

Result<VllmFit> fit_vllm(VllmSolveFor what, const EstimateRequest& r, const PreparedRequest& p) {
  if (p.engine->name() != "vllm") return Error::usage("engine", "is not vllm");
  // max_tokens is --max-model-len and a batch other than 1 --max-num-seqs
  // under vllm (request.h).
  if (what == VllmSolveFor::kMaxModelLen && (r.vllm.max_model_len || r.max_tokens)) {
    return Error::usage(r.vllm.max_model_len ? "max_model_len" : "max_tokens",
                        "is what solving max-model-len finds: leave it out");
  }
  if (what == VllmSolveFor::kMaxNumSeqs && (r.vllm.max_num_seqs || r.batch != 1)) {
    return Error::usage(r.vllm.max_num_seqs ? "max_num_seqs" : "batch",
                        "is what solving max-num-seqs finds: leave it out");
  }
  Result<VllmSolution> solution =
      solve_vllm(what, *p.model, p.model->tensors, p.vllm_settings, p.budget);
  if (!solution) {
    if (solution.error().kind() == ErrorKind::kUsage) return solution.error();
    return solution.error().within(quote_untrusted(r.model));
  }
  VllmFit fit;
  fit.answer = std::move(*solution);
  if (fit.answer.estimate) fit.flags = vllm_serve_flags(*fit.answer.estimate);
  return fit;
}

}  // namespace memfit
