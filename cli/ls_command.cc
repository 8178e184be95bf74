// memfit ls: "what can I run here?" Every model of Ollama's and LM
// Studio's stores, the Hugging Face cache and the folders --model-root
// names, each priced for this machine (or --gpu/--mac) under its usual
// engine (local_models.h; docs/stores.md).
//
//   memfit ls [--model-root DIR]... [--gpu NAME | --mac NAME] [--memory-limit SIZE] [--json]
//
// Exit 0 with the listing on stdout, whatever fits; an entry that cannot
// be read is a line of its own. 2 for a usage error (an unknown --gpu).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "ls_command.h"
#include "estimate_options.h"
#include "memfit/local_models.h"
#include "memfit/request_field.h"

namespace memfit::cli {
namespace {

struct LsOptions {
  EstimateOptions estimate;
  std::vector<std::string> model_roots;
};

int run_ls(const LsOptions& o) {
  Result<EstimateRequest> base = to_request(o.estimate);
  if (!base) return report_error(base.error(), "ls");
  LocalRequestContext context = request_context(o.estimate);
  context.model_names().progress = nullptr;  // one model after another: no progress lines
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  const std::vector<LocalModelEntry> entries = list_local_models(
      *fs, process_model_store_options(), context.model_names().hf_cache, o.model_roots);
  // Only the local stores and caches are read: a listing never asks the Hub.
  context.model_names().hf_cache.offline = true;
  const std::vector<LocalModelRow> rows = price_local_models(
      entries, *base, [&context](const LocalModelEntry&) -> Result<RequestContext*> { return &context; });
  const std::string out =
      o.estimate.json
          ? local_models_to_json(rows).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
          : render_local_models_text(rows);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

// The machine's request fields as options (--gpu, --mac, --memory-limit,
// --device), their texts kept for to_request as every command keeps them.
void add_machine_options(CLI::App& command, EstimateOptions& o) {
  for (std::string_view name : {"gpu", "mac", "memory_limit", "device"}) {
    const RequestField* field = find_request_field(name);
    if (field == nullptr) continue;
    std::string flag = "--" + std::string(name);
    for (char& c : flag) c = c == '_' ? '-' : c;
    command.add_option_function<std::string>(
        flag, [&o, field](const std::string& text) { o.given.emplace_back(field, text); },
        std::string(field->help));
  }
}

}  // namespace

void add_ls_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LsOptions>();
  CLI::App* command = app.add_subcommand(
      "ls", "what can I run here? every local model (Ollama, LM Studio, the Hugging Face cache, "
            "--model-root folders), what fits first");
  add_machine_options(*command, options->estimate);
  command->add_option("--model-root", options->model_roots,
                      "a folder of models to list too (repeat for several)");
  command->add_flag("--json", options->estimate.json, "print one JSON object on stdout");
  command->callback([options, &exit_code] { exit_code = run_ls(*options); });
}

}  // namespace memfit::cli
