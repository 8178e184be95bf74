// The shared options: the request field table's rows registered as flags,
// and the EstimateRequest their texts make.
#include "estimate_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <span>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "commands.h"
#include "flag_text.h"
#include "memfit/engine.h"
#include "memfit/memory_size.h"
#include "memfit/number_text.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

// The common fields the request and parallel options register; every other
// common field is a model option.
constexpr std::string_view kRequestFields[] = {"max_tokens", "batch"};
constexpr std::string_view kParallelFields[] = {"tensor_parallel", "pipeline_parallel",
                                                "parallel_engine"};

// --engine's help: the row's, then every engine the registry holds.
std::string engine_option_help(std::string_view row_help) {
  std::string help = std::string(row_help) + ": ";
  const std::vector<const EngineProfile*> engines = EngineRegistry::instance().all();
  for (size_t i = 0; i < engines.size(); ++i) {
    if (i > 0) help += i + 1 == engines.size() ? " or " : ", ";
    help += engines[i]->name();
  }
  return help;
}

// "--cache-type-k" for the request field "cache_type_k".
std::string flag_name(std::string_view field) {
  std::string flag = "--";
  for (char c : field) flag.push_back(c == '_' ? '-' : c);
  return flag;
}

bool listed(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The members commands read, in step with their rows: `text` applied alone
// to a scratch request, and taken when it reads (when it does not,
// to_request reports it).
void keep_in_step(EstimateOptions& o, const RequestField& f, const std::string& text) {
  if (f.name == "engine") o.engine = text;
  EstimateRequest scratch;
  if (!apply_request_field(f, scratch, text)) return;
  if (f.name == "model") o.model = scratch.model;
  if (f.name == "max_tokens") {
    o.max_tokens = *scratch.max_tokens;
    o.max_tokens_given = true;
  }
  if (f.name == "batch") o.batch = scratch.batch;
  if (f.name == "ctx_size") o.ctx_size = scratch.llamacpp.ctx_size;
  if (f.name == "prompt_tokens") o.prompt_tokens = scratch.mlxlm.prompt_tokens;
}

// The llama.cpp flags with no row: after --lora, --lora-scaled; after
// -ctvd, --ctx-size-draft.
void add_cli_only_options(CLI::App& command, EstimateOptions& o, std::string_view after) {
  if (after == "lora") {
    command.add_option("--lora-scaled", o.lora_scaled,
                       "llamacpp: FILE SCALE, a LoRA adapter with its scale (repeatable; the scale "
                       "costs no memory)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  } else if (after == "cache_type_v_draft") {
    command.add_option("--ctx-size-draft", o.ctx_size_draft,
                       "llamacpp: not in the pinned llama.cpp (the draft's context is -c); refused");
  }
}

// One request field as an option: its spellings but the runtime's short
// ones (with_llamacpp_short_flags rewrites those), its help after its
// engine's name, its texts kept in `o.given`.
CLI::Option* add_field_option(CLI::App& command, EstimateOptions& o, const RequestField& f) {
  std::string names;
  for (std::string_view spelling : field_spellings(f)) {
    if (is_runtime_short_flag(spelling)) continue;
    if (!names.empty()) names += ',';
    names += spelling;
  }
  const std::string help = f.engine.empty() ? std::string(f.help) : fmt::format("{}: {}", f.engine, f.help);
  auto keep = [&o, &f](const std::string& text) {
    o.given.emplace_back(&f, text);
    keep_in_step(o, f, text);
  };
  if (f.type == FieldType::kFlag) {
    return command.add_flag_function(names, [keep](std::int64_t) { keep("true"); }, help);
  }
  if (f.type == FieldType::kList) {
    return command
        .add_option_function<std::vector<std::string>>(
            names,
            [keep](const std::vector<std::string>& texts) {
              for (const std::string& text : texts) keep(text);
            },
            help)
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  CLI::Option* option = command.add_option_function<std::string>(names, keep, help);
  if (f.type == FieldType::kCount) option->type_name("UINT");
  if (f.type == FieldType::kRatio) option->type_name("FLOAT");
  if (f.required) option->required();
  return option;
}

}  // namespace

std::vector<std::string> with_llamacpp_short_flags(int argc, char** argv) {
  std::vector<std::pair<std::string_view, std::string_view>> rewrites = {{"-cd", "--ctx-size-draft"}};
  for (const RequestField* f : request_fields()) {
    const std::vector<std::string_view> spellings = field_spellings(*f);
    auto long_flag = std::find_if(spellings.begin(), spellings.end(),
                                  [](std::string_view s) { return s.starts_with("--"); });
    if (long_flag == spellings.end()) continue;
    for (std::string_view spelling : spellings) {
      if (is_runtime_short_flag(spelling)) rewrites.emplace_back(spelling, *long_flag);
    }
  }
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string_view a = argv[i];
    for (const auto& [from, to] : rewrites) {
      if (a == from) {
        a = to;
        break;
      }
    }
    args.emplace_back(a);
  }
  return args;
}

void add_engine_options(CLI::App& command, EstimateOptions& o, std::string_view engine,
                        std::initializer_list<std::string_view> except) {
  for (const RequestField* f : engine_request_fields(engine)) {
    if (std::find(except.begin(), except.end(), f->name) != except.end()) continue;
    add_field_option(command, o, *f);
    add_cli_only_options(command, o, f->name);
  }
}

void add_llamacpp_options(CLI::App& command, EstimateOptions& o) {
  add_engine_options(command, o, "llamacpp");
}

void add_llamacpp_batch_options(CLI::App& command, EstimateOptions& o) {
  add_engine_options(command, o, "llamacpp", {"ctx_size", "parallel"});
}

void add_mlxlm_options(CLI::App& command, EstimateOptions& o, bool with_prompt_tokens) {
  if (with_prompt_tokens) {
    add_engine_options(command, o, "mlx-lm");
  } else {
    add_engine_options(command, o, "mlx-lm", {"prompt_tokens"});
  }
}

void add_mlxlm_options(CLI::App& command, EstimateOptions& o) { add_mlxlm_options(command, o, false); }
void add_mlxlm_run_options(CLI::App& command, EstimateOptions& o) { add_mlxlm_options(command, o, true); }

void add_vllm_options(CLI::App& command, EstimateOptions& o) { add_engine_options(command, o, "vllm"); }

void add_other_engine_options(CLI::App& command, EstimateOptions& o) {
  // The engines above pick their flags per command; every other one's
  // flags go on each command that adds this group.
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    const std::string_view name = engine->name();
    if (name == "llamacpp" || name == "mlx-lm" || name == "vllm") continue;
    add_engine_options(command, o, name);
  }
}

