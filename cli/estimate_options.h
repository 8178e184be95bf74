// The options every estimating command shares: the request fields of the
// request field table (include/memfit/request_field.h: -m, --max-tokens,
// --batch, the KV cache width, --engine, each engine's own flags, ...),
// turned into the library's EstimateRequest by the fields' own rows: the
// CLI is one of the request layer's three front ends
// (include/memfit/request.h), so inspect, preflight, fit, recommend-quant
// and plot cannot disagree with the C API and the service.
#ifndef MEMFIT_CLI_ESTIMATE_OPTIONS_H_
#define MEMFIT_CLI_ESTIMATE_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memfit/request.h"
#include "memfit/request_field.h"
#include "memfit/result.h"
#include "memfit/warning.h"

namespace memfit::cli {

// The flags as given. The request fields' options come from the request
// field table (request_field.h): each keeps its texts, applied by the
// field's own row in to_request, so its names, parsers and messages are
// the JSON request's.
struct EstimateOptions {
  // Each request field's texts as given, in order (a repeatable field has
  // several).
  std::vector<std::pair<const RequestField*, std::string>> given;
  // What the commands read or set themselves. The model, engine,
  // max_tokens, batch, ctx_size and prompt_tokens rows keep these in step
  // when given, and to_request takes them over their rows' texts (a
  // command sets its own context, prompt or batch here).
  std::string model;
  uint64_t max_tokens = 8192;
  bool max_tokens_given = false;  // --max-tokens, or a command's own context
  uint64_t batch = 1;
  std::string engine = "auto";
  std::optional<uint64_t> ctx_size;       // llama.cpp's -c
  std::optional<uint64_t> prompt_tokens;  // mlx-lm's; set by preflight generate
  bool json = false;
  // llama.cpp flags with no JSON field: --lora-scaled FILE SCALE (a LoRA
  // adapter; the scale costs no memory) and --ctx-size-draft (refused).
  std::vector<std::pair<std::string, std::string>> lora_scaled;
  std::optional<std::string> ctx_size_draft;
  // The Hub (docs/hub.md): "" / nullopt / false when not given.
  std::string token;
  std::string revision;
  std::string file;
  std::optional<uint64_t> timeout_seconds;
  bool offline = false;
};

// The runtime's multi-letter short flags (-np, -ub, -ctk, -ctv, -fa,
// -ngl, ...: each request field's, and -cd), which CLI11 cannot register,
// rewritten to their fields' first long flags; every other argument as it
// is.
std::vector<std::string> with_llamacpp_short_flags(int argc, char** argv);

// Registers the shared options on `command`: the request fields every
// engine reads but the context, the batch and the parallel plan (the
// model, engine, KV widths, weight mode, backend, budget, device), then
// --json and the Hub's ...
void add_model_options(CLI::App& command, EstimateOptions& options);
// ... and the request's --max-tokens and --batch.
void add_request_options(CLI::App& command, EstimateOptions& options);
// `engine`'s own request fields, in table order, but those `except` names
// (JSON names), each as a flag whose help starts "<engine>: ".
void add_engine_options(CLI::App& command, EstimateOptions& options, std::string_view engine,
                        std::initializer_list<std::string_view> except = {});
// llama.cpp's flags for --engine llamacpp (its fields, and --lora-scaled
// and --ctx-size-draft). On the commands that price llamacpp (inspect,
// preflight generate, fit, plot, recommend-quant).
void add_llamacpp_options(CLI::App& command, EstimateOptions& options);
// The same but -c and --parallel, for a command that reads the context and
// the sequences with flags of its own (preflight serve).
void add_llamacpp_batch_options(CLI::App& command, EstimateOptions& options);
// mlx-lm's flags for --engine mlx-lm, and --prompt-tokens for a command
// that has none of its own (inspect; preflight generate reads its own).
void add_mlxlm_options(CLI::App& command, EstimateOptions& options, bool with_prompt_tokens);
void add_mlxlm_options(CLI::App& command, EstimateOptions& options);  // without --prompt-tokens
void add_mlxlm_run_options(CLI::App& command, EstimateOptions& options);  // with --prompt-tokens
// vLLM's flags for --engine vllm.
void add_vllm_options(CLI::App& command, EstimateOptions& options);
// The flags of every other registered engine (sglang, ...): those whose
// commands take all of their fields, so no group of their own is needed.
void add_other_engine_options(CLI::App& command, EstimateOptions& options);
// --tensor-parallel N (--tensor-parallel-size), --pipeline-parallel M and
// --parallel-engine vllm|mlx.
void add_parallel_options(CLI::App& command, EstimateOptions& options);

// One of the flag groups above (add_request_options, ...).
using OptionGroup = void (*)(CLI::App& command, EstimateOptions& options);

// A subcommand `name` of `parent`: add_model_options' flags, then each of
// `groups`' in the order given (the order --help lists them in).
CLI::App* add_estimating_command(CLI::App& parent, const std::string& name,
                                 const std::string& description, EstimateOptions& options,
                                 std::initializer_list<OptionGroup> groups);

// Several models on one machine (docs/multi-model.md): makes each option
// of `command` run its callback as it is parsed, so that `given` keeps the
// command line's order and a field given twice in one place is seen (the
// command then reads them with options_per_model).
void keep_command_line_order(CLI::App& command);

// The options of each model a command line names (options after which
// keep_command_line_order ran): the fields given before the first -m apply
// to every model, those after each -m to that model alone, replacing a
// shared field of the same name; the options that are no field (--json,
// the Hub's) are every model's. One model: the options as they are.
// kUsage naming the field given twice in one place (a list field, --lora,
// may repeat), or lora_scaled with several models (give --lora).
Result<std::vector<EstimateOptions>> options_per_model(const EstimateOptions& options);

// The request the options ask for. Usage errors name the request field
// (report_error prints it as the flag).
Result<EstimateRequest> to_request(const EstimateOptions& options);

// The real machine's request context, the Hub flags applied to how it
// opens models by name; a progress line on stderr, when it is a terminal,
// while many shards' headers are read from the Hub.
LocalRequestContext request_context(const EstimateOptions& options);

// to_request, then prepare() on the real machine.
Result<PreparedRequest> prepare_estimate(const EstimateOptions& options,
                                         const PrepareOptions& prepare_options = {});
// to_request, then run() on the real machine.
Result<EstimateRun> run_estimate(const EstimateOptions& options);

// Prints an error as one stderr line, "memfit: [<command>: ]<message>" (for
// a usage error about one field the message is "--flag: detail", the
// field's long flag: field_flag), and
// returns the exit status its kind maps to: kUsage 2, every other kind 1.
int report_error(const Error& error, std::string_view command = "");

// The warnings' texts as a JSON array: every --json answer lists the
// warnings the command printed on stderr.
nlohmann::ordered_json warnings_json(const std::vector<Warning>& warnings);

// Prints each warning on stderr: kAvailableNow lines as they are (scripts
// match their "WARNING: memory available now"), the others after
// "memfit: warning: ".
void print_warnings(const std::vector<Warning>& warnings);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_ESTIMATE_OPTIONS_H_
