// memfit preflight generate|serve: the inspect breakdown for a generation
// or a server configuration, and a verdict a script can act on: exit 0
// when it fits (or with --force), 3 when it does not.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <sys/stat.h>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/memory_size.h"
#include "memfit/checked_math.h"
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
  std::optional<uint64_t> max_batch_size;
  std::string kv_cache_budget = "auto";
  bool force = false;
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
  // The context: prompt + new tokens, unless llama.cpp's -c is given (the
  // engine follows from the model, so max_tokens carries it to either).
  if (!estimate.ctx_size) {
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

void run_serve(ServeCommandOptions o, int& exit_code) {
  if (o.estimate.engine == "llamacpp") {
    exit_code = report_error(Error::usage(
        "engine", "preflight serve plans mlxcel slots only; use inspect or preflight generate "
                  "with llamacpp's --parallel"));
    return;
  }
  o.serve.max_batch_size = o.max_batch_size;
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
  Result<ServeSlots> slots = serve_slots(o.serve);
  if (!slots) {
    exit_code = report_error(slots.error());
    return;
  }
  EstimateOptions estimate = o.estimate;
  estimate.max_tokens = slots->effective_context;
  estimate.batch = slots->active_slots;
  Result<EstimateRun> run = run_estimate(estimate);
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
  auto* tokens = generate->add_option("--prompt-tokens", gen->prompt_tokens, "prompt length in tokens");
  auto* file = generate->add_option("--prompt-file", gen->prompt_file,
                                    "prompt text; its UTF-8 bytes bound its tokens");
  tokens->excludes(file);
  generate->add_option("--max-tokens", gen->new_tokens, "tokens to generate")->required();
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
  serve->add_option("--ctx-size", srv->serve.ctx_size, "total context; 0 = 8192 per slot")
      ->required();
  serve->add_option("--n-parallel", srv->serve.n_parallel, "slots (default 4)");
  serve->add_option("--max-batch-size", srv->max_batch_size, "slots decoded together; wins over --n-parallel");
  serve->add_flag("--no-batch", srv->serve.no_batch, "one slot");
  serve->add_option("--kv-cache-budget", srv->kv_cache_budget, "auto, none or bytes (8GiB)");
  serve->add_option("--kv-block-size", srv->serve.kv_block_size, "tokens per paged KV block (default 32)");
  serve->add_flag("--force,--no-memory-check", srv->force, "report, and exit 0 even if it does not fit");
  serve->callback([srv, &exit_code] { run_serve(*srv, exit_code); });
}

}  // namespace memfit::cli
