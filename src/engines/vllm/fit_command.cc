// The vllm profile's fit hook (engine.h): memfit fit and POST /v1/fit
// under vllm, over fit_vllm() (vllm_fit.h).
//   options: solve         parse_vllm_solve's names; default max-model-len
//            ctx_size      (the CLI's -c) refused: llama.cpp's setting
//            curve_tokens  refused: vllm's fit draws no curve
#include "engines/vllm/commands.h"
#include "memfit/vllm_fit.h"
#include "request/json_fields.h"

namespace memfit::engines {

Result<CommandAnswer> VllmCommands::fit(const CommandQuery& query, PreparedRequest p) const {
  request::Fields options(query.options);
  if (options.find("ctx_size") != nullptr) {
    // The CLI prepares its request without -c: refused as prepare() would.
    return EngineRegistry::field_of_other_engine("ctx_size",
                                                 *EngineRegistry::instance().find("llamacpp"));
  }
  Result<std::optional<std::string>> solve = options.string("solve");
  if (!solve) return solve.error();
  Result<VllmSolveFor> what = parse_vllm_solve(solve->value_or("max-model-len"));
  if (!what) return what.error();
  if (options.find("curve_tokens") != nullptr) {
    return Error::usage("curve_tokens", "is a context curve of the mlxcel and llamacpp engines; "
                                        "vllm's fit has none");
  }
  Result<VllmFit> fit = fit_vllm(*what, query.request, p);
  if (!fit) return fit.error();
  CommandAnswer answer;
  answer.json = vllm_fit_to_json(p, *fit);
  answer.text = render_vllm_fit_text(p, *fit);
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::engines