void add_request_options(CLI::App& command, EstimateOptions& o) {
  for (const RequestField* f : engine_request_fields("")) {
    if (listed(kRequestFields, f->name)) add_field_option(command, o, *f);
  }
}

void add_parallel_options(CLI::App& command, EstimateOptions& o) {
  for (const RequestField* f : engine_request_fields("")) {
    if (listed(kParallelFields, f->name)) add_field_option(command, o, *f);
  }
}

void add_model_options(CLI::App& command, EstimateOptions& o) {
  for (const RequestField* f : engine_request_fields("")) {
    if (!listed(kRequestFields, f->name) && !listed(kParallelFields, f->name)) {
      add_field_option(command, o, *f);
    }
  }
  CLI::Option* engine = command.get_option("--engine");
  engine->description(engine_option_help(engine->get_description()));
  command.add_flag("--json", o.json, "print one JSON object on stdout");
  command.add_option("--revision", o.revision,
                     "Hugging Face name: the branch, tag or commit (default main, or the name's @)");
  command.add_option("--file", o.file, "Hugging Face name: a file inside the repo (a .gguf)");
  command.add_option("--token", o.token,
                     "Hugging Face token (default HF_TOKEN, else the HF CLI's token file)");
  command.add_option("--timeout", o.timeout_seconds,
                     "seconds each request to the Hub may take (default 30)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{86400}));
  command.add_flag("--offline", o.offline,
                   "read only local paths and caches, never the Hub (as HF_HUB_OFFLINE=1)");
}

CLI::App* add_estimating_command(CLI::App& parent, const std::string& name,
                                 const std::string& description, EstimateOptions& o,
                                 std::initializer_list<OptionGroup> groups) {
  CLI::App* command = parent.add_subcommand(name, description);
  add_model_options(*command, o);
  for (OptionGroup add : groups) add(*command, o);
  return command;
}

LocalRequestContext request_context(const EstimateOptions& o) {
  LocalRequestContext context(*make_process_environment());
  ModelNameOptions& names = context.model_names();
  if (!o.token.empty()) names.hub.token = o.token;
  if (o.timeout_seconds) names.hub.timeout_ms = *o.timeout_seconds * 1000;  // <= 86,400,000
  names.revision = o.revision;
  names.file = o.file;
  if (o.offline) names.hf_cache.offline = true;
#ifdef _WIN32
  const bool terminal = _isatty(_fileno(stderr));
#else
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
#endif
  if (terminal) {
    names.progress = [](size_t done, size_t total) {
      std::fprintf(stderr, "\rmemfit: reading headers: %zu/%zu shards%s", done, total,
                   done == total ? "\n" : "");
      std::fflush(stderr);
    };
  }
  return context;
}

void keep_command_line_order(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    // --lora-scaled FILE SCALE stores into a vector each occurrence would
    // replace; several models refuse it (options_per_model).
    if (option->get_type_size_max() > 1) continue;
    option->trigger_on_parse();
  }
}

