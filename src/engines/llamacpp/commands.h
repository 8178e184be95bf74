// The llamacpp profile's command hooks (engine.h), each in a file of its
// own; their options are in docs/engines.md ("Commands"). Private to the
// library.
#ifndef MEMFIT_ENGINES_LLAMACPP_COMMANDS_H_
#define MEMFIT_ENGINES_LLAMACPP_COMMANDS_H_

#include <string_view>

#include "memfit/engine.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::engines {

// The base of the llamacpp profile (profile.cc). recommend-quant ranks
// the GGUF file types of a safetensors or config-only model
// (recommend_command.cc); a folder of GGUF files is priced file by file
// with this profile before any engine is asked (cli/recommend_gguf_repo.h).
class LlamaCppCommands : public EngineProfile {
 public:
  bool supports(EngineCommand) const override { return true; }
  std::vector<std::string_view> solve_names() const override {
    return {"ctx-size", "max-tokens", "parallel", "slots", "gpu-layers", "n-cpu-moe"};
  }
  std::string_view solve_help() const override {
    return "ctx-size (max-tokens), parallel (slots), gpu-layers or n-cpu-moe";
  }
  // fit_command.cc, plot_command.cc, serve_command.cc, recommend_command.cc
  Result<CommandAnswer> recommend_quant(const CommandQuery& query,
                                        PreparedRequest prepared) const override;
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const override;
  Result<CommandAnswer> plot(const CommandQuery& query, PreparedRequest prepared) const override;
  Result<CommandAnswer> preflight_serve(const CommandQuery& query,
                                        PreparedRequest prepared) const override;
};

// The first of the mlxcel server's options that `options` gives
// (max_batch_size, no_batch, kv_cache_budget, kv_block_size): llama-server
// has none of them; "" when none.
std::string_view first_mlxcel_server_option(const nlohmann::json& options);

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_LLAMACPP_COMMANDS_H_
