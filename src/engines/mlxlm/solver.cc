// solve_mlxlm(): a binary search over estimate_mlxlm() (mlxcel_solver.h).
#include "engines/mlxlm/solver.h"

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

MlxLmSettings with_value(MlxLmSolveFor what, MlxLmSettings s, uint64_t value) {
  switch (what) {
    case MlxLmSolveFor::kMaxTokens:
      s.max_tokens = value;
      break;
    case MlxLmSolveFor::kPromptTokens:
      s.prompt_tokens = value;
      break;
    case MlxLmSolveFor::kBatch:
      s.batch = value;
      break;
  }
  return s;
}

// The estimate at `value`; nullopt when its sizes overflow (it does not
// fit); other errors as estimate_mlxlm() gives them.
Result<std::optional<MlxLmEstimate>> try_value(MlxLmSolveFor what, const Model& model,
                                               const MlxLmSettings& s, const MemoryBudget& budget,
                                               uint64_t value) {
  Result<MlxLmEstimate> e = estimate_mlxlm(model, with_value(what, s, value), budget);
  if (e) return std::optional<MlxLmEstimate>(std::move(*e));
  if (e.error().kind() == ErrorKind::kOverflow) return std::optional<MlxLmEstimate>();
  return e.error();
}

}  // namespace

std::string_view to_string(MlxLmSolveFor what) {
  switch (what) {
    case MlxLmSolveFor::kMaxTokens:
      return "max-tokens";
    case MlxLmSolveFor::kPromptTokens:
      return "prompt-tokens";
    case MlxLmSolveFor::kBatch:
      break;
  }
  return "batch";
}

Result<MlxLmSolveFor> parse_mlxlm_solve(std::string_view text) {
  if (text == "max-tokens") return MlxLmSolveFor::kMaxTokens;
  if (text == "prompt-tokens") return MlxLmSolveFor::kPromptTokens;
  if (text == "batch") return MlxLmSolveFor::kBatch;
  const std::string_view what = "mlx-lm solves max-tokens, prompt-tokens or batch";
  if (text == "max-model-len" || text == "max-num-seqs") {
    return Error::usage("solve", fmt::format("{} is a vllm solve; {}", text, what));
  }
  if (text == "ctx-size" || text == "parallel" || text == "gpu-layers" || text == "n-cpu-moe") {
    return Error::usage("solve", fmt::format("{} is a llamacpp solve; {}", text, what));
  }
  if (text == "slots") {
    return Error::usage("solve", fmt::format("slots is an mlxcel and llamacpp solve; {}", what));
  }
  return Error::usage("solve", fmt::format("{}: {}", quote_untrusted(text), what));
}

Result<MlxLmSolution> solve_mlxlm(MlxLmSolveFor what, const Model& model,
                                  const MlxLmSettings& settings, const MemoryBudget& budget) {
  MlxLmSolution solution;
  // The largest value priced one by one: 1 for the token counts, up to
  // kMlxLmBatchScanned for the batch (solver.h says why).
  const uint64_t scanned = what == MlxLmSolveFor::kBatch ? kMlxLmBatchScanned : 1;
  uint64_t fit = 0;
  for (uint64_t value = 1; value <= scanned; ++value) {
    Result<std::optional<MlxLmEstimate>> e = try_value(what, model, settings, budget, value);
    if (!e) return e.error();
    if (value == 1) solution.estimate = *e;  // why nothing fits, if nothing does
    if (*e && (*e)->fits) {
      fit = value;
      solution.estimate = *e;
    }
  }
  if (fit == 0) return solution;
  solution.value = fit;
  if (fit < scanned) return solution;
  Result<std::optional<MlxLmEstimate>> top =
      try_value(what, model, settings, budget, kMlxLmMaxTokens);
  if (!top) return top.error();
  if (*top && (*top)->fits) {
    solution.value = kMlxLmMaxTokens;
    solution.capped = true;
    solution.estimate = *top;
    return solution;
  }
  // Invariant: `fit` fits, `over` does not.
  uint64_t over = kMlxLmMaxTokens;
  while (over - fit > 1) {
    const uint64_t mid = fit + (over - fit) / 2;
    Result<std::optional<MlxLmEstimate>> e = try_value(what, model, settings, budget, mid);
    if (!e) return e.error();
    if (*e && (*e)->fits) {
      fit = mid;
      solution.estimate = *e;
    } else {
      over = mid;
    }
  }
  solution.value = fit;
  return solution;
}

}  // namespace memfit
