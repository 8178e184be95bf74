// The mlxcel profile's preflight serve hook (engine.h): the MLX server's
// slots from n_parallel / max_batch_size / no_batch, each estimated at its
// share of the context, and the paged KV plan (mlxcel_serve_plan.h).
//   options: ctx_size, n_parallel, max_batch_size, no_batch,
//            kv_cache_budget, kv_block_size (mlxcel_serve_options), force
#include "engines/mlxcel/commands.h"
#include "engines/shared/command_answer.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

// kv_cache_budget: "auto", "none" or a size.
Status read_kv_budget(request::Fields& options, MlxcelServeOptions& serve) {
  Result<std::optional<std::string>> text = options.string("kv_cache_budget");
  if (!text) return text.error();
  if (!*text || **text == "auto") {
    serve.kv_budget = MlxcelServeOptions::KvBudget::kAuto;
  } else if (**text == "none") {
    serve.kv_budget = MlxcelServeOptions::KvBudget::kNone;
  } else {
    Result<std::optional<uint64_t>> bytes = parse_memory_size(**text);
    if (!bytes || !bytes->has_value()) {
      return Error::usage("kv_cache_budget", quote_untrusted(**text) +
                                                 ": expected auto, none or a size such as 8GiB");
    }
    serve.kv_budget = MlxcelServeOptions::KvBudget::kBytes;
    serve.kv_budget_bytes = **bytes;
  }
  return Status::Ok();
}

}  // namespace

Result<MlxcelServeOptions> mlxcel_serve_options(const nlohmann::json& json) {
  request::Fields options(json);
  MlxcelServeOptions serve;
  for (auto [key, value] : {std::pair{"ctx_size", &serve.ctx_size},
                            std::pair{"n_parallel", &serve.n_parallel},
                            std::pair{"kv_block_size", &serve.kv_block_size}}) {
    Result<std::optional<uint64_t>> count = options.count(key, 0);
    if (!count) return count.error();
    if (*count) *value = **count;
  }
  Result<std::optional<uint64_t>> max_batch = options.count("max_batch_size", 0);
  if (!max_batch) return max_batch.error();
  serve.max_batch_size = *max_batch;
  Result<std::optional<bool>> no_batch = options.boolean("no_batch");
  if (!no_batch) return no_batch.error();
  serve.no_batch = no_batch->value_or(false);
  if (Status budget = read_kv_budget(options, serve); !budget) return budget.error();
  return serve;
}

Result<CommandAnswer> MlxcelCommands::preflight_serve(const CommandQuery& query,
                                                      PreparedRequest prepared) const {
  Result<MlxcelServeOptions> serve = mlxcel_serve_options(query.options);
  if (!serve) return serve.error();
  Result<bool> force = forced(query);
  if (!force) return force.error();
  Result<MlxcelServeSlots> slots = mlxcel_serve_slots(*serve);
  if (!slots) return slots.error();
  // The context and batch the request would have carried: prepare() only
  // copies them into the inputs.
  EstimateRequest request = query.request;
  request.max_tokens = prepared.inputs.max_tokens = slots->effective_context;
  request.batch = prepared.inputs.batch = slots->active_slots;
  Result<EstimateRun> run = run_prepared(request, std::move(prepared));
  if (!run) return run.error();
  MlxcelServePlan plan = plan_mlxcel_serve(*serve, *slots, *run->model, run->estimate, run->settings);
  return preflight_serve_answer(*run, *force, mlxcel_serve_plan_to_json(plan),
                                render_mlxcel_serve_plan_text(plan));
}

}  // namespace memfit::engines
