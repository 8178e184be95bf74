// `memfit fit` and POST /v1/fit for the llama.cpp profile: the solver's
// answers (llamacpp_solver.h) for a prepared request, the llama-server
// flags that reproduce the answer (llama_server.h), and the answer as
// JSON and as text. Written once for both front ends.
//
// JSON (`memfit fit --json`; /v1/fit puts "model" in front):
//   {"solve": "ctx-size" | "parallel", "engine": "llamacpp",
//    "value": 16384,            the answer at the request's K and V types
//    "cache_type": "f16",       the request's K type (f16 when not given)
//    "capped": false,           value is the ceiling (llamacpp_solver.h)
//    "budget_bytes": ..., "budget_source": "explicit",
//    "by_cache_type": [{"cache_type": "f16", "value": 16384, "capped": false},
//                      {"cache_type": "q8_0", ...}, {"cache_type": "q4_0", ...}],
//    "flags": ["-c", "16384", "-np", "1"],   llama-server's argv at the answer
//    "warnings": [...],
//    "report": llamacpp_estimate_to_json at the answer}
// value, flags and report are null when not even the smallest value fits.
#ifndef MEMFIT_LLAMACPP_FIT_H_
#define MEMFIT_LLAMACPP_FIT_H_

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/llamacpp_solver.h"
#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The --solve names under llamacpp: "ctx-size" (or "max-tokens", mlxcel's
// name for the context) and "parallel" (or "slots"). Anything else is a
// kUsage error about "solve" that says what llamacpp solves.
Result<LlamaCppSolveFor> parse_llamacpp_solve(std::string_view text);
std::string_view to_string(LlamaCppSolveFor what);  // "ctx-size", "parallel"

struct LlamaCppFit {
  LlamaCppSolveFor what = LlamaCppSolveFor::kCtxSize;
  // At the request's own settings, K and V types included.
  LlamaCppSolution answer;
  // At each of kLlamaCppSolvedCacheTypes (solve_llamacpp_each_cache_type).
  std::vector<LlamaCppSolution> by_cache_type;
  // llama_server_flags() at the answer; empty when nothing fits.
  std::vector<std::string> flags;
  // The GGUF the launch commands load: the model's path, or under --quant
  // the file llama-quantize would write for that type ("Qwen3-8B-Q4_K_M.gguf").
  std::string model_file;
};

// Solves `prepared` (an llamacpp request; `request` is what it was
// prepared from). kUsage, naming the field, when the request gives the
// value being solved (ctx_size or max_tokens for kCtxSize, parallel for
// kParallel), both ctx_size and max_tokens, or its engine is not llamacpp; a usage error of the solver (a quantized V
// with flash attention off) as it is; other errors within the model's
// name as the request gives it.
Result<LlamaCppFit> fit_llamacpp(LlamaCppSolveFor what, const EstimateRequest& request,
                                 const PreparedRequest& prepared);

nlohmann::ordered_json llamacpp_fit_to_json(const PreparedRequest& prepared, const LlamaCppFit& fit);

// "Largest ctx-size that fits 16.00 GiB (explicit):", one line per cache
// type, the llama-server flags, then render_llamacpp_text at the answer.
std::string render_llamacpp_fit_text(const PreparedRequest& prepared, const LlamaCppFit& fit);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMACPP_FIT_H_
