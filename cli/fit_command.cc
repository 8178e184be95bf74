// memfit fit --solve ...: the largest value that fits the budget, for
// each KV width (mlxcel: max-tokens, batch or slots) or cache type
// (llamacpp: ctx-size, parallel, gpu-layers or n-cpu-moe), or the largest
// --max-model-len or --max-num-seqs vLLM starts with (vllm), with the full
// report at the answer: the engine's fit hook (engine_command.h), its
// options {"solve", "ctx_size"} (docs/engines.md, "Commands").
#include <memory>

#include "commands.h"
#include "engine_command.h"
#include "estimate_options.h"

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

}  // namespace

void add_fit_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* fit = add_estimating_command(
      app, "fit", "solve for the largest context, batch or slot count that fits (vllm: the largest "
                  "--max-model-len or --max-num-seqs it starts with)",
      options->estimate, {add_request_options, add_llamacpp_options, add_parallel_options,
                          add_vllm_options});
  fit->add_option("--solve", options->solve,
                  "mlxcel: max-tokens, batch or slots; llamacpp: ctx-size (max-tokens), "
                  "parallel (slots), gpu-layers or n-cpu-moe; vllm: max-model-len (max-tokens) "
                  "or max-num-seqs (batch)")
      ->required()
      ->check(CLI::IsMember({"max-tokens", "batch", "slots", "ctx-size", "parallel", "gpu-layers",
                             "n-cpu-moe", "max-model-len", "max-num-seqs"}));
  fit->get_option("--ctx-size")
      ->description("total context: split among the slots (mlxcel --solve slots, 0 = 8192 per "
                    "slot) or llama.cpp's (llamacpp --solve parallel, 0 = the training context)");
  fit->callback([options, &exit_code] { run_fit(*options, exit_code); });
}

}  // namespace memfit::cli
