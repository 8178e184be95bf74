// memfit preflight generate|serve: the inspect breakdown for a generation
// or a server configuration, and a verdict a script can act on: exit 0
// when it fits (or with --force), 3 when it does not.
//
// preflight serve reads one set of server flags for both engines:
// -c/--ctx-size is the total context the slots share and --n-parallel
// (also spelled --parallel and -np, llama-server's names) the slots.
// Under mlxcel that is the MLX server's slot plan (serve_plan.h); under
// llamacpp it is llama-server's own arithmetic (llama_server.h), and the
// flags only mlxcel's server reads (--max-batch-size, --no-batch,
// --kv-cache-budget, --kv-block-size) are usage errors.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <sys/stat.h>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/memory_size.h"
#include "memfit/checked_math.h"
#include "memfit/llama_server.h"
#include "memfit/report.h"
#include "memfit/run_report.h"
#include "memfit/untrusted_text.h"
#include "memfit/serve_plan.h"

namespace memfit::cli {
namespace {

struct GenerateOptions {
  EstimateOptions estimate;
  uint64_t prompt_tokens = 0;
  std::string prompt_file;
  uint64_t new_tokens = 0;
  bool force = false;
};

struct ServeCommandOptions {
  EstimateOptions estimate;
  ServeOptions serve;
  std::optional<uint64_t> n_parallel;  // nullopt: the server's default
  std::optional<uint64_t> max_batch_size;
  std::string kv_cache_budget = "auto";
  bool force = false;
  std::string mlxcel_only_flag;  // the first mlxcel-only flag given, as a request field; "" when none
};

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int verdict(const EstimateRun& run, bool force) {
  return run.fits() || force ? kExitOk : kExitDoesNotFit;
}

nlohmann::ordered_json preflight_json(std::string_view mode, const EstimateRun& run, bool force) {
  return {{"mode", mode}, {"fits", run.fits()}, {"forced", force}};
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
  // mlx-lm takes the prompt and the generated tokens as they are. Other
  // engines: the context is prompt + new tokens, unless llama.cpp's -c is
  // given (the engine follows from the model, so max_tokens carries it).
  if (Result<std::string> engine = parse_engine(estimate.engine); engine && *engine == "mlx-lm") {
    estimate.prompt_tokens = prompt;
    estimate.max_tokens = o.new_tokens;
    estimate.max_tokens_given = true;
  } else if (!estimate.ctx_size) {
    estimate.max_tokens = *kv_tokens.value();
    estimate.max_tokens_given = true;
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
    j["preflight"] = preflight_json("generate", *run, o.force);
    j["preflight"]["prompt_tokens"] = prompt;
    j["preflight"]["max_new_tokens"] = o.new_tokens;
    print(dump(j));
  } else {
    print(render_run_text(*run));
    print(fmt::format("preflight generate: {} prompt + {} new tokens\n", prompt, o.new_tokens));
  }
  exit_code = verdict(*run, o.force);
}

// llama-server's slots: the context and slots on llama-server's terms
// (apply_llama_server_rules), priced by the llama.cpp profile.
void run_llamacpp_serve(const ServeCommandOptions& o, const EstimateRequest& request,
                        PreparedRequest prepared, int& exit_code) {
  if (!o.mlxcel_only_flag.empty()) {
    exit_code = report_error(Error::usage(
        o.mlxcel_only_flag, "is an mlxcel server setting; llama-server takes --ctx-size, "
                            "--parallel, --batch-size, --ubatch-size, --cache-type-k/-v, "
                            "--flash-attn, --swa-full and --kv-unified"));
    return;
  }
  LlamaCppSettings& s = prepared.llamacpp_settings;
  s.ctx_size = o.serve.ctx_size;
  if (o.n_parallel) s.parallel = *o.n_parallel;
  if (Status rules = apply_llama_server_rules(prepared.model->spec, o.n_parallel.has_value(), s);
      !rules) {
    exit_code = report_error(rules.error().within(quote_untrusted(request.model)));
    return;
  }
  Result<EstimateRun> run = run_prepared(request, std::move(prepared));
  if (!run) {
    exit_code = report_error(run.error());
    return;
  }
  print_warnings(run->warnings);
  const LlamaCppEstimate& e = *run->llamacpp;
  const std::vector<std::string> flags = llama_server_flags(run->model->spec, e.settings);
  if (o.estimate.json) {
    nlohmann::ordered_json j = run_to_json(*run);
    j["preflight"] = preflight_json("serve", *run, o.force);
    j["serve"] = {{"active_slots", e.context.n_seq},
                  {"effective_context", e.context.n_ctx_seq},
                  {"kv_unified", e.settings.kv_unified},
                  {"flags", flags}};
    print(dump(j));
  } else {
    std::string line;
    for (const std::string& f : flags) line += " " + f;
    print(render_run_text(*run));
    print(fmt::format("preflight serve: {} slot{} of {} cells ({})\nllama-server flags:{}\n",
                      e.context.n_seq, e.context.n_seq == 1 ? "" : "s", e.context.n_ctx_seq,
                      e.settings.kv_unified ? "one unified cache" : "a cache each", line));
  }
  exit_code = verdict(*run, o.force);
}

// The MLX runtime's server: slots from --n-parallel / --max-batch-size /
// --no-batch, each estimated at its share of the context.
void run_mlxcel_serve(ServeCommandOptions o, EstimateRequest request, PreparedRequest prepared,
                      int& exit_code) {
  if (o.n_parallel) o.serve.n_parallel = *o.n_parallel;
  o.serve.max_batch_size = o.max_batch_size;
  Result<ServeSlots> slots = serve_slots(o.serve);
  if (!slots) {
    exit_code = report_error(slots.error());
    return;
  }
  // The context and batch the request would have carried: prepare() only
  // copies them into the inputs.
  request.max_tokens = prepared.inputs.max_tokens = slots->effective_context;
  request.batch = prepared.inputs.batch = slots->active_slots;
  Result<EstimateRun> run = run_prepared(request, std::move(prepared));
  if (!run) {
    exit_code = report_error(run.error());
    return;
  }
  print_warnings(run->warnings);
  ServePlan plan = plan_serve(o.serve, *slots, *run->model, run->estimate, run->settings);
  if (o.estimate.json) {
    nlohmann::ordered_json j = run_to_json(*run);
    j["preflight"] = preflight_json("serve", *run, o.force);
    j["serve"] = serve_plan_to_json(plan);
    print(dump(j));
  } else {
    print(render_run_text(*run));
    print(render_serve_plan_text(plan));
  }
  exit_code = verdict(*run, o.force);
}

void run_serve(ServeCommandOptions o, int& exit_code) {
  if (o.kv_cache_budget == "auto") {
    o.serve.kv_budget = ServeOptions::KvBudget::kAuto;
  } else if (o.kv_cache_budget == "none") {
    o.serve.kv_budget = ServeOptions::KvBudget::kNone;
  } else {
    Result<std::optional<uint64_t>> bytes = parse_memory_size(o.kv_cache_budget);
    if (!bytes || !bytes->has_value()) {
      exit_code = report_error(Error::usage(
          "kv_cache_budget",
          quote_untrusted(o.kv_cache_budget) + ": expected auto, none or a size such as 8GiB"));
      return;
    }
    o.serve.kv_budget = ServeOptions::KvBudget::kBytes;
    o.serve.kv_budget_bytes = **bytes;
  }
  Result<EstimateRequest> request = to_request(o.estimate);
  if (!request) {
    exit_code = report_error(request.error());
    return;
  }
  LocalRequestContext context = request_context(o.estimate);
  Result<PreparedRequest> prepared = prepare(*request, context);
  if (!prepared) {
    exit_code = report_error(prepared.error());
    return;
  }
  if (!prepared->engine->supports(EngineCommand::kPreflightServe)) {
    exit_code = report_error(
        EngineRegistry::instance().unsupported(*prepared->engine, EngineCommand::kPreflightServe));
    return;
  }
  if (prepared->engine->name() == "llamacpp") {
    run_llamacpp_serve(o, *request, std::move(*prepared), exit_code);
  } else {
    run_mlxcel_serve(std::move(o), std::move(*request), std::move(*prepared), exit_code);
  }
}

}  // namespace

void add_preflight_command(CLI::App& app, int& exit_code) {
  CLI::App* preflight = app.add_subcommand(
      "preflight", "check a generation or a server configuration before starting it");
  preflight->require_subcommand(1);

  auto gen = std::make_shared<GenerateOptions>();
  CLI::App* generate = preflight->add_subcommand(
      "generate", "KV for prompt + new tokens; exit 3 when it does not fit");
  add_model_options(*generate, gen->estimate);
  add_parallel_options(*generate, gen->estimate);
  add_llamacpp_options(*generate, gen->estimate);
  add_mlxlm_options(*generate, gen->estimate);
  add_vllm_options(*generate, gen->estimate);
  auto* tokens = generate->add_option("--prompt-tokens", gen->prompt_tokens, "prompt length in tokens");
  auto* file = generate->add_option("--prompt-file", gen->prompt_file,
                                    "prompt text; its UTF-8 bytes bound its tokens");
  tokens->excludes(file);
  generate->add_option("--max-tokens", gen->new_tokens, "tokens to generate (mlx-lm: its --max-tokens)")->required();
  generate->add_option("--batch", gen->estimate.batch, "sequences (default 1)")
      ->check(CLI::PositiveNumber);
  generate->add_flag("--force,--no-memory-check", gen->force, "report, and exit 0 even if it does not fit");
  generate->callback([gen, &exit_code, tokens, file] {
    if (tokens->count() == 0 && file->count() == 0) {
      exit_code = report_error(Error::usage("give --prompt-tokens or --prompt-file"));
      return;
    }
    run_generate(*gen, exit_code);
  });

  auto srv = std::make_shared<ServeCommandOptions>();
  CLI::App* serve = preflight->add_subcommand(
      "serve", "slots, per-slot context and paged KV budget; exit 3 when it does not fit");
  add_model_options(*serve, srv->estimate);
  add_parallel_options(*serve, srv->estimate);
  add_llamacpp_batch_options(*serve, srv->estimate);
  serve->add_option("-c,--ctx-size", srv->serve.ctx_size,
                    "total context the slots share; 0 = 8192 per slot (mlxcel), the training "
                    "context per slot (llamacpp)")
      ->required();
  serve->add_option("--n-parallel,--parallel", srv->n_parallel,
                    "slots, -np (default 4; llamacpp: 4 sharing one unified cache)");
  serve->add_option("--max-batch-size", srv->max_batch_size,
                    "mlxcel: slots decoded together; wins over --n-parallel");
  serve->add_flag("--no-batch", srv->serve.no_batch, "mlxcel: one slot");
  serve->add_option("--kv-cache-budget", srv->kv_cache_budget, "mlxcel: auto, none or bytes (8GiB)");
  serve->add_option("--kv-block-size", srv->serve.kv_block_size,
                    "mlxcel: tokens per paged KV block (default 32)");
  serve->add_flag("--force,--no-memory-check", srv->force, "report, and exit 0 even if it does not fit");
  serve->callback([srv, serve, &exit_code] {
    for (const char* flag : {"--max-batch-size", "--no-batch", "--kv-cache-budget", "--kv-block-size"}) {
      if (serve->count(flag) == 0) continue;
      std::string field = std::string(flag).substr(2);
      for (char& c : field) c = c == '-' ? '_' : c;
      srv->mlxcel_only_flag = field;
      break;
    }
    run_serve(*srv, exit_code);
  });
}

}  // namespace memfit::cli
