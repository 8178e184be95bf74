#include "memfit/mlxcel_serve_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "engines/shared/fixed_point.h"
#include "memfit/checked_math.h"
#include "memfit/kv_cache.h"

namespace memfit {

Result<MlxcelServeSlots> mlxcel_serve_slots(const MlxcelServeOptions& o) {
  MlxcelServeSlots s;
  s.active_slots = o.no_batch ? 1 : o.max_batch_size.value_or(o.n_parallel);
  if (s.active_slots == 0) return Error::usage("slots", "the server needs at least one slot");
  if (o.kv_block_size == 0) return Error::usage("kv_block_size", "must be at least 1");
  if (o.ctx_size == 0) {
    s.effective_context = kDefaultSlotContextTokens;
    return s;
  }
  s.effective_context = o.ctx_size / s.active_slots;
  if (s.effective_context < kMinSlotContextTokens) {
    return Error::usage(
        "ctx_size",
        fmt::format("{} over {} slots leaves {} tokens per slot, under the {} a slot needs; "
                    "raise the context size or lower the slot count",
                    o.ctx_size, s.active_slots, s.effective_context, kMinSlotContextTokens));
  }
  return s;
}

MlxcelServePlan plan_mlxcel_serve(const MlxcelServeOptions& o, const MlxcelServeSlots& slots, const Model& model,
                                  const MlxcelEstimate& e, const MlxcelSettings& settings) {
  MlxcelServePlan plan;
  plan.slots = slots;
  plan.kv_block_size = o.kv_block_size;
  plan.per_slot_overhead_bytes = e.per_slot_overhead_bytes;

  if (o.kv_budget == MlxcelServeOptions::KvBudget::kBytes) {
    plan.kv_cache_budget_bytes = o.kv_budget_bytes;
  } else if (o.kv_budget == MlxcelServeOptions::KvBudget::kAuto) {
    CheckedBytes spendable = CheckedBytes(e.budget_bytes) - e.activation_bytes - e.backend_inflight_bytes;
    uint64_t factor = std::max(settings.headroom_factor_micros, kMicrosPerUnit);
    uint64_t budget = 0;
    if (spendable.value()) {
      const uint64_t scaled = unscale_micros_rounding_down(*spendable.value(), factor);
      budget = scaled > e.weights_bytes ? scaled - e.weights_bytes : 0;
    }
    plan.kv_cache_budget_bytes = budget;
  }

  const uint64_t block_bytes =
      (CheckedBytes(every_layer_kv_bytes_per_token(model.spec, e.inputs.kv_element)) *
       o.kv_block_size)
          .saturated();
  if (plan.kv_cache_budget_bytes && block_bytes > 0) {
    uint64_t workspace = plan.per_slot_overhead_bytes.value_or(0);
    uint64_t usable = *plan.kv_cache_budget_bytes > workspace ? *plan.kv_cache_budget_bytes - workspace : 0;
    plan.kv_blocks = usable / block_bytes;
  }

  if (e.fits) {
    plan.prompt_cache_capacity_bytes = std::min(e.budget_bytes - e.total_bytes, e.kv.total_bytes);
  }
  return plan;
}

}  // namespace memfit
