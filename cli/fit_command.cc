// memfit fit --solve ...: the largest value that fits the budget, with the
// full report at the answer: the engine's fit hook (engine_command.h), its
// options {"solve", "ctx_size"}; the --solve names each engine takes come
// from the engines (EngineProfile::solve_names, docs/engines.md "Commands").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "engine_command.h"
#include "estimate_options.h"
#include "memfit/engine.h"

namespace memfit::cli {
namespace {

struct FitOptions {
  EstimateOptions estimate;
  std::string solve;
};

// -c/--ctx-size is one flag for every engine: the total context that
// --solve slots splits under mlxcel, llama.cpp's --ctx-size under
// llamacpp. prepare() refuses a llama.cpp field under another engine, and
// the engine is known only once the model is open, so the request is
// prepared without it and the engine reads it as an option.
void run_fit(const FitOptions& o, int& exit_code) {
  std::optional<EngineCommandCall> call =
      command_call(EngineCommand::kFit, o.estimate, "", exit_code);
  if (!call) return;
  call->options["solve"] = o.solve;
  if (std::optional<uint64_t>& ctx_size = call->request.llamacpp.ctx_size) {
    call->options["ctx_size"] = *ctx_size;
    ctx_size.reset();
  }
  exit_code = run_engine_command(o.estimate, std::move(*call));
}

// "<engine>: <its solve help>; ..." over the engines that answer fit.
std::string solve_help() {
  std::vector<std::string> parts;
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    if (!engine->solve_help().empty()) {
      parts.push_back(fmt::format("{}: {}", engine->name(), engine->solve_help()));
    }
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// Every engine's --solve names, each once, in the engines' order.
std::vector<std::string> solve_names() {
  std::vector<std::string> names;
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    for (std::string_view name : engine->solve_names()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    }
  }
  return names;
}

}  // namespace

void add_fit_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* fit = add_estimating_command(
      app, "fit", "solve for the largest context, batch or slot count that fits (vllm: the largest "
                  "--max-model-len or --max-num-seqs it starts with; mlx-lm: the largest "
                  "--max-tokens, --prompt-tokens or --batch-size)",
      options->estimate, {add_request_options, add_llamacpp_options, add_parallel_options,
                          add_mlxlm_run_options, add_vllm_options, add_ollama_options});
  fit->add_option("--solve", options->solve, solve_help())
      ->required()
      ->check(CLI::IsMember(solve_names()));
  fit->get_option("--ctx-size")
      ->description("total context: split among the slots (mlxcel --solve slots, 0 = 8192 per "
                    "slot) or llama.cpp's (llamacpp --solve parallel, 0 = the training context)");
  fit->callback([options, &exit_code] { run_fit(*options, exit_code); });
}

}  // namespace memfit::cli
