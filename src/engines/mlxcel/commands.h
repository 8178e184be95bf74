// The mlxcel profile's command hooks (engine.h): it answers every
// command, each hook in a file of its own; and the options they read
// (docs/engines.md, "Commands"). Private to the library.
#ifndef MEMFIT_ENGINES_MLXCEL_COMMANDS_H_
#define MEMFIT_ENGINES_MLXCEL_COMMANDS_H_

#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/mlxcel_serve_plan.h"
#include "memfit/mlxcel_solver.h"

namespace memfit::engines {

// The base of the mlxcel profile (profile.cc).
class MlxcelCommands : public EngineProfile {
 public:
  bool supports(EngineCommand) const override { return true; }
  std::vector<std::string_view> solve_names() const override {
    return {"max-tokens", "batch", "slots"};
  }
  std::string_view solve_help() const override { return "max-tokens, batch or slots"; }
  // fit_command.cc: memfit fit's solve; POST /v1/fit's curve is
  // mlxcel_fit_curve's.
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const override;
  // plot_command.cc
  Result<CommandAnswer> plot(const CommandQuery& query, PreparedRequest prepared) const override;
  // recommend_command.cc
  Result<CommandAnswer> recommend_quant(const CommandQuery& query,
                                        PreparedRequest prepared) const override;
  // serve_command.cc
  Result<CommandAnswer> preflight_serve(const CommandQuery& query,
                                        PreparedRequest prepared) const override;
};

// fit_curve.cc: POST /v1/fit's answer, the calculator page's curve.
Result<CommandAnswer> mlxcel_fit_curve(const CommandQuery& query, const PreparedRequest& prepared);

// memfit fit's solve under mlxcel: max-tokens, batch or slots; another
// engine's solve is a kUsage error about "solve" naming that engine.
Result<MlxcelSolveFor> parse_mlxcel_solve(std::string_view text);

// preflight serve's options as the MLX server reads them: ctx_size,
// n_parallel, max_batch_size, no_batch, kv_block_size, and
// kv_cache_budget ("auto", "none" or a size such as "8GiB"); each not
// given keeps MlxcelServeOptions' default.
Result<MlxcelServeOptions> mlxcel_serve_options(const nlohmann::json& options);

// What recommend-quant and plot's quants say when the model has no weight
// headers to price tensor by tensor.
Warning no_headers_warning();

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_MLXCEL_COMMANDS_H_
