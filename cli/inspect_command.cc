// memfit inspect: the byte breakdown of one model at one context, batch
// and KV width, or of several models on one machine (-m A ... -m B ...,
// docs/multi-model.md); exits 0 whether or not it fits, and loads nothing.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/engine_compare.h"
#include "memfit/multi_model.h"
#include "memfit/run_report.h"

namespace memfit::cli {
namespace {

std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

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
    out = json_text({{"model", request->model}, {"compare", comparison_to_json(*rows)}});
  } else {
    out = "Each engine's price of this request (* the engine inspect uses):\n" +
          render_comparison_text(*rows);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

int print_run(const EstimateOptions& options) {
  Result<EstimateRun> run = run_estimate(options);
  if (!run) return report_error(run.error());
  print_warnings(run->warnings);
  const std::string out = options.json ? json_text(run_to_json(*run)) : render_run_text(*run);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

// Several -m: each model's request, priced together (multi_model.h).
int print_models(const std::vector<EstimateOptions>& models) {
  std::vector<EstimateRequest> requests;
  for (size_t i = 0; i < models.size(); ++i) {
    Result<EstimateRequest> request = to_request(models[i]);
    if (!request) return report_error(error_of_model(i, models[i].model, request.error()));
    requests.push_back(std::move(*request));
  }
  LocalRequestContext context = request_context(models.front());
  Result<MultiModelRun> together = run_models(requests, context);
  if (!together) return report_error(together.error());
  for (const EstimateRun& run : together->runs) print_warnings(run.warnings);
  print_warnings(together->warnings);
  const std::string out = models.front().json ? json_text(multi_run_to_json(*together))
                                              : render_multi_run_text(*together);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<EstimateOptions>();
  CLI::App* command = app.add_subcommand(
      "inspect",
      "estimate the memory a model needs, without loading it (several -m: models sharing the "
      "machine, each -m's options after it)");
  add_model_options(*command, *options);
  add_request_options(*command, *options);
  add_parallel_options(*command, *options);
  add_llamacpp_options(*command, *options);
  add_mlxlm_options(*command, *options, /*with_prompt_tokens=*/true);
  add_vllm_options(*command, *options);
  add_other_engine_options(*command, *options);
  auto compare = std::make_shared<bool>(false);
  command->add_flag("--compare", *compare,
                    "price the request under every engine, one line each (engine, total, budget, "
                    "verdict, what the figure is)");
  keep_command_line_order(*command);
  command->callback([options, compare, &exit_code] {
    Result<std::vector<EstimateOptions>> models = options_per_model(*options);
    if (!models) {
      exit_code = report_error(models.error());
      return;
    }
    if (models->size() > 1 && *compare) {
      exit_code = report_error(Error::usage("--compare takes one model"));
      return;
    }
    if (models->size() > 1) {
      exit_code = print_models(*models);
      return;
    }
    exit_code = *compare ? print_comparison(*options) : print_run(*options);
  });
}

}  // namespace memfit::cli
