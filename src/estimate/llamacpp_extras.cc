// The llama-server extras (llamacpp_extras.h): what each file holds, and
// the lines they add to a llama.cpp estimate's devices.
#include "memfit/llamacpp_extras.h"

#include <fmt/format.h>

#include <charconv>
#include <system_error>

#include "estimate/llamacpp_parts.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"

namespace memfit {

Result<LlamaCppProjector> llamacpp_projector(const GgufHeader& h, const std::string& path) {
  Result<std::string_view> arch = h.get_string("general.architecture");
  if (!arch || *arch != "clip") {
    return Error(fmt::format("mmproj {}: not a projector (general.architecture is {}, not clip)",
                             quote_untrusted(path), arch ? quote_untrusted(*arch) : "absent"),
                 ErrorKind::kInput);
  }
  LlamaCppProjector p;
  p.path = path;
  p.weights_bytes = h.tensor_bytes;
  Result<uint64_t> image = h.get_uint64("clip.vision.image_size");
  Result<uint64_t> patch = h.get_uint64("clip.vision.patch_size");
  Result<uint64_t> embd = h.get_uint64("clip.vision.embedding_length");
  Result<uint64_t> ff = h.get_uint64("clip.vision.feed_forward_length");
  Result<uint64_t> heads = h.get_uint64("clip.vision.attention.head_count");
  if (!image || !patch || !embd || !ff || !heads || *patch == 0) return p;  // no vision geometry
  const uint64_t side = *image / *patch;
  const CheckedBytes n = CheckedBytes(side) * side;
  if (!n.value()) return Error::overflow("mmproj: patches overflow 64 bits");
  const CheckedBytes per_patch = CheckedBytes(*embd) * 2 + *ff;
  const CheckedBytes compute = CheckedBytes(4) * *n.value() * per_patch.saturated();
  const CheckedBytes scores = CheckedBytes(4) * *heads * *n.value() * *n.value();
  if (!per_patch.value() || !compute.value() || !scores.value()) {
    return Error::overflow("mmproj: the compute buffer overflows 64 bits");
  }
  p.compute_bytes = *compute.value();
  p.scores_bytes = *scores.value();
  p.compute_modelled = true;
  return p;
}

Result<int64_t> parse_cache_ram(std::string_view field, std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < -1 || value > kLlamaCppMaxCacheRamMib) {
    return Error::usage(field, fmt::format("takes MiB from -1 (no limit) to {}, 0 for none; got {}",
                                           kLlamaCppMaxCacheRamMib, quote_untrusted(text)));
  }
  return value;
}

