// Reports of an estimate: the JSON object of `memfit inspect --json` and
// the human-readable table.
//
// JSON fields (raw bytes unless said; see schema/inspect-report.schema.json):
// memfit_version, model, model_type, family, inputs {max_tokens, batch,
// kv_cache_mode, quant}, weights_bytes, weights_source, kv_bytes_per_token
// {fp16, int8, turbo4}, kv_bytes_total, kv_detail, kv_layout [...],
// per_slot_overhead_bytes, activation_bytes, headroom_bytes,
// headroom_factor, allocator_overhead_bytes, backend_inflight_bytes,
// host_shadow_bytes, ram_available_bytes, host_shadow_fits, budget_bytes,
// budget_source, total_bytes, fits, assumptions, warnings.
// Invariant: weights_bytes + kv_bytes_total + headroom_bytes == total_bytes.
#ifndef MEMFIT_MLXCEL_REPORT_H_
#define MEMFIT_MLXCEL_REPORT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/mlxcel.h"
#include "memfit/memory_size.h"
#include "memfit/model.h"
#include "memfit/mlxcel_serve_plan.h"
#include "memfit/version.h"
#include "memfit/visibility.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// `warnings` become the report's "warnings" (their texts, in order).
nlohmann::ordered_json mlxcel_estimate_to_json(const Model& model, const MlxcelEstimate& estimate,
                                               const MemoryBudget& budget,
                                               std::span<const Warning> warnings);

// A table of the breakdown with byte figures in GiB / MiB, the KV groups,
// the detail string and the verdict line "FITS" / "DOES NOT FIT".
std::string render_mlxcel_text(const Model& model, const MlxcelEstimate& estimate,
                               const MemoryBudget& budget);

// The serve preflight's plan: {active_slots, effective_context,
// kv_cache_budget_bytes, kv_block_size, kv_blocks, per_slot_overhead_bytes,
// prompt_cache_capacity_bytes}, and its lines for the text report.
nlohmann::ordered_json mlxcel_serve_plan_to_json(const MlxcelServePlan& plan);
std::string render_mlxcel_serve_plan_text(const MlxcelServePlan& plan);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXCEL_REPORT_H_
