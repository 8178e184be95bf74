// The mlx-lm profile's command hooks (engine.h): fit, solving max-tokens,
// prompt-tokens or batch (mlxcel_solver.h), plot and recommend-quant; their
// options are in docs/engines.md ("Commands").
// Private to the library.
#ifndef MEMFIT_ENGINES_MLXLM_COMMANDS_H_
#define MEMFIT_ENGINES_MLXLM_COMMANDS_H_

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::engines {

// The base of the mlx-lm profile (profile.cc).
class MlxLmCommands : public EngineProfile {
 public:
  bool supports(EngineCommand command) const override {
    return command == EngineCommand::kFit || command == EngineCommand::kPlot ||
           command == EngineCommand::kRecommendQuant;
  }
  std::vector<std::string_view> solve_names() const override {
    return {"max-tokens", "prompt-tokens", "batch"};
  }
  std::string_view solve_help() const override { return "max-tokens, prompt-tokens or batch"; }
  // fit_command.cc
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const override;
  // plot_command.cc: the peak against --prompt-tokens.
  Result<CommandAnswer> plot(const CommandQuery& query, PreparedRequest prepared) const override;
  // recommend_command.cc: every MLX weight mode (engines/mlxlm/recommend.h).
  Result<CommandAnswer> recommend_quant(const CommandQuery& query,
                                        PreparedRequest prepared) const override;
};

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_MLXLM_COMMANDS_H_
