// memfit inspect: the byte breakdown of one model at one context, batch
// and KV width; exits 0 whether or not it fits, and loads nothing.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/engine_compare.h"
#include "memfit/run_report.h"

namespace memfit::cli {
namespace {

// --compare: every engine's price of the request (engine_compare.h), as
// {"compare": [...]} or one line each under a heading.
int print_comparison(const EstimateOptions& options) {
  Result<EstimateRequest> request = to_request(options);
  if (!request) return report_error(request.error());
  LocalRequestContext context = request_context(options);
  Result<std::vector<EngineComparison>> rows = compare_engines(*request, context);
  if (!rows) return report_error(rows.error());
  std::string out;
  if (options.json) {
    nlohmann::ordered_json j = {{"model", request->model}, {"compare", comparison_to_json(*rows)}};
    out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    out = "Each engine's price of this request (* the engine inspect uses):\n" +
          render_comparison_text(*rows);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<EstimateOptions>();
  CLI::App* command =
      app.add_subcommand("inspect", "estimate the memory a model needs, without loading it");
  add_model_options(*command, *options);
  add_request_options(*command, *options);
  add_parallel_options(*command, *options);
  add_llamacpp_options(*command, *options);
  add_mlxlm_options(*command, *options, /*with_prompt_tokens=*/true);
  add_vllm_options(*command, *options);
  add_ollama_options(*command, *options);
  auto compare = std::make_shared<bool>(false);
  command->add_flag("--compare", *compare,
                    "price the request under every engine, one line each (engine, total, budget, "
                    "verdict, what the figure is)");
  command->callback([options, compare, &exit_code] {
    if (*compare) {
      exit_code = print_comparison(*options);
      return;
    }
    Result<EstimateRun> run = run_estimate(*options);
    if (!run) {
      exit_code = report_error(run.error());
      return;
    }
    print_warnings(run->warnings);
    const std::string out =
        options->json ? run_to_json(*run).dump(2, ' ', false,
                                               nlohmann::json::error_handler_t::replace) +
                            "\n"
                      : render_run_text(*run);
    std::fwrite(out.data(), 1, out.size(), stdout);
    exit_code = kExitOk;
  });
}

}  // namespace memfit::cli
