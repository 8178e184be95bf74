// The llamacpp profile's fit hook (engine.h): memfit fit and POST /v1/fit
// under llamacpp, over fit_llamacpp() (llamacpp_fit.h).
//   options: solve         parse_llamacpp_solve's names; default ctx-size
//            ctx_size      the CLI's -c, which it keeps out of the request
//                          it prepares (one flag for every engine's fit)
//            curve_tokens  (/v1/fit, solve ctx-size) each cache type's row
//                          gets "curve": the estimate at each --ctx-size,
//                          K and V of the row's type
#include "engines/llamacpp/commands.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

// `answer`'s by_cache_type rows with their curves.
Status add_curves(const std::vector<uint64_t>& tokens, const EstimateRequest& request,
                  const PreparedRequest& p, const LlamaCppFit& fit, nlohmann::ordered_json& answer) {
  for (size_t i = 0; i < fit.by_cache_type.size(); ++i) {
    LlamaCppSettings settings = p.llamacpp_settings;
    settings.cache_type_k = settings.cache_type_v = fit.by_cache_type[i].cache_type;
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    for (uint64_t ctx_size : tokens) {
      settings.ctx_size = ctx_size;
      Result<LlamaCppEstimate> point = estimate_llamacpp(*p.model, settings, p.budget);
      if (!point) return point.error().within(quote_untrusted(request.model));
      curve.push_back(
          {{"ctx_size", ctx_size}, {"total_bytes", point->total_bytes}, {"fits", point->fits}});
    }
    answer["by_cache_type"][i]["curve"] = std::move(curve);
  }
  return Status::Ok();
}

}  // namespace

Result<CommandAnswer> LlamaCppCommands::fit(const CommandQuery& query, PreparedRequest p) const {
  request::Fields options(query.options);
  Result<std::optional<std::string>> solve = options.string("solve");
  if (!solve) return solve.error();
  Result<LlamaCppSolveFor> what = parse_llamacpp_solve(solve->value_or("ctx-size"));
  if (!what) return what.error();
  Result<std::optional<std::vector<uint64_t>>> curve =
      options.counts("curve_tokens", 1, kMaxSolvedTokens, kMaxCurvePoints);
  if (!curve) return curve.error();
  if (*curve && *what != LlamaCppSolveFor::kCtxSize) {
    return Error::usage("curve_tokens", "is a --ctx-size curve: give it with solve ctx-size");
  }
  Result<std::optional<uint64_t>> ctx_size = options.count("ctx_size", 0);
  if (!ctx_size) return ctx_size.error();
  EstimateRequest request = query.request;
  if (*ctx_size) request.llamacpp.ctx_size = p.llamacpp_settings.ctx_size = **ctx_size;
  Result<LlamaCppFit> fit = fit_llamacpp(*what, request, p);
  if (!fit) return fit.error();
  CommandAnswer answer;
  answer.json = llamacpp_fit_to_json(p, *fit);
  if (*curve) {
    if (Status curves = add_curves(**curve, request, p, *fit, answer.json); !curves) {
      return curves.error();
    }
  }
  answer.text = render_llamacpp_fit_text(p, *fit);
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::engines
