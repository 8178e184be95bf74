// The llama-server extras (llamacpp_extras.h): what each file holds, and
// the lines they add to a llama.cpp estimate's devices.
#include "memfit/llamacpp_extras.h"

#include <fmt/format.h>

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
  const CheckedBytes per_patch = CheckedBytes(*heads) * *n.value() + CheckedBytes(*embd) * 2 + *ff;
  const CheckedBytes compute = CheckedBytes(4) * *n.value() * per_patch.saturated();
  if (!per_patch.value() || !compute.value()) {
    return Error::overflow("mmproj: the compute buffer overflows 64 bits");
  }
  p.compute_bytes = *compute.value();
  p.compute_modelled = true;
  return p;
}

namespace llamacpp {

Status add_extras(LlamaCppEstimate& e) {
  const LlamaCppExtrasSettings& x = e.settings.extras;
  const LlamaCppPlacementSettings& s = e.settings.placement;
  e.extras.clear();
  if (x.mmproj) {
    // clip takes the first GPU ggml lists, not --main-gpu.
    const std::string device = x.mmproj_offload && !s.gpus.empty() ? s.gpus.front().device : "cpu";
    e.extras.push_back({"mmproj weights", x.mmproj->path, device, x.mmproj->weights_bytes, true});
    if (x.mmproj->compute_modelled) {
      e.extras.push_back({"mmproj compute", x.mmproj->path, device, x.mmproj->compute_bytes, false});
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
