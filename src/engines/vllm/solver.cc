// solve_vllm(): bisection over estimate_vllm() (vllm_solver.h).
//
// Both predicates are monotone, so bisection finds the boundary:
//  - max-model-len: a request's blocks never shrink as L grows (full
//    attention cdiv(L, block), sliding window capped at its window, Mamba
//    fixed), and no other term reads L; so "starts and fits" holds from 1
//    up to the answer.
//  - max-num-seqs: the sampler's rows grow the activation with N, so the
//    KV blocks (and max_num_seqs_fit) never grow with N while N does; so
//    "max_num_seqs_fit(N) >= N and fits" holds from 1 up to the answer.
#include <algorithm>

#include <fmt/format.h>

#include "engines/shared/trained_context.h"
#include "memfit/checked_math.h"
#include "memfit/memory_size.h"
#include "memfit/vllm_solver.h"

namespace memfit {
namespace {

void set_value(VllmSettings& s, VllmSolveFor what, uint64_t value) {
  if (what == VllmSolveFor::kMaxModelLen) s.max_model_len = value;
  else s.max_num_seqs = value;
}

bool holds(const VllmEstimate& e, VllmSolveFor what, uint64_t value) {
  if (!e.fits) return false;
  // No KV blocks at all (an attention-free model): any count of requests.
  return what == VllmSolveFor::kMaxModelLen || e.layout.blocks_per_request == 0 ||
         e.max_num_seqs_fit >= value;
}

// One line on why not even 1 holds, from the estimate at 1.
std::string why_none(const VllmEstimate& e, VllmSolveFor what) {
  if (e.starts) {  // one request fits the blocks: the budget is what fails
    return fmt::format("vLLM's peak per rank, {}, is over the budget, {}", format_bytes(e.total_bytes),
                       format_bytes(e.budget_bytes));
  }
  if (what == VllmSolveFor::kMaxNumSeqs && e.num_blocks > 1) {
    return fmt::format("vLLM would not start: its {} KV blocks hold no request of {} tokens (the "
                       "longest they hold: {})",
                       e.num_blocks, e.settings.max_model_len, e.max_model_len_fit);
  }
  const uint64_t others =
      (CheckedBytes(e.weights.bytes) + e.activation_bytes + e.non_torch_bytes).saturated();
  if (e.kv_given) {
    return fmt::format("vLLM would not start: the KV memory given, {}, makes {} blocks of {}, too "
                       "few for one request",
                       format_bytes(e.kv_cache_bytes), e.num_blocks,
                       format_bytes(e.layout.bytes_per_block));
  }
  return fmt::format("vLLM would not start: {} x {} less the weights, activation and "
                     "non-torch terms ({}) leaves {} for the KV cache, {} blocks of {}: too few "
                     "for one request",
                     e.settings.gpu_memory_utilization, format_bytes(e.settings.gpu_memory_total),
                     format_bytes(others), format_bytes(e.kv_cache_bytes), e.num_blocks,
                     format_bytes(e.layout.bytes_per_block));
}

}  // namespace

std::string_view to_string(VllmSolveFor what) {
  return what == VllmSolveFor::kMaxModelLen ? "max-model-len" : "max-num-seqs";
}

Result<VllmSolution> solve_vllm(VllmSolveFor what, const Model& model,
                                std::span<const SafetensorsTensor> tensors, const VllmSettings& given,
                                const MemoryBudget& budget) {
  VllmSolution out;
  out.what = what;
  // vLLM's batch defaults for the GPU, fixed before the search.
  VllmSettings settings = given;
  vllm_resolve_defaults(settings);
  if (what == VllmSolveFor::kMaxModelLen) {
    const uint64_t context = rope_scaled_context(model.spec).tokens;
    out.ceiling = context != 0 ? std::min(context, kVllmMaxTokens) : kVllmMaxTokens;
    out.ceiling_reason = context != 0 ? "the config's context: vLLM refuses a longer --max-model-len"
                                      : "the search ceiling: the config declares no context";
  } else {
    // vLLM refuses max_num_seqs past max_num_batched_tokens; an out-of-range
    // max_num_batched_tokens is the estimate's usage error, below.
    out.ceiling = std::max<uint64_t>(1, std::min(settings.max_num_batched_tokens, kVllmMaxTokens));
    out.ceiling_reason = fmt::format("--max-num-batched-tokens {}: vLLM refuses more sequences",
                                     settings.max_num_batched_tokens);
  }
  auto at = [&](uint64_t value) {
    VllmSettings s = settings;
    set_value(s, what, value);
    return estimate_vllm(model, tensors, s, budget);
  };

  Result<VllmEstimate> low = at(1);
  if (!low) return low.error();
  if (!holds(*low, what, 1)) {
    out.why_none = why_none(*low, what);
    return out;
  }
  Result<VllmEstimate> high = at(out.ceiling);
  if (!high) return high.error();
  if (holds(*high, what, out.ceiling)) {
    out.value = out.ceiling;
    out.capped = true;
    out.estimate = std::move(*high);
    return out;
  }
  // Invariant: lo holds (best is its estimate), hi does not.
  uint64_t lo = 1, hi = out.ceiling;
  VllmEstimate best = std::move(*low);
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    Result<VllmEstimate> e = at(mid);
    if (!e) return e.error();
    if (holds(*e, what, mid)) {
      lo = mid;
      best = std::move(*e);
    } else {
      hi = mid;
    }
  }
  out.value = lo;
  out.estimate = std::move(best);
  return out;
}

}  // namespace memfit
