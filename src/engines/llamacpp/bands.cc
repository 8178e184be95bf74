// The corpus's bands for the llama.cpp estimate (llamacpp/parts.h:
// add_bands; docs/validation-logs.md, "Error bands"). The modelled figures
// are the model when its bytes are not a verified header's and the compute
// buffers when not replayed; the backend is the GPUs' (CPU without). Under
// --confidence each device's total grows by ceil(its model bytes x the
// model margin) + ceil(its compute bytes x the compute margin), so a split
// run's devices are judged with their own share.
#include <string_view>

#include "bands/error_bands.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

// check-log's backend names, from the first GPU's device ("cuda:0").
std::string_view backend_of(const LlamaCppPlacementSettings& placement) {
  if (placement.gpus.empty()) return "CPU";
  const std::string_view device = placement.gpus.front().device;
  if (device.starts_with("cuda")) return "CUDA";
  if (device.starts_with("rocm")) return "ROCm";
  if (device.starts_with("metal")) return "Metal";
  if (device.starts_with("vulkan")) return "Vulkan";
  return "GPU";
}

uint64_t device_bytes(const LlamaCppDeviceUsage& d, std::string_view figure) {
  return figure == "model" ? d.model_bytes : d.compute_bytes;
}

}  // namespace

Status add_bands(LlamaCppEstimate& e) {
  std::vector<ModelledFigure> figures;
  if (!e.model_bytes_exact) figures.push_back({"model", e.model_bytes});
  if (!e.compute_replayed) figures.push_back({"compute", e.compute_bytes});
  Result<ReportBands> bands =
      report_bands("llamacpp", backend_of(e.settings.placement), figures, e.settings.confidence);
  if (!bands) return bands.error();
  e.bands = std::move(*bands);
  if (e.bands.margin_bytes == 0) return Status::Ok();
  // Each device's share, so that the figures' and the total's margins are
  // the sums of the devices' (the whole's ceil may differ by a byte).
  CheckedBytes margin = 0;
  for (FigureBand& band : e.bands.figures) {
    if (!band.margin) continue;
    CheckedBytes figure_margin = 0;
    for (LlamaCppDeviceUsage& d : e.placement.devices) {
      const uint64_t added = margin_bytes_of(device_bytes(d, band.figure), *band.margin);
      d.confidence_bytes = (CheckedBytes(d.confidence_bytes) + added).saturated();
      d.total_bytes = (CheckedBytes(d.total_bytes) + added).saturated();
      figure_margin += added;
    }
    band.margin_bytes = figure_margin.saturated();
    margin += band.margin_bytes;
  }
  e.bands.margin_bytes = margin.saturated();
  const CheckedBytes total = CheckedBytes(e.total_bytes) + e.bands.margin_bytes;
  if (!total.value()) return Error::overflow("llama.cpp total overflows 64 bits");
  e.total_bytes = *total.value();
  refit_devices(e);
  return Status::Ok();
}

}  // namespace memfit::llamacpp
