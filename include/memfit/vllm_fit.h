// `memfit fit --engine vllm` and POST /v1/fit for a vLLM request: the
// solver's answer (vllm_solver.h) for a prepared request, the vllm serve
// flags at the answer, and the answer as JSON and as text. Written once
// for both front ends.
//
// JSON (`memfit fit --json`; /v1/fit puts "model" in front):
//   {"solve": "max-model-len" | "max-num-seqs", "engine": "vllm",
//    "value": 131072,           the answer; null when not even 1 fits
//    "capped": true,            value is the ceiling: more would fit
//    "ceiling": 131072, "ceiling_reason": "the config's context: ...",
//    "reason": null,            one line on why nothing fits, else null
//    "budget_bytes": ..., "budget_source": "explicit",
//    "flags": ["--max-model-len", "131072", "--max-num-seqs", "256", ...],
//                               vllm serve's flags at the answer (null when none)
//    "warnings": [...],
//    "report": vllm_estimate_to_json at the answer (null when none)}
#ifndef MEMFIT_VLLM_FIT_H_
#define MEMFIT_VLLM_FIT_H_

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"
#include "memfit/vllm_solver.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The --solve names under vllm: "max-model-len" (or "max-tokens", the
// request field that is --max-model-len under vllm) and "max-num-seqs"
// (or "batch", likewise). Anything else is a kUsage error about "solve"
// that says what vllm solves.
Result<VllmSolveFor> parse_vllm_solve(std::string_view text);

struct VllmFit {
  VllmSolution answer;
  std::vector<std::string> flags;  // vllm_serve_flags() at the answer; empty when nothing fits
};

// Solves `prepared` (a vllm request; `request` is what it was prepared
// from). kUsage, naming the field, when the request gives the value being
// solved (max_model_len or max_tokens for kMaxModelLen, max_num_seqs or a
// batch other than 1 for kMaxNumSeqs) or its engine is not vllm; the
// estimate's usage errors as they are; other errors within the model's
// name as the request gives it.
Result<VllmFit> fit_vllm(VllmSolveFor what, const EstimateRequest& request,
                         const PreparedRequest& prepared);

nlohmann::ordered_json vllm_fit_to_json(const PreparedRequest& prepared, const VllmFit& fit);

// "Largest max-model-len vLLM starts with in 80.00 GiB (explicit): N", the
// vllm serve flags, then render_vllm_text at the answer; or the one line
// on why nothing fits.
std::string render_vllm_fit_text(const PreparedRequest& prepared, const VllmFit& fit);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_VLLM_FIT_H_
