// estimate_mlxcel(): the mlxcel profile, term by term (docs/engine-mlxcel.md). All
// byte figures are uint64_t; multipliers are fixed-point millionths and
// products with them are taken in 128 bits and rounded up, so a fractional
// byte is never dropped.
#include <fmt/format.h>

#include <algorithm>

#include "engines/shared/fixed_point.h"
#include "memfit/checked_math.h"
#include "engines/mlxcel/decode_workspace.h"
#include "memfit/mlxcel.h"

namespace memfit {
namespace {

Error overflow(std::string_view what) {
  return Error::overflow(fmt::format("{} overflows 64 bits: the request or the config is absurd", what));
}

}  // namespace

Platform build_platform() {
  Platform p;
#if defined(_WIN32)
  p.os = HostOs::kWindows;
#elif defined(__APPLE__)
  p.os = HostOs::kMacos;
  p.backend = Backend::kMetal;
#elif defined(__linux__)
  p.os = HostOs::kLinux;
#else
  p.os = HostOs::kOther;
#endif
  return p;
}

Result<MlxcelEstimate> estimate_mlxcel(const Model& model, const MlxcelInputs& inputs,
                                       const MlxcelSettings& settings, const Platform& platform,
                                       const MemoryBudget& budget) {
  if (inputs.max_tokens == 0) return Error::usage("max_tokens", "must be at least 1");
  if (inputs.batch == 0) return Error::usage("batch", "must be at least 1");
  MlxcelEstimate e;
  e.inputs = inputs;
  e.weights_bytes = model.weights.bytes;

  Result<KvCacheEstimate> kv =
      estimate_kv_cache(model.spec, inputs.max_tokens, inputs.batch, inputs.kv_element);
  if (!kv) return kv.error();
  e.kv = std::move(*kv);
  e.per_slot_overhead_bytes = per_slot_decode_workspace_bytes(model.spec, inputs.batch, platform);

  // Allocator overhead: (factor - 1) x (weights + kv); off for factor <= 1.
  e.headroom_factor_micros = settings.headroom_factor_micros;
  CheckedBytes weights_and_kv = CheckedBytes(e.weights_bytes) + e.kv.total_bytes;
  if (!weights_and_kv.value()) return overflow("weights + KV cache");
  if (settings.headroom_factor_micros > kMicrosPerUnit) {
    auto overhead = scale_micros_rounding_up(*weights_and_kv.value(),
                                 settings.headroom_factor_micros - kMicrosPerUnit);
    if (!overhead) return overflow("allocator overhead");
    e.allocator_overhead_bytes = *overhead;
  }

  // Activation reserve: mult x batch x min(ctx, chunk) x (hidden + intermediate) x 2
  // + last-token logits batch x vocab x 2. ctx is the requested context,
  // not rounded; chunk 0 means no chunking.
  const ModelGeometry& g = model.spec.geometry;
  uint64_t prefill_tokens = settings.prefill_chunk_tokens == 0
                                ? inputs.max_tokens
                                : std::min(inputs.max_tokens, settings.prefill_chunk_tokens);
  CheckedBytes activation_base =
      CheckedBytes(inputs.batch) * prefill_tokens * (CheckedBytes(g.hidden) + g.intermediate) * 2;
  CheckedBytes logits = CheckedBytes(inputs.batch) * g.vocab * 2;
  if (!activation_base.value() || !logits.value()) return overflow("activation reserve");
  auto activation = scale_micros_rounding_up(*activation_base.value(), settings.activation_mult_micros);
  if (!activation) return overflow("activation reserve");
  CheckedBytes activation_total = CheckedBytes(*activation) + logits;
  if (!activation_total.value()) return overflow("activation reserve");
  e.activation_bytes = *activation_total.value();

  if (platform.backend == Backend::kRocm) {
    CheckedBytes inflight = CheckedBytes(settings.rocm_inflight_mib) * (1ull << 20);
    if (!inflight.value()) return overflow("backend in-flight reserve");
    e.backend_inflight_bytes = *inflight.value();
  }

  CheckedBytes headroom =
      CheckedBytes(e.allocator_overhead_bytes) + e.activation_bytes + e.backend_inflight_bytes;
  CheckedBytes total = weights_and_kv + headroom;
  if (!total.value()) return overflow("total");
  e.headroom_bytes = *headroom.value();
  e.total_bytes = *total.value();

  // Host shadow (Windows + ROCm): per sequence one f32 logit row and the
  // context's int32 token ids, in host RAM; compared with RAM on its own.
  e.ram_available_bytes = budget.ram_available_bytes;
  if (platform.os == HostOs::kWindows && platform.backend == Backend::kRocm) {
    CheckedBytes shadow =
        CheckedBytes(inputs.batch) * (CheckedBytes(g.vocab) * 4 + CheckedBytes(inputs.max_tokens) * 4);
    if (!shadow.value()) return overflow("host shadow");
    e.host_shadow_bytes = *shadow.value();
    e.host_shadow_fits = e.host_shadow_bytes <= e.ram_available_bytes;
  }

  e.budget_bytes = budget.budget_bytes;
  e.fits = e.total_bytes <= e.budget_bytes && e.host_shadow_fits;
  return e;
}

}  // namespace memfit
