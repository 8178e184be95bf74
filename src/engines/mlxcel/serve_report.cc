// The mlxcel profile's `preflight serve` plan as JSON and text
// (mlxcel_serve_plan_to_json, render_mlxcel_serve_plan_text; memfit/mlxcel_report.h).
#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<uint64_t>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

nlohmann::ordered_json mlxcel_serve_plan_to_json(const MlxcelServePlan& plan) {
  return Json{{"active_slots", plan.slots.active_slots},
              {"effective_context", plan.slots.effective_context},
              {"kv_cache_budget_bytes", optional_number(plan.kv_cache_budget_bytes)},
              {"kv_block_size", plan.kv_block_size},
              {"kv_blocks", optional_number(plan.kv_blocks)},
              {"per_slot_overhead_bytes", optional_number(plan.per_slot_overhead_bytes)},
              {"prompt_cache_capacity_bytes", plan.prompt_cache_capacity_bytes}};
}

std::string render_mlxcel_serve_plan_text(const MlxcelServePlan& plan) {
  std::string out = fmt::format("\nServe: {} active slots x {} tokens per slot\n",
                                plan.slots.active_slots, plan.slots.effective_context);
  if (plan.kv_cache_budget_bytes) {
    out += fmt::format("  paged KV budget        {} ({} bytes)", format_bytes(*plan.kv_cache_budget_bytes),
                       *plan.kv_cache_budget_bytes);
    if (plan.kv_blocks) {
      out += fmt::format(": {} blocks of {} tokens", *plan.kv_blocks, plan.kv_block_size);
    }
    out += "\n";
  } else {
    out += "  paged KV budget        none\n";
  }
  if (plan.per_slot_overhead_bytes) {
    out += fmt::format("  decode workspace       {} (taken from the KV budget)\n",
                       format_bytes(*plan.per_slot_overhead_bytes));
  }
  out += fmt::format("  prompt cache capacity  {}\n", format_bytes(plan.prompt_cache_capacity_bytes));
  return out;
}

}  // namespace memfit
