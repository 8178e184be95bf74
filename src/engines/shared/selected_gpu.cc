// selected_gpu() (selected_gpu.h).
#include "engines/shared/selected_gpu.h"

namespace memfit {

const GpuMemory* selected_gpu(const EstimateRequest& r, const HostMemoryStatus& host) {
  const GpuMemory* gpu = nullptr;
  for (const GpuMemory& g : host.gpus) {
    const bool selected =
        (r.device.kind == DeviceSelector::Kind::kCuda && g.vendor == GpuVendor::kNvidia) ||
        (r.device.kind == DeviceSelector::Kind::kRocm && g.vendor != GpuVendor::kNvidia);
    if (selected && g.index == r.device.index) gpu = &g;
    if (gpu == nullptr && r.device.kind == DeviceSelector::Kind::kAuto) gpu = &g;
  }
  return gpu;
}

}  // namespace memfit
