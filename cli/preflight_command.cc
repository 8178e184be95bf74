// memfit preflight generate|serve: the inspect breakdown for a generation
// or a server configuration, and a verdict a script can act on: exit 0
// when it fits (or with --force), 3 when it does not or when the weights
// are the fallback (no config, no weights) unless --allow-fallback.
//
// preflight serve reads one set of server flags for every engine, the
// options of the engine's preflight serve hook (engine_command.h):
// -c/--ctx-size is the total context the slots share and --n-parallel
// (also spelled --parallel and -np, llama-server's names) the slots.
// Under mlxcel that is the MLX server's slot plan; under llamacpp
// llama-server's own arithmetic, and the flags only mlxcel's server reads
// (--max-batch-size, --no-batch, --kv-cache-budget, --kv-block-size) are
// usage errors.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <sys/stat.h>

#include "commands.h"
#include "count_flags.h"
#include "engine_command.h"
#include "estimate_options.h"
#include "memfit/engine.h"
#include "memfit/memory_size.h"
#include "memfit/checked_math.h"
#include "memfit/mlxcel_report.h"
#include "memfit/run_report.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

struct GenerateOptions {
  EstimateOptions estimate;
  uint64_t prompt_tokens = 0;
  std::string prompt_file;
  uint64_t new_tokens = 0;
  bool force = false;
  bool allow_fallback = false;
};

// The server flags as given; the mlxcel ones go to the engine only when
// given (llama-server has none of them).
struct ServeCommandOptions {
  EstimateOptions estimate;
  uint64_t ctx_size = 0;
  std::optional<uint64_t> n_parallel;  // nullopt: the server's default
  std::optional<uint64_t> max_batch_size;
  bool no_batch = false;
  std::string kv_cache_budget = "auto";
  uint64_t kv_block_size = 32;
  bool force = false;
};

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Why the gate refuses a run whatever its figures say; empty when it
// does not. Fallback weights (no config.json and no weight files: the
// loader's 7B x 2 bytes, weights.h) price no real model, so they pass only
// with --allow-fallback.
std::string gate_refusal(const EstimateRun& run, bool allow_fallback) {
  if (allow_fallback || run.model->weights.source != WeightsSource::kFallback) return {};
  return "fallback weights: no config.json and no weight files, so the figures are an assumed "
         "7B at 2 bytes per parameter (--allow-fallback to accept them)";
}

bool gate_fits(const EstimateRun& run, bool allow_fallback) {
  return run.fits() && gate_refusal(run, allow_fallback).empty();
}

int verdict(const EstimateRun& run, bool force, bool allow_fallback) {
  return gate_fits(run, allow_fallback) || force ? kExitOk : kExitDoesNotFit;
}

nlohmann::ordered_json preflight_json(std::string_view mode, const EstimateRun& run, bool force,
                                      bool allow_fallback) {
  nlohmann::ordered_json j = {
      {"mode", mode}, {"fits", gate_fits(run, allow_fallback)}, {"forced", force}};
  if (std::string why = gate_refusal(run, allow_fallback); !why.empty()) j["refused"] = why;
  return j;
}

// Prompt tokens of a text file without a tokenizer: its UTF-8 bytes, an
// upper bound on byte-level BPE tokens.
Result<uint64_t> prompt_file_tokens(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error::usage("prompt_file", quote_untrusted(path) + ": not a readable file");
  }
  return static_cast<uint64_t>(st.st_size);
}

void run_generate(const GenerateOptions& o, int& exit_code) {
  EstimateOptions estimate = o.estimate;
  uint64_t prompt = o.prompt_tokens;
  std::vector<Warning> notes;
  if (!o.prompt_file.empty()) {
    Result<uint64_t> tokens = prompt_file_tokens(o.prompt_file);
    if (!tokens) {
      exit_code = report_error(tokens.error());
      return;
    }
    prompt = *tokens;
    notes.push_back(Warning{WarningKind::kRequest,
                            fmt::format("{}: counted as {} prompt tokens, its UTF-8 bytes (an "
                                        "upper bound; no tokenizer is used)",
                                        quote_untrusted(o.prompt_file), prompt)});
  }
  CheckedBytes kv_tokens = CheckedBytes(prompt) + o.new_tokens;
  if (!kv_tokens.value() || *kv_tokens.value() == 0) {
    exit_code = report_error(
        Error::usage("max_tokens", "prompt plus new tokens must be between 1 and 2^64"));
    return;
  }
  // The engine decides what prompt and new tokens mean (mlx-lm takes them
  // as they are; the others price their sum as the context). A request
  // naming no engine gets the default's reading.
  const EngineProfile* named = EngineRegistry::instance().find(estimate.engine);
  const EngineProfile& engine = named ? *named : *EngineRegistry::instance().all().front();
  if (std::optional<GenerationTokens> tokens =
          engine.generation_tokens(prompt, o.new_tokens, estimate.ctx_size.has_value())) {
    estimate.max_tokens = tokens->max_tokens;
    estimate.max_tokens_given = true;
    if (tokens->prompt_tokens) estimate.prompt_tokens = tokens->prompt_tokens;
  }
  Result<EstimateRun> run = run_estimate(estimate);
  if (!run) {
    exit_code = report_error(run.error());
    return;
  }
  run->warnings.insert(run->warnings.begin(), notes.begin(), notes.end());
  print_warnings(run->warnings);
  if (o.estimate.json) {
    nlohmann::ordered_json j = run_to_json(*run);
    j["preflight"] = preflight_json("generate", *run, o.force, o.allow_fallback);
    j["preflight"]["prompt_tokens"] = prompt;
    j["preflight"]["max_new_tokens"] = o.new_tokens;
    print(dump(j));
  } else {
    print(render_run_text(*run));
    print(fmt::format("preflight generate: {} prompt + {} new tokens\n", prompt, o.new_tokens));
    if (std::string why = gate_refusal(*run, o.allow_fallback); !why.empty()) {
      print(fmt::format("DOES NOT FIT: {}\n", why));
    }
  }
  exit_code = verdict(*run, o.force, o.allow_fallback);
}

