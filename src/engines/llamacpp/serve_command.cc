// The llamacpp profile's preflight serve hook (engine.h): llama-server's
// slots, the context and slots on llama-server's terms
// (apply_llama_server_rules), priced by the llama.cpp profile.
//   options: ctx_size (the total context; 0: the training context per
//   slot), n_parallel (the slots; not given: the server's auto), force.
#include "engines/llamacpp/commands.h"

#include <fmt/format.h>

#include "engines/shared/command_answer.h"
#include "memfit/llama_server.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

std::string serve_text(const LlamaCppEstimate& e, const std::vector<std::string>& flags) {
  std::string line;
  for (const std::string& f : flags) line += " " + f;
  return fmt::format("preflight serve: {} slot{} of {} cells ({})\nllama-server flags:{}\n",
                     e.context.n_seq, e.context.n_seq == 1 ? "" : "s", e.context.n_ctx_seq,
                     e.settings.kv_unified ? "one unified cache" : "a cache each", line);
}

}  // namespace

std::string_view first_mlxcel_server_option(const nlohmann::json& options) {
  for (std::string_view key : {"max_batch_size", "no_batch", "kv_cache_budget", "kv_block_size"}) {
    auto given = options.find(std::string(key));
    if (given != options.end() && !given->is_null()) return key;
  }
  return "";
}

Result<CommandAnswer> LlamaCppCommands::preflight_serve(const CommandQuery& query,
                                                        PreparedRequest prepared) const {
  if (std::string_view mlxcel = first_mlxcel_server_option(query.options); !mlxcel.empty()) {
    return Error::usage(mlxcel, "is an mlxcel server setting; llama-server takes --ctx-size, "
                                "--parallel, --batch-size, --ubatch-size, --cache-type-k/-v, "
                                "--flash-attn, --swa-full and --kv-unified");
  }
  request::Fields options(query.options);
  Result<std::optional<uint64_t>> ctx_size = options.count("ctx_size", 0);
  if (!ctx_size) return ctx_size.error();
  Result<std::optional<uint64_t>> n_parallel = options.count("n_parallel", 0);
  if (!n_parallel) return n_parallel.error();
  Result<bool> force = forced(query);
  if (!force) return force.error();
  LlamaCppSettings& s = prepared.llamacpp_settings;
  s.ctx_size = ctx_size->value_or(0);
  if (*n_parallel) s.parallel = **n_parallel;
  if (Status rules = apply_llama_server_rules(prepared.model->spec, n_parallel->has_value(), s);
      !rules) {
    return rules.error().within(quote_untrusted(query.request.model));
  }
  Result<EstimateRun> run = run_prepared(query.request, std::move(prepared));
  if (!run) return run.error();
  const LlamaCppEstimate& e = *run->llamacpp;
  const std::vector<std::string> flags = llama_server_flags(run->model->spec, e.settings);
  nlohmann::ordered_json serve = {{"active_slots", e.context.n_seq},
                                  {"effective_context", e.context.n_ctx_seq},
                                  {"kv_unified", e.settings.kv_unified},
                                  {"flags", flags}};
  return preflight_serve_answer(*run, *force, std::move(serve), serve_text(e, flags));
}

}  // namespace memfit::engines
