// EngineProfile's command hooks (engine.h) where an engine does not
// override them: the registry's one refusal; and answer(), the hook of a
// command by its name.
#include "memfit/engine.h"
#include "memfit/request.h"

namespace memfit {

Result<CommandAnswer> EngineProfile::fit(const CommandQuery&, PreparedRequest) const {
  return EngineRegistry::instance().unsupported(*this, EngineCommand::kFit);
}

Result<CommandAnswer> EngineProfile::plot(const CommandQuery&, PreparedRequest) const {
  return EngineRegistry::instance().unsupported(*this, EngineCommand::kPlot);
}

Result<CommandAnswer> EngineProfile::recommend_quant(const CommandQuery&, PreparedRequest) const {
  return EngineRegistry::instance().unsupported(*this, EngineCommand::kRecommendQuant);
}

Result<CommandAnswer> EngineProfile::preflight_serve(const CommandQuery&, PreparedRequest) const {
  return EngineRegistry::instance().unsupported(*this, EngineCommand::kPreflightServe);
}

Result<CommandAnswer> EngineProfile::answer(EngineCommand command, const CommandQuery& query,
                                            PreparedRequest prepared) const {
  switch (command) {
    case EngineCommand::kFit:
      return fit(query, std::move(prepared));
    case EngineCommand::kPlot:
      return plot(query, std::move(prepared));
    case EngineCommand::kRecommendQuant:
      return recommend_quant(query, std::move(prepared));
    case EngineCommand::kPreflightServe:
      return preflight_serve(query, std::move(prepared));
  }
  return EngineRegistry::instance().unsupported(*this, command);
}

}  // namespace memfit

namespace memfit {

std::optional<GenerationTokens> EngineProfile::generation_tokens(uint64_t prompt,
                                                                uint64_t generated,
                                                                bool ctx_size_given) const {
  if (ctx_size_given) return std::nullopt;  // the runtime's own context wins
  return GenerationTokens{.max_tokens = prompt + generated};
}

}  // namespace memfit
