// memfit plot -m MODEL --out F.svg: memory against context for each KV
// width (and each weight mode with --quants), stacked by component, with
// the budget line and the largest context that fits marked. Writes the
// SVG; prints one summary line (or, with --json, one JSON object): the
// engine's plot hook (engine_command.h), its options {"out", "quants",
// "max_tokens"} (docs/engines.md, "Commands").
//
// A llamacpp request (a GGUF model by default) draws --ctx-size on the x
// axis, one panel per cache type, with llama.cpp's flags as given; the
// range end is --max-tokens, a flag of the plot here, not of the request
// (for which max_tokens is an mlxcel setting).
#include <memory>

#include "commands.h"
#include "engine_command.h"
#include "estimate_options.h"

namespace memfit::cli {
namespace {

struct PlotOptions {
  EstimateOptions estimate;
  std::string out_path;
  bool quants = false;
  bool ctx_size_given = false;
};

void run_plot(const PlotOptions& o, int& exit_code) {
  if (o.ctx_size_given) {
    exit_code = report_error(Error::usage("ctx_size", "is the plot's x axis: give --max-tokens "
                                                      "for where it ends"),
                             "plot");
    return;
  }
  std::optional<EngineCommandCall> call =
      command_call(EngineCommand::kPlot, o.estimate, "plot", exit_code);
  if (!call) return;
  // --max-tokens is where the x axis ends, not a request field: without
  // it, the context the model declares, else 128K.
  if (std::optional<uint64_t>& max_tokens = call->request.max_tokens) {
    call->options["max_tokens"] = *max_tokens;
    max_tokens.reset();
  }
  call->options["out"] = o.out_path;
  call->options["quants"] = o.quants;
  call->prepare.keep_tensors = o.quants;
  call->out_path = o.out_path;
  exit_code = run_engine_command(o.estimate, std::move(*call));
}

}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* cmd = add_estimating_command(
      app, "plot", "draw memory against context per KV width (and weight mode) as an SVG file; "
                   "for llamacpp, against --ctx-size per cache type; for mlx-lm, against "
                   "--prompt-tokens",
      options->estimate, {add_request_options, add_llamacpp_options, add_mlxlm_options});
  cmd->add_option("-o,--out", options->out_path, "the SVG file to write")->required();
  cmd->add_flag("--quants", options->quants, "one row per weight mode: as-is, int8, int4 (MLX affine)");
  cmd->callback([options, cmd, &exit_code] {
    options->ctx_size_given = cmd->count("--ctx-size") > 0;
    run_plot(*options, exit_code);
  });
}

}  // namespace memfit::cli
