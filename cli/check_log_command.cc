// memfit check-log: a runtime's log read back and priced by memfit
// (docs/check-log.md).
//
//   memfit check-log FILE|- [--json] [-m MODEL] [--config FILE]
//                    [--gpu-memory-total SIZE] [--gpu-name NAME] [--runtime-version V]
//                    [--command "vllm serve ..."] [--file-type Q4_K_M]
//
// Exit 0 with the table (or JSON) on stdout, priced or not; 1 when the
// log, the model or the config cannot be read; 2 for a bad option value.
// The library's check_log (log_check.h) does the work: this file reads the
// files and prints.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/environment.h"
#include "memfit/file_system.h"
#include "memfit/log_check.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

struct CheckLogOptions {
  std::string log_path;
  std::string model;
  std::string config_path;
  std::string gpu_memory_total;
  std::string gpu_name;
  std::string version;
  std::string command;
  std::string file_type;
  bool json = false;
};

// Standard input whole, up to `limit_bytes` (one byte more is refused).
Result<std::string> read_stdin(uint64_t limit_bytes) {
  std::string text;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
    text.append(buffer, n);
    if (text.size() > limit_bytes) {
      return Error(fmt::format("standard input: more than the {} bytes memfit reads", limit_bytes));
    }
  }
  return text;
}

// A file whole, refused past `limit_bytes` before anything is read.
Result<std::string> read_whole(const std::string& path, uint64_t limit_bytes) {
  if (path == "-") return read_stdin(limit_bytes);
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<FileStat> st = fs->stat(path);
  if (!st) return st.error();
  if (st->kind != FileKind::kRegular) return Error(quote_untrusted(path) + ": not a readable file");
  if (st->size_bytes > limit_bytes) {
    return Error(fmt::format("{}: {} bytes is more than the {} memfit reads", quote_untrusted(path),
                             st->size_bytes, limit_bytes));
  }
  return fs->read_range(path, 0, st->size_bytes);
}

Result<LogCheckOptions> check_options(const CheckLogOptions& o) {
  LogCheckOptions options;
  options.model = o.model;
  options.gpu_name = o.gpu_name;
  options.version = o.version;
  options.command = o.command;
  options.file_type = o.file_type;
  if (!o.config_path.empty()) {
    Result<std::string> config = read_whole(o.config_path, kMaxConfigBytes);
    if (!config) return config.error();
    options.config_json = std::move(*config);
  }
  if (!o.gpu_memory_total.empty()) {
    Result<std::optional<uint64_t>> total = parse_memory_size(o.gpu_memory_total);
    if (!total) return Error::usage("gpu_memory_total", total.error().message());
    options.gpu_memory_total = *total;
  }
  return options;
}

int run_check_log(const CheckLogOptions& o) {
  Result<LogCheckOptions> options = check_options(o);
  if (!options) return report_error(options.error(), "check-log");
  Result<std::string> text = read_whole(o.log_path, kMaxRuntimeLogBytes);
  if (!text) return report_error(text.error(), "check-log");
  LocalRequestContext models(*make_process_environment());
  Result<LogCheck> check = check_log(*text, *options, &models);
  if (!check) return report_error(check.error(), "check-log");
  print_warnings(check->warnings);
  const std::string out =
      o.json ? log_check_to_json(*check).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
             : render_log_check_text(*check);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_check_log_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CheckLogOptions>();
  CLI::App* command = app.add_subcommand(
      "check-log", "read a runtime's log (llama.cpp, Ollama, vLLM, SGLang, mlx-lm) and set "
                   "memfit's figures beside the ones it printed");
  command->add_option("log", o->log_path, "the log file, or - for standard input")->required();
  command->add_flag("--json", o->json, "print the check as JSON (schema/check-log.schema.json)");
  command->add_option("-m,--model", o->model,
                      "the model, as inspect takes it; default: the log's own metadata "
                      "(llama.cpp) or --config");
  command->add_option("--config", o->config_path, "the model's config.json, given beside the log");
  command->add_option("--gpu-memory-total", o->gpu_memory_total,
                      "the GPU's total memory, when the log does not print it (vLLM)");
  command->add_option("--gpu-name", o->gpu_name, "the GPU's name, when the log does not print it");
  command->add_option("--runtime-version", o->version,
                      "the runtime's version, when the log does not print it (vLLM: whose "
                      "accounting prices it)");
  command->add_option("--command", o->command,
                      "the command line that started the run, when the log does not show it "
                      "(what the log printed wins)");
  command->add_option("--file-type", o->file_type,
                      "the GGUF file type the run loaded (Q4_K_M), with --config, when the "
                      "log does not print it (llama.cpp); for mlx-lm, the quantization "
                      "mlx_lm.convert gave the config's model (4bit, 4bit-g64; 4bit-g64-linear-only: "
                      "an MLX before v0.11.0, the embedding unquantized)");
  command->callback([o, &exit_code] { exit_code = run_check_log(*o); });
}

}  // namespace memfit::cli
