// Solving the vLLM profile (vllm.h) for the settings vLLM starts with:
// the largest --max-model-len, or the largest --max-num-seqs whose
// requests of --max-model-len tokens all fit the KV blocks, at the given
// utilization (or KV memory). What `memfit fit --engine vllm` and
// /v1/fit answer (vllm_fit.h).
//
// Both are bisections over estimate_vllm(), every other setting fixed, so
// the answer is self-consistent: the estimate at the answer fits and the
// estimate at the answer + 1 does not (unless the answer is the ceiling).
// The activation term moves with max_num_seqs (the sampler's rows), so a
// larger --max-num-seqs leaves fewer KV blocks; the search re-runs the
// estimate at each candidate rather than reading max_num_seqs_fit once.
#ifndef MEMFIT_VLLM_SOLVER_H_
#define MEMFIT_VLLM_SOLVER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/visibility.h"
#include "memfit/vllm.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class VllmSolveFor {
  // The largest --max-model-len L in 1 .. the config's context (vLLM
  // refuses a longer one; kVllmMaxTokens when the config declares none)
  // at which vLLM starts (one request of L fits the KV blocks: its own
  // start check) and its peak fits the budget.
  kMaxModelLen,
  // The largest --max-num-seqs N in 1 .. --max-num-batched-tokens (vLLM
  // refuses more sequences than batched tokens) at which N requests of
  // --max-model-len tokens fit the KV blocks (max_num_seqs_fit >= N) and
  // the peak fits the budget.
  kMaxNumSeqs,
};

std::string_view to_string(VllmSolveFor what);  // "max-model-len", "max-num-seqs"

struct VllmSolution {
  VllmSolveFor what = VllmSolveFor::kMaxModelLen;
  std::optional<uint64_t> value;         // nullopt: not even 1 fits
  bool capped = false;                   // value is the ceiling: more would fit
  uint64_t ceiling = 0;                  // the largest value the search tries
  std::string ceiling_reason;            // why that is the most: "the config's context", ...
  std::optional<VllmEstimate> estimate;  // the estimate at value
  std::string why_none;                  // one line, when value is nullopt
};

// Solves with every setting but the solved one fixed by `settings` (the
// solved field's own value there is ignored). Errors of the estimate (a
// usage error naming a field, an overflow) are returned as they are.
Result<VllmSolution> solve_vllm(VllmSolveFor what, const Model& model,
                                std::span<const SafetensorsTensor> tensors, const VllmSettings& settings,
                                const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_VLLM_SOLVER_H_