// The engine's preflight serve hook with the server flags as its options
// (docs/engines.md, "Commands"): only those given, but the context.
void run_serve(const ServeCommandOptions& o, CLI::App& flags, int& exit_code) {
  std::optional<EngineCommandCall> call =
      command_call(EngineCommand::kPreflightServe, o.estimate, "", exit_code);
  if (!call) return;
  nlohmann::json& options = call->options;
  options["ctx_size"] = o.ctx_size;
  if (o.n_parallel) options["n_parallel"] = *o.n_parallel;
  if (o.max_batch_size) options["max_batch_size"] = *o.max_batch_size;
  if (flags.count("--no-batch") > 0) options["no_batch"] = o.no_batch;
  if (flags.count("--kv-cache-budget") > 0) options["kv_cache_budget"] = o.kv_cache_budget;
  if (flags.count("--kv-block-size") > 0) options["kv_block_size"] = o.kv_block_size;
  options["force"] = o.force;
  exit_code = run_engine_command(o.estimate, std::move(*call));
}

}  // namespace

void add_preflight_command(CLI::App& app, int& exit_code) {
  CLI::App* preflight = app.add_subcommand(
      "preflight", "check a generation or a server configuration before starting it");
  preflight->require_subcommand(1);

  auto gen = std::make_shared<GenerateOptions>();
  CLI::App* generate = add_estimating_command(
      *preflight, "generate", "KV for prompt + new tokens; exit 3 when it does not fit",
      gen->estimate,
      {add_parallel_options, add_llamacpp_options, add_mlxlm_options, add_vllm_options,
       add_ollama_options});
  auto* tokens = generate->add_option("--prompt-tokens", gen->prompt_tokens, "prompt length in tokens")
                     ->transform(count_validator(0, true));
  auto* file = generate->add_option("--prompt-file", gen->prompt_file,
                                    "prompt text; its UTF-8 bytes bound its tokens");
  tokens->excludes(file);
  generate->add_option("--max-tokens", gen->new_tokens, "tokens to generate (mlx-lm: its --max-tokens)")
      ->transform(count_validator(1, true))
      ->required();
  generate->add_option("--batch", gen->estimate.batch, "sequences (default 1)")
      ->transform(count_validator(1, false));
  generate->add_flag("--force,--no-memory-check", gen->force, "report, and exit 0 even if it does not fit");
  generate->add_flag("--allow-fallback", gen->allow_fallback,
                     "let fallback weights (no config.json, no weight files) pass the gate");
  generate->callback([gen, &exit_code, tokens, file] {
    if (tokens->count() == 0 && file->count() == 0) {
      exit_code = report_error(Error::usage("give --prompt-tokens or --prompt-file"));
      return;
    }
    run_generate(*gen, exit_code);
  });

  auto srv = std::make_shared<ServeCommandOptions>();
  CLI::App* serve = add_estimating_command(
      *preflight, "serve", "slots, per-slot context and paged KV budget; exit 3 when it does not fit",
      srv->estimate, {add_parallel_options, add_llamacpp_batch_options});
  serve->add_option("-c,--ctx-size", srv->ctx_size,
                    "total context the slots share; 0 = 8192 per slot (mlxcel), the training "
                    "context per slot (llamacpp)")
      ->required();
  serve->add_option("--n-parallel,--parallel", srv->n_parallel,
                    "slots, -np (default 4; llamacpp: 4 sharing one unified cache)");
  serve->add_option("--max-batch-size", srv->max_batch_size,
                    "mlxcel: slots decoded together; wins over --n-parallel");
  serve->add_flag("--no-batch", srv->no_batch, "mlxcel: one slot");
  serve->add_option("--kv-cache-budget", srv->kv_cache_budget, "mlxcel: auto, none or bytes (8GiB)");
  serve->add_option("--kv-block-size", srv->kv_block_size,
                    "mlxcel: tokens per paged KV block (default 32)");
  serve->add_flag("--force,--no-memory-check", srv->force, "report, and exit 0 even if it does not fit");
  serve->callback([srv, serve, &exit_code] { run_serve(*srv, *serve, exit_code); });
}

}  // namespace memfit::cli
