// The vllm profile's command hook (engine.h): fit only; its options are in
// docs/engines.md ("Commands"). Private to the library.
#ifndef MEMFIT_ENGINES_VLLM_COMMANDS_H_
#define MEMFIT_ENGINES_VLLM_COMMANDS_H_

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::engines {

// The base of the vllm profile (profile.cc).
class VllmCommands : public EngineProfile {
 public:
  bool supports(EngineCommand command) const override { return command == EngineCommand::kFit; }
  std::vector<std::string_view> solve_names() const override {
    return {"max-model-len", "max-tokens", "max-num-seqs", "batch"};
  }
  std::string_view solve_help() const override {
    return "max-model-len (max-tokens) or max-num-seqs (batch)";
  }
  // fit_command.cc
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const override;
};

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_VLLM_COMMANDS_H_