namespace llamacpp {

Status add_extras(LlamaCppEstimate& e, const MemoryBudget& budget) {
  const LlamaCppExtrasSettings& x = e.settings.extras;
  const LlamaCppPlacementSettings& s = e.settings.placement;
  e.extras.clear();
  if (x.mmproj) {
    // clip takes the first GPU ggml lists, not --main-gpu.
    const std::string device = x.mmproj_offload && !s.gpus.empty() ? s.gpus.front().device : "cpu";
    e.extras.push_back({"mmproj weights", x.mmproj->path, device, x.mmproj->weights_bytes, true});
    if (x.mmproj->compute_modelled) {
      // clip follows -fa: the scores only without flash attention.
      const uint64_t scores = e.context.flash_attn ? 0 : x.mmproj->scores_bytes;
      const CheckedBytes compute = CheckedBytes(x.mmproj->compute_bytes) + scores;
      if (!compute.value()) return Error::overflow("mmproj: the compute buffer overflows 64 bits");
      e.extras.push_back({"mmproj compute", x.mmproj->path, device, *compute.value(), false});
    }
  }
  // The prompt cache: host vectors, at most the limit (server_prompt_cache
  // evicts before it adds and skips a state over it). No limit: at most
  // n_ctx tokens of state, the context's KV and recurrent state.
  if (x.cache_ram_mib && *x.cache_ram_mib != 0) {
    const bool limited = *x.cache_ram_mib > 0;
    const uint64_t bytes = limited ? static_cast<uint64_t>(*x.cache_ram_mib) << 20
                                   : (CheckedBytes(e.kv_bytes) + e.recurrent_bytes).saturated();
    e.extras.push_back({"prompt cache", "", "cpu", bytes, limited});
  }
  // The context checkpoints: host vectors, N per slot, each one
  // sequence's state that cannot be rolled back.
  if (x.ctx_checkpoints && *x.ctx_checkpoints > 0 && e.checkpoint_bytes > 0) {
    const CheckedBytes bytes = CheckedBytes(*x.ctx_checkpoints) * e.context.n_seq * e.checkpoint_bytes;
    if (!bytes.value()) return Error::overflow("llama-server context checkpoints overflow 64 bits");
    e.extras.push_back({"context checkpoints", "", "cpu", *bytes.value(), false});
  }
  // The draft: common_base_params_to_speculative copies the main
  // parameters and replaces the model, -ngl, -ot, the devices and the
  // cache types with the draft's; its context is estimated by the same
  // rules and placement, one line per category on each device.
  if (x.draft) {
    LlamaCppSettings ds = e.settings;
    ds.extras = {};
    ds.cache_type_k = x.draft_cache_type_k;
    ds.cache_type_v = x.draft_cache_type_v;
    ds.placement.n_gpu_layers = x.draft_n_gpu_layers;
    ds.placement.overrides.clear();
    ds.placement.n_cpu_moe = 0;
    Result<LlamaCppEstimate> d = estimate_llamacpp(*x.draft, ds, budget);
    if (!d) return d.error().within("model_draft " + quote_untrusted(x.draft_path));
    for (const LlamaCppDeviceUsage& u : d->placement.devices) {
      if (u.model_bytes > 0) e.extras.push_back({"draft model", x.draft_path, u.device, u.model_bytes, d->model_bytes_exact});
      if (u.context_bytes > 0) e.extras.push_back({"draft context", x.draft_path, u.device, u.context_bytes, true});
      if (u.compute_bytes > 0) e.extras.push_back({"draft compute", x.draft_path, u.device, u.compute_bytes, false});
    }
  }
  if (e.extras.empty()) return Status::Ok();

  CheckedBytes sum = 0;
  for (const LlamaCppExtraLine& line : e.extras) {
    sum += line.bytes;
    for (LlamaCppDeviceUsage& d : e.placement.devices) {
      if (d.device != line.device) continue;
      const CheckedBytes extras = CheckedBytes(d.extras_bytes) + line.bytes;
      const CheckedBytes total = CheckedBytes(d.total_bytes) + line.bytes;
      if (!extras.value() || !total.value()) return Error::overflow("llama.cpp device total overflows 64 bits");
      d.extras_bytes = *extras.value();
      d.total_bytes = *total.value();
    }
  }
  const CheckedBytes total = CheckedBytes(e.total_bytes) + sum.saturated();
  if (!sum.value() || !total.value()) return Error::overflow("llama.cpp total overflows 64 bits");
  e.extras_bytes = *sum.value();
  e.total_bytes = *total.value();

  // Every device's fit again, by place()'s rules: without GPUs the host
  // against the budget; unified memory one pool.
  uint64_t pooled = 0;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) pooled = (CheckedBytes(pooled) + d.total_bytes).saturated();
  e.placement.fits = true;
  for (LlamaCppDeviceUsage& d : e.placement.devices) {
    const uint64_t usable = s.gpus.empty() ? e.budget_bytes : d.usable_bytes;
    const uint64_t need = s.unified ? pooled : d.total_bytes;
    d.fits = need <= usable;
    d.short_bytes = d.fits ? 0 : need - usable;
    e.placement.fits = e.placement.fits && d.fits;
  }
  e.fits = e.placement.fits;
  return Status::Ok();
}

}  // namespace llamacpp
}  // namespace memfit
