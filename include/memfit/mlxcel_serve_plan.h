// Server preflight: how a server configuration divides its context among
// slots, and the paged KV budget and prompt cache it can afford.
//
//   active_slots      = max_batch_size if given, else n_parallel; 1 with no_batch
//   effective_context = floor(ctx_size / active_slots); ctx_size 0 means 8192 per slot
//   auto KV budget    = floor((budget - activation - in-flight) / headroom_factor) - weights
//   KV blocks         = floor((kv budget - per-slot decode workspace) / block bytes),
//                       block bytes = kv_block_size x KV bytes per token (all KV layers)
//   prompt cache      = min(budget - total, the KV cache of every slot's full context),
//                       0 when the estimate does not fit
#ifndef MEMFIT_MLXCEL_SERVE_PLAN_H_
#define MEMFIT_MLXCEL_SERVE_PLAN_H_

#include <cstdint>
#include <optional>

#include "memfit/mlxcel.h"
#include "memfit/result.h"
#include "memfit/mlxcel_settings.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Slots shorter than this are refused: a server that cannot hold a
// modest prompt per slot is a misconfiguration.
inline constexpr uint64_t kMinSlotContextTokens = 512;
inline constexpr uint64_t kDefaultSlotContextTokens = 8192;

struct MlxcelServeOptions {
  uint64_t ctx_size = 0;
  uint64_t n_parallel = 4;
  std::optional<uint64_t> max_batch_size;
  bool no_batch = false;
  enum class KvBudget { kAuto, kNone, kBytes };
  KvBudget kv_budget = KvBudget::kAuto;
  uint64_t kv_budget_bytes = 0;  // kBytes only
  uint64_t kv_block_size = 32;   // tokens per paged block
};

struct MlxcelServeSlots {
  uint64_t active_slots = 1;
  uint64_t effective_context = kDefaultSlotContextTokens;
};

// Fails on zero slots, a zero block size, or a slot under kMinSlotContextTokens.
Result<MlxcelServeSlots> mlxcel_serve_slots(const MlxcelServeOptions& options);

struct MlxcelServePlan {
  MlxcelServeSlots slots;
  std::optional<uint64_t> kv_cache_budget_bytes;  // nullopt with --kv-cache-budget none
  uint64_t kv_block_size = 32;
  std::optional<uint64_t> kv_blocks;              // nullopt when no budget or no per-token KV
  std::optional<uint64_t> per_slot_overhead_bytes;
  uint64_t prompt_cache_capacity_bytes = 0;
};

// `estimate` is the estimate at slots.effective_context x slots.active_slots.
MlxcelServePlan plan_mlxcel_serve(const MlxcelServeOptions& options, const MlxcelServeSlots& slots, const Model& model,
                                  const MlxcelEstimate& estimate, const MlxcelSettings& settings);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXCEL_SERVE_PLAN_H_
