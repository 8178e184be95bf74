// memfit inspect: the byte breakdown of one model at one context, batch
// and KV width; exits 0 whether or not it fits, and loads nothing.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/parallel_report.h"
#include "memfit/report.h"

namespace memfit::cli {

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<EstimateOptions>();
  CLI::App* command =
      app.add_subcommand("inspect", "estimate the memory a model needs, without loading it");
  add_model_options(*command, *options);
  add_request_options(*command, *options);
  add_parallel_options(*command, *options);
  command->callback([options, &exit_code] {
    Result<EstimateRun> run = run_estimate(*options);
    if (!run) {
      exit_code = report_error(run.error());
      return;
    }
    print_warnings(run->warnings);
    std::string out;
    if (options->json) {
      nlohmann::ordered_json j = estimate_to_json(run->model, run->estimate, run->budget);
      if (run->parallel) j["parallel"] = parallel_plan_to_json(*run->parallel);
      out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } else {
      out = render_estimate_text(run->model, run->estimate, run->budget);
      if (run->parallel) out += render_parallel_plan_text(*run->parallel);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    exit_code = kExitOk;
  });
}

}  // namespace memfit::cli
