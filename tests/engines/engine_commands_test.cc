// Each built-in engine's supports() agrees with the command hooks it
// overrides (engine.h): a command it says it answers is answered by its
// hook on a model it prices, and one it says it does not is refused with
// the registry's one line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memfit/engine.h"
#include "memfit/request.h"
#include "support/command_hooks.h"
#include "support/paths.h"

namespace memfit {
namespace {

const std::string kExampleEngineCommands = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
const std::string kDenseGguf = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/llama-dense.gguf";
const std::string kLlama8B = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/llama3/Meta-Llama-3.1-8B";

constexpr EngineCommand kCommands[] = {EngineCommand::kFit, EngineCommand::kPlot,
                                       EngineCommand::kRecommendQuant,
                                       EngineCommand::kPreflightServe};

// A request each engine prices, on a model of its kind (llamacpp's
// recommend-quant ranks the GGUF file types of a config-only model).
EstimateRequest request_for(std::string_view engine, EngineCommand command) {
  EstimateRequest r;
  r.engine = std::string(engine);
  const bool gguf = engine == "llamacpp" && command != EngineCommand::kRecommendQuant;
  r.model = gguf ? kDenseGguf : engine == "vllm" || engine == "llamacpp" ? kLlama8B : kExampleEngineCommands;
  r.memory_limit_bytes = 64ull << 30;
  if (engine == "vllm") r.vllm.gpu_memory_total = 80ull << 30;
  if (engine == "sglang") r.model = kLlama8B;
  return r;
}

// The least options each command needs.
nlohmann::json options_for(EngineCommand command) {
  if (command == EngineCommand::kPlot) return {{"out", "unused.svg"}};
  if (command == EngineCommand::kPreflightServe) return {{"ctx_size", 8192}};
  return nlohmann::json::object();
}

TEST(EngineCommands, SupportsAgreesWithTheHooksOfEveryBuiltInEngine) {
  const EngineRegistry& registry = EngineRegistry::instance();
  for (const EngineProfile* engine : registry.all()) {
    for (EngineCommand command : kCommands) {
      const EstimateRequest r = request_for(engine->name(), command);
      SCOPED_TRACE(std::string(engine->name()) + " " + std::string(to_string(command)));
      Result<CommandAnswer> answer = testing::ask_hook(r, command, options_for(command));
      if (engine->supports(command)) {
        EXPECT_TRUE(answer.ok()) << answer.error().message();
      } else {
        ASSERT_FALSE(answer.ok());
        EXPECT_EQ(answer.error().message(), registry.unsupported(*engine, command).message());
      }
    }
  }
}

// The table of docs/engines.md.
TEST(EngineCommands, WhichEngineAnswersWhich) {
  std::vector<std::string> rows;
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    std::string row(engine->name());
    for (EngineCommand command : kCommands) row += engine->supports(command) ? " yes" : " -";
    rows.push_back(row);
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"mlxcel yes yes yes yes", "llamacpp yes yes yes yes",
                                            "mlx-lm yes yes yes -", "vllm yes - - -",
                                            "sglang yes - - -", "ollama yes - - -"}));
}

// fit's --solve names: an engine names them exactly when it answers fit.
TEST(EngineCommands, SolveNamesGoWithTheFitHook) {
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    SCOPED_TRACE(std::string(engine->name()));
    EXPECT_EQ(engine->supports(EngineCommand::kFit), !engine->solve_names().empty());
    EXPECT_EQ(engine->solve_names().empty(), engine->solve_help().empty());
  }
  const std::vector<std::string_view> vllm = {"max-model-len", "max-tokens", "max-num-seqs",
                                              "batch"};
  EXPECT_EQ(EngineRegistry::instance().find("vllm")->solve_names(), vllm);
}

// preflight generate: 1000 prompt tokens and 200 new ones are a context of
// 1000 + 200 = 1200 for llama.cpp; mlx-lm reads 1000 and generates 200;
// llama.cpp's own -c wins over the sum.
TEST(EngineCommands, GenerationTokensAreTheEnginesReadingOfPromptAndNewTokens) {
  const EngineRegistry& registry = EngineRegistry::instance();
  std::optional<GenerationTokens> llama =
      registry.find("llamacpp")->generation_tokens(1000, 200, false);
  ASSERT_TRUE(llama.has_value());
  EXPECT_EQ(llama->max_tokens, 1200u);
  EXPECT_FALSE(llama->prompt_tokens.has_value());
  std::optional<GenerationTokens> mlxlm = registry.find("mlx-lm")->generation_tokens(1000, 200, false);
  ASSERT_TRUE(mlxlm.has_value());
  EXPECT_EQ(mlxlm->max_tokens, 200u);
  EXPECT_EQ(mlxlm->prompt_tokens, std::optional<uint64_t>(1000));
  EXPECT_FALSE(registry.find("llamacpp")->generation_tokens(1000, 200, true).has_value());
}

}  // namespace
}  // namespace memfit
