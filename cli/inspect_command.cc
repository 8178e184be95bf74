// memfit inspect: the byte breakdown of one model at one context, batch
// and KV width; exits 0 whether or not it fits, and loads nothing.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/run_report.h"

namespace memfit::cli {

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
  command->callback([options, &exit_code] {
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
