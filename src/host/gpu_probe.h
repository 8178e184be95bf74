// Discrete GPUs' memory, through the vendors' management libraries loaded
// at run time: NVML for NVIDIA, ROCm SMI for AMD.
//
// Only the few C entry points memfit calls are declared here (gpu_probe.cc),
// with the vendors' ABI: NVML and ROCm SMI return 0 on success.
#ifndef MEMFIT_SRC_HOST_GPU_PROBE_H_
#define MEMFIT_SRC_HOST_GPU_PROBE_H_

#include <string>
#include <vector>

#include "memfit/host_memory.h"

namespace memfit::host {

// Each probe loads `library` when it is non-empty, else the first of the
// default names (host_os.h) that loads. A library that cannot be loaded is
// no GPUs: silently for the default names, with a warning for a named one
// (someone asked for it). Once loaded, a failing call is a warning; a
// device whose memory cannot be read is left out. The library is
// initialised, queried, shut down and unloaded within the call. The name
// and shutdown entry points are optional (a fake or partial library still
// sizes its devices); the others are required.
//
// NVIDIA: nvmlInit_v2 (nvmlInit on old drivers), nvmlDeviceGetCount_v2,
// nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName, nvmlDeviceGetMemoryInfo
// (total and free in bytes), nvmlShutdown. index = NVML's index.
std::vector<GpuMemory> probe_nvidia_gpus(const std::string& library,
                                         std::vector<std::string>& warnings);

// AMD: rsmi_init(0), rsmi_num_monitor_devices, rsmi_dev_name_get,
// rsmi_dev_memory_total_get and rsmi_dev_memory_usage_get for VRAM
// (free = total - used), rsmi_shut_down. index = ROCm SMI's index.
std::vector<GpuMemory> probe_amd_gpus(const std::string& library,
                                      std::vector<std::string>& warnings);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_GPU_PROBE_H_
