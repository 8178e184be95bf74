// fit under ollama: each candidate is planned as Ollama would load it
// (plan_load: its defaults and its scheduler) and priced by the llamacpp
// rules. num-ctx: the largest num_ctx whose every layer the scheduler puts
// on the GPUs and whose buffers fit (the budget alone without GPUs);
// num-gpu: the most layers that fit, and the plans that fit at each KV
// type ranked by decode speed (fit_plans.h). Both are monotone in what
// they solve.
#include "engines/ollama/fit.h"

#include <fmt/format.h>

#include <algorithm>

#include "engines/ollama/fit_plans.h"
#include "engines/ollama/plan.h"
#include "engines/shared/largest_fitting.h"
#include "engines/shared/trained_context.h"
#include "request/json_fields.h"

namespace memfit::ollama {
namespace {

// Whether `priced` answers the question: it fits, and for num-ctx with
// GPUs, every layer is on them.
bool answers(const Priced& priced, bool all_layers) {
  if (!priced.estimate.fits) return false;
  // llama.cpp's --fit (v0.30.0 on) may offload every layer with some
  // layers' experts on the host ("overflowing"): not every layer whole.
  const std::vector<uint64_t>& overflowing = priced.decisions.overflowing_per_gpu;
  if (all_layers && std::any_of(overflowing.begin(), overflowing.end(), [](uint64_t n) { return n > 0; })) {
    return false;
  }
  return !all_layers || priced.decisions.gpu_layers == priced.decisions.total_layers ||
         priced.decisions.layers_per_gpu.empty();
}

// The largest num_ctx (by_ctx) or num_gpu in [lo, hi] that answers for
// `base`, and its load; nullopt when none does.
Result<std::optional<Priced>> solve_largest(const OllamaRequest& base, const PreparedRequest& p, bool by_ctx,
                                            uint64_t lo, uint64_t hi) {
  std::optional<Priced> best;
  Result<std::optional<uint64_t>> solved = largest_fitting(lo, hi, [&](uint64_t v) -> Result<bool> {
    OllamaRequest given = base;
    (by_ctx ? given.num_ctx : given.num_gpu) = v;
    Result<Priced> priced = price(given, p);
    if (!priced) return priced.error();
    const bool ok = answers(*priced, by_ctx);
    if (ok && (!best || v >= (by_ctx ? *best->decisions.given.num_ctx : *best->decisions.given.num_gpu))) {
      best = std::move(*priced);
    }
    return ok;
  });
  if (!solved) return solved.error();
  if (!*solved) return std::optional<Priced>();
  return best;
}

}  // namespace

Result<CommandAnswer> OllamaCommands::fit(const CommandQuery& query, PreparedRequest p) const {
  request::Fields options(query.options);
  for (std::string_view refused : {"ctx_size", "curve_tokens"}) {
    if (options.find(refused) != nullptr) {
      return Error::usage(refused, "is not an ollama fit option: give num_ctx (--num-ctx)");
    }
  }
  Result<std::optional<std::string>> solve = options.string("solve");
  if (!solve) return solve.error();
  std::string what = solve->value_or("num-ctx");
  // max-tokens, the name every engine's fit takes for its context, is num-ctx.
  if (what == "max-tokens") what = "num-ctx";
  if (what != "num-ctx" && what != "num-gpu") {
    return Error::usage("solve", fmt::format("'{}': ollama solves num-ctx or num-gpu", what));
  }
  const OllamaRequest base = std::any_cast<OllamaDecisions>(p.engine_settings).given;
  const bool by_ctx = what == "num-ctx";
  const uint64_t trained = declared_context(p.model->spec).tokens;
  const uint64_t hi = by_ctx ? (trained > 0 ? trained : kMaxSolvedTokens)
                             : std::any_cast<OllamaDecisions>(p.engine_settings).total_layers;
  const uint64_t lo = by_ctx ? kMinNumCtx : 0;
  Result<std::optional<Priced>> best = solve_largest(base, p, by_ctx, lo, hi);
  if (!best) return best.error();
  std::vector<OllamaRankedPlan> plans;
  if (!by_ctx) {
    Result<std::vector<OllamaRankedPlan>> ranked = ollama_plans_by_speed(
        p, base, [&](const OllamaRequest& given) { return solve_largest(given, p, false, lo, hi); });
    if (!ranked) return ranked.error();
    plans = std::move(*ranked);
  }
  CommandAnswer answer;
  const std::string key = by_ctx ? "num_ctx" : "num_gpu";
  answer.json = {{"engine", "ollama"}, {"solve", what}, {key, nullptr}, {"fits", best->has_value()}};
  if (*best) {
    const Priced& b = **best;
    const uint64_t value = by_ctx ? *b.decisions.given.num_ctx : *b.decisions.given.num_gpu;
    answer.json[key] = value;
    // The solved figure under the name every engine's fit answer uses, and
    // whether the model's trained context capped it.
    answer.json["value"] = value;
    if (by_ctx) answer.json["capped"] = value == hi;
    answer.json["total_bytes"] = b.estimate.total_bytes;
    answer.json["start"] = launch_command(b.decisions, p.model->path);
    answer.text = fmt::format("{} {}: the largest that {}\nstart: {}", key, value,
                              by_ctx ? "keeps every layer on the GPUs and fits" : "fits",
                              launch_command(b.decisions, p.model->path));
  } else {
    answer.fits = false;
    answer.text = fmt::format("no {} fits: {}\n", key,
                              by_ctx ? "even 4 tokens leave layers off the GPUs or past the budget"
                                     : "not even with every layer on the CPU");
  }
  if (!by_ctx) {
    answer.json["plans_by_speed"] = ollama_plans_json(plans);
    answer.text += ollama_plans_text(plans);
  }
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::ollama
