// `memfit inspect --compare` and /v1/estimate's "compare": the request
// priced by every registered engine, one line each, so a user sees which
// figure each runtime's rules give (docs/engines.md, "Which engine").
#ifndef MEMFIT_ENGINE_COMPARE_H_
#define MEMFIT_ENGINE_COMPARE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// One engine's price of the request.
struct EngineComparison {
  std::string engine;        // the engine's name
  std::string figure;        // what its total is (EngineProfile::summary)
  bool chosen = false;       // the engine the request itself resolves to
  bool priced = false;       // false: the engine refused the request (refusal says why)
  uint64_t total_bytes = 0;  // the engine's total (its report's total_bytes)
  uint64_t budget_bytes = 0; // the engine's budget (its report's budget_bytes)
  bool fits = false;
  std::string refusal;       // the usage error's text when not priced
};

// The request as given (its engine, if any, marked chosen), then with each
// other registered engine named instead, in the registry's order. An
// engine that refuses the request (a usage error: a field it does not
// take, a model it cannot price) gets a line saying why; any other error
// of an engine, and every error of the request as given, is returned.
Result<std::vector<EngineComparison>> compare_engines(const EstimateRequest& request,
                                                      RequestContext& context);

// [{"engine", "chosen", "priced", "total_bytes", "budget_bytes", "fits",
//   "figure", "refusal"}]: null totals for a refusal.
nlohmann::ordered_json comparison_to_json(std::span<const EngineComparison> rows);

// One line each: "* mlx-lm    16.61 GiB of 24.00 GiB  FITS          the peak ..."
// ("*" marks the request's own engine), or "  vllm      refused: ...".
std::string render_comparison_text(std::span<const EngineComparison> rows);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_ENGINE_COMPARE_H_