namespace {

using GivenField = std::pair<const RequestField*, std::string>;

// The texts of one place (before the first -m, or after one -m): kUsage
// naming a field that is no list given twice.
Status given_once(std::span<const GivenField> texts) {
  for (size_t i = 0; i < texts.size(); ++i) {
    const RequestField* f = texts[i].first;
    if (f->type == FieldType::kList) continue;
    for (size_t j = 0; j < i; ++j) {
      if (texts[j].first == f) return Error::usage(f->name, "is given twice");
    }
  }
  return Status::Ok();
}

// One model's options: `all`'s options that are no field, then the shared
// texts its own do not replace, then its own, each kept as its option does.
EstimateOptions one_model(const EstimateOptions& all, std::span<const GivenField> shared,
                          std::span<const GivenField> own) {
  EstimateOptions o;
  o.json = all.json;
  o.token = all.token;
  o.revision = all.revision;
  o.file = all.file;
  o.timeout_seconds = all.timeout_seconds;
  o.offline = all.offline;
  o.ctx_size_draft = all.ctx_size_draft;
  auto keep = [&o](const GivenField& g) {
    o.given.push_back(g);
    keep_in_step(o, *g.first, g.second);
  };
  for (const GivenField& g : shared) {
    const bool replaced = std::any_of(own.begin(), own.end(),
                                      [&g](const GivenField& mine) { return mine.first == g.first; });
    if (!replaced) keep(g);
  }
  for (const GivenField& g : own) keep(g);
  return o;
}

}  // namespace

Result<std::vector<EstimateOptions>> options_per_model(const EstimateOptions& all) {
  // Where each model's texts begin: at its -m.
  std::vector<size_t> starts;
  for (size_t i = 0; i < all.given.size(); ++i) {
    if (all.given[i].first->name == "model") starts.push_back(i);
  }
  if (starts.size() <= 1) {
    if (Status once = given_once(all.given); !once) return once.error();
    return std::vector<EstimateOptions>{all};
  }
  if (!all.lora_scaled.empty()) {
    return Error::usage("lora_scaled", "takes one model; with several give each its --lora after its -m");
  }
  const std::span<const GivenField> given(all.given);
  const std::span<const GivenField> shared = given.first(starts.front());
  if (Status once = given_once(shared); !once) return once.error();
  std::vector<EstimateOptions> models;
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t end = k + 1 < starts.size() ? starts[k + 1] : given.size();
    const std::span<const GivenField> own = given.subspan(starts[k], end - starts[k]);
    if (Status once = given_once(own); !once) return once.error();
    models.push_back(one_model(all, shared, own));
  }
  return models;
}

Result<EstimateRequest> to_request(const EstimateOptions& o) {
  EstimateRequest r;
  // Table order: the engine before the cache types read for it.
  for (const RequestField* f : request_fields()) {
    for (const auto& [row, text] : o.given) {
      if (row != f) continue;
      if (Status set = apply_request_field(*f, r, text); !set) return set.error();
    }
  }
  // What the commands set themselves wins over the texts.
  r.model = o.model;
  if (o.max_tokens_given) r.max_tokens = o.max_tokens;
  r.batch = o.batch;
  r.llamacpp.ctx_size = o.ctx_size;
  r.mlxlm.prompt_tokens = o.prompt_tokens;
  for (const auto& [file, scale] : o.lora_scaled) {
    // llama-server reads the scale with std::stof: a number it must be.
    if (!parse_double(scale)) {
      return Error::usage("lora_scaled", fmt::format("takes FILE SCALE, a number; got {}", quote_untrusted(scale)));
    }
    r.llamacpp.lora.push_back(file);
  }
  if (o.ctx_size_draft) {
    return Error::usage("ctx_size_draft", "is not a flag of the pinned llama.cpp (v0.4.0): the draft's "
                                          "context is the main one's, -c");
  }
  return r;
}

Result<PreparedRequest> prepare_estimate(const EstimateOptions& o,
                                         const PrepareOptions& prepare_options) {
  Result<EstimateRequest> request = to_request(o);
  if (!request) return request.error();
  LocalRequestContext context = request_context(o);
  return prepare(*request, context, prepare_options);
}

Result<EstimateRun> run_estimate(const EstimateOptions& o) {
  Result<EstimateRequest> request = to_request(o);
  if (!request) return request.error();
  LocalRequestContext context = request_context(o);
  return run(*request, context);
}

int report_error(const Error& error, std::string_view command) {
  std::string line = "memfit: ";
  if (!command.empty()) line += std::string(command) + ": ";
  if (error.kind() == ErrorKind::kUsage && !error.field().empty()) {
    const RequestField* field = find_request_field(error.field());
    line += (field != nullptr ? field_flag(*field) : flag_name(error.field())) + ": " +
            with_flag_names(error.detail());
  } else if (error.kind() == ErrorKind::kUsage) {
    line += with_flag_names(error.message());
  } else {
    line += error.message();
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  return error.kind() == ErrorKind::kUsage ? kExitUsage : kExitError;
}

nlohmann::ordered_json warnings_json(const std::vector<Warning>& warnings) {
  nlohmann::ordered_json texts = nlohmann::ordered_json::array();
  for (const Warning& w : warnings) texts.push_back(w.text);
  return texts;
}

void print_warnings(const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) {
    std::fprintf(stderr, w.kind == WarningKind::kAvailableNow ? "%s\n" : "memfit: warning: %s\n",
                 w.text.c_str());
  }
}

}  // namespace memfit::cli
