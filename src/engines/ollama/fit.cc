// fit under ollama: each candidate is planned as Ollama would load it
// (plan_load: its defaults and its scheduler) and priced by the llamacpp
// rules. num-ctx: the largest num_ctx whose every layer the scheduler puts
// on the GPUs and whose buffers fit (the budget alone without GPUs);
// num-gpu: the most layers that fit. Both are monotone in what they solve.
#include "engines/ollama/fit.h"

#include <fmt/format.h>

#include "engines/ollama/plan.h"
#include "engines/shared/largest_fitting.h"
#include "engines/shared/trained_context.h"
#include "request/json_fields.h"

namespace memfit::ollama {
namespace {

struct Priced {
  OllamaDecisions decisions;
  LlamaCppEstimate estimate;
};

Result<Priced> price(OllamaRequest given, PreparedRequest p) {
  Result<OllamaDecisions> d = plan_load(given, p);
  if (!d) return d.error();
  Result<LlamaCppEstimate> e = estimate_llamacpp(*p.model, p.llamacpp_settings, p.budget);
  if (!e) return e.error();
  return Priced{std::move(*d), std::move(*e)};
}

// Whether `priced` answers the question: it fits, and for num-ctx with
// GPUs, every layer is on them.
bool answers(const Priced& priced, bool all_layers) {
  if (!priced.estimate.fits) return false;
  return !all_layers || priced.decisions.gpu_layers == priced.decisions.total_layers ||
         priced.decisions.layers_per_gpu.empty();
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
  // max-tokens, the name every engine's fit takes for its context, is num-ctx.
  const std::string what = solve->value_or("num-ctx") == "max-tokens" ? "num-ctx" : solve->value_or("num-ctx");
  if (what != "num-ctx" && what != "num-gpu") {
    return Error::usage("solve", fmt::format("'{}': ollama solves num-ctx or num-gpu", what));
  }
  const OllamaRequest base = std::any_cast<OllamaDecisions>(p.engine_settings).given;
  const bool by_ctx = what == "num-ctx";
  const uint64_t trained = declared_context(p.model->spec).tokens;
  const uint64_t hi = by_ctx ? (trained > 0 ? trained : kMaxSolvedTokens)
                             : std::any_cast<OllamaDecisions>(p.engine_settings).total_layers;
  std::optional<Priced> best;
  Result<std::optional<uint64_t>> solved =
      largest_fitting(by_ctx ? kMinNumCtx : 0, hi, [&](uint64_t v) -> Result<bool> {
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
  CommandAnswer answer;
  const std::string key = by_ctx ? "num_ctx" : "num_gpu";
  answer.json = {{"engine", "ollama"}, {"solve", what}, {key, nullptr}, {"fits", solved->has_value()}};
  if (*solved && best) {
    answer.json[key] = **solved;
    // The solved figure under the name every engine's fit answer uses, and
    // whether the model's trained context capped it.
    answer.json["value"] = **solved;
    if (by_ctx) answer.json["capped"] = **solved == hi;
    answer.json["total_bytes"] = best->estimate.total_bytes;
    answer.json["start"] = launch_command(best->decisions, p.model->path);
    answer.text = fmt::format("{} {}: the largest that {}\nstart: {}", key, **solved,
                              by_ctx ? "keeps every layer on the GPUs and fits" : "fits",
                              launch_command(best->decisions, p.model->path));
  } else {
    answer.fits = false;
    answer.text = fmt::format("no {} fits: {}\n", key,
                              by_ctx ? "even 4 tokens leave layers off the GPUs or past the budget"
                                     : "not even with every layer on the CPU");
  }
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::ollama
