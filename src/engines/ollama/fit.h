// The ollama profile's fit hook (fit.cc): the largest num_ctx that keeps
// every layer on the GPUs (Ollama's users' first question), or the most
// layers (num_gpu) that fit. Private to the library.
#ifndef MEMFIT_ENGINES_OLLAMA_FIT_H_
#define MEMFIT_ENGINES_OLLAMA_FIT_H_

#include "memfit/engine.h"
#include "memfit/request.h"

namespace memfit::ollama {

// The base of the ollama profile: it answers fit alone.
class OllamaCommands : public EngineProfile {
 public:
  bool supports(EngineCommand command) const override { return command == EngineCommand::kFit; }
  std::vector<std::string_view> solve_names() const override { return {"num-ctx", "num-gpu"}; }
  std::string_view solve_help() const override { return "num-ctx or num-gpu"; }
  //   options: solve  num-ctx (default) or num-gpu
  //            ctx_size, curve_tokens refused (llama.cpp's and the curve's)
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const override;
};

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_FIT_H_
