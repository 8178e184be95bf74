// estimate_llamacpp(): the three categories of llama.cpp's memory
// breakdown, model + context + compute, against one budget.
#include <fmt/format.h>

#include <algorithm>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/releases.h"
#include "memfit/checked_math.h"

namespace memfit {

Result<LlamaCppEstimate> estimate_llamacpp(const Model& model, const LlamaCppSettings& settings,
                                           const MemoryBudget& budget) {
  Result<LlamaCppContext> context = resolve_llamacpp_context(model.spec, settings);
  if (!context) return context.error();
  Result<llamacpp::MemoryParts> parts = llamacpp::memory_parts(model.spec, *context, settings);
  if (!parts) return parts.error();
  Result<llamacpp::ComputePhases> phases = llamacpp::compute_phases(model.spec, *context, settings);
  if (!phases) return phases.error();
  uint64_t compute = std::max({phases->output, phases->attention, phases->ffn});
  bool replayed_compute = false;
  if (settings.placement.gpus.empty()) {
    Result<std::optional<uint64_t>> replayed = llamacpp::replayed_compute_bytes(model, *context, settings);
    if (!replayed) return replayed.error();
    if (*replayed) {
      compute = **replayed;
      replayed_compute = true;
    }
  }

  LlamaCppEstimate e;
  e.settings = settings;
  e.context = *context;
  e.mapped_bytes = model.weights.bytes;
  // The repacked copies need the tensor list: a GGUF model's, opened with
  // its tensors. Without it (other formats) they are not modelled.
  e.repack = settings.repack == RepackCpu::kAuto ? RepackCpu::kX86Avx2 : settings.repack;
  e.repack_modelled = e.repack == RepackCpu::kNone ||
                      (model.weights.source == WeightsSource::kGgufHeader && !model.tensors.empty());
  if (e.repack != RepackCpu::kNone && e.repack_modelled) {
    Result<uint64_t> repack = llamacpp_repack_bytes(model.tensors, model.spec.layers.size(),
                                                    llamacpp::repack_kernels(e.repack, settings));
    if (!repack) return repack.error();
    e.repack_bytes = *repack;
  }
  CheckedBytes model_bytes = CheckedBytes(e.mapped_bytes) + e.repack_bytes;
  if (!model_bytes.value()) return Error::overflow("llama.cpp model bytes overflow 64 bits");
  e.model_bytes = *model_bytes.value();
  e.model_bytes_exact = model.weights.verified && model.weights.source != WeightsSource::kFallback &&
                        model.weights.source != WeightsSource::kAnalyticalConfig;
  e.k_bytes = parts->k_bytes;
  e.v_bytes = parts->v_bytes;
  e.kv_bytes = (CheckedBytes(parts->k_bytes) + parts->v_bytes).saturated();
  e.kv_layers = parts->kv_layers;
  e.kv_bytes_per_token = parts->kv_bytes_per_token;
  e.recurrent_bytes = parts->recurrent_bytes;
  e.recurrent_layers = parts->recurrent_layers;
  e.output_bytes = parts->output_bytes;
  e.checkpoint_bytes = parts->seq_partial_bytes;
  e.compute_bytes = compute;
  e.compute_replayed = replayed_compute;
  CheckedBytes context_bytes = CheckedBytes(parts->k_bytes) + parts->v_bytes +
                               parts->recurrent_bytes + parts->output_bytes + parts->input_bytes;
  CheckedBytes total = context_bytes + e.model_bytes + e.compute_bytes;
  if (!total.value()) {
    return Error::overflow("llama.cpp total overflows 64 bits: the request or the config is absurd");
  }
  e.context_bytes = *context_bytes.value();
  e.total_bytes = *total.value();
  e.budget_bytes = budget.budget_bytes;
  e.fits = e.total_bytes <= e.budget_bytes;
  if (Status placed = llamacpp::place(model, *parts, *phases, budget, e); !placed) return placed.error();
  if (Status extras = llamacpp::add_extras(model, e, budget); !extras) return extras.error();
  if (Status bands = llamacpp::add_bands(e); !bands) return bands.error();
  return e;
}

}  // namespace memfit
