// Design note: the vendor headers are not used (no build dependency); the
// prototypes below copy their ABI. Every pointer is taken with dlsym and
// checked before use, so a partial or fake library costs a warning, not a
// crash. Device counts are capped: a library reporting absurd counts is
// not believed.
#include "host/gpu_probe.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "host/host_os.h"
#include "host/shared_library.h"

namespace memfit::host {
namespace {

constexpr unsigned kMaxDevices = 64;
constexpr size_t kNameBufferBytes = 256;  // NVML asks for 96, ROCm SMI for ~64

// --- NVML (nvml.h) ---------------------------------------------------------
using NvmlReturn = int;  // nvmlReturn_t; NVML_SUCCESS = 0
struct NvmlDevice;       // opaque nvmlDevice_st
struct NvmlMemory {      // nvmlMemory_t (v1): bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
using NvmlInit = NvmlReturn (*)();
using NvmlDeviceGetCount = NvmlReturn (*)(unsigned int* count);
using NvmlDeviceGetHandleByIndex = NvmlReturn (*)(unsigned int index, NvmlDevice** device);
using NvmlDeviceGetName = NvmlReturn (*)(NvmlDevice* device, char* name, unsigned int length);
using NvmlDeviceGetMemoryInfo = NvmlReturn (*)(NvmlDevice* device, NvmlMemory* memory);
using NvmlShutdown = NvmlReturn (*)();
using NvmlErrorString = const char* (*)(NvmlReturn result);

// --- ROCm SMI (rocm_smi.h) -------------------------------------------------
using RsmiStatus = int;              // rsmi_status_t; RSMI_STATUS_SUCCESS = 0
constexpr int kRsmiMemTypeVram = 0;  // rsmi_memory_type_t RSMI_MEM_TYPE_VRAM
using RsmiInit = RsmiStatus (*)(uint64_t init_flags);
using RsmiNumMonitorDevices = RsmiStatus (*)(uint32_t* count);
using RsmiDevNameGet = RsmiStatus (*)(uint32_t index, char* name, size_t length);
using RsmiDevMemoryGet = RsmiStatus (*)(uint32_t index, int memory_type, uint64_t* bytes);
using RsmiShutDown = RsmiStatus (*)();

template <typename Function>
Function find(SharedLibrary& library, const char* name) {
  return reinterpret_cast<Function>(library.symbol(name));
}

// The first of `names` that loads, or nullptr. A failure to load is
// reported only for an explicitly named library.
std::unique_ptr<SharedLibrary> load_first(const std::string& explicit_path,
                                          const std::vector<std::string>& names, const char* what,
                                          std::vector<std::string>& warnings) {
  if (!explicit_path.empty()) {
    Result<std::unique_ptr<SharedLibrary>> library = load_shared_library(explicit_path);
    if (!library.ok()) {
      warnings.push_back(std::string(what) + ": " + library.error().message());
      return nullptr;
    }
    return std::move(library).value();
  }
  for (const std::string& name : names) {
    Result<std::unique_ptr<SharedLibrary>> library = load_shared_library(name);
    if (library.ok()) return std::move(library).value();
  }
  return nullptr;
}

std::string terminated(const std::array<char, kNameBufferBytes>& buffer) {
  const auto end = std::find(buffer.begin(), buffer.end(), '\0');
  return std::string(buffer.begin(), end);
}

}  // namespace

std::vector<GpuMemory> probe_nvidia_gpus(const std::string& library_path,
                                         std::vector<std::string>& warnings) {
  std::vector<GpuMemory> gpus;
  std::unique_ptr<SharedLibrary> library =
      load_first(library_path, default_nvml_library_names(), "NVML", warnings);
  if (!library) return gpus;

  auto init = find<NvmlInit>(*library, "nvmlInit_v2");
  if (init == nullptr) init = find<NvmlInit>(*library, "nvmlInit");
  auto get_count = find<NvmlDeviceGetCount>(*library, "nvmlDeviceGetCount_v2");
  if (get_count == nullptr) get_count = find<NvmlDeviceGetCount>(*library, "nvmlDeviceGetCount");
  auto get_handle = find<NvmlDeviceGetHandleByIndex>(*library, "nvmlDeviceGetHandleByIndex_v2");
  if (get_handle == nullptr) {
    get_handle = find<NvmlDeviceGetHandleByIndex>(*library, "nvmlDeviceGetHandleByIndex");
  }
  const auto get_name = find<NvmlDeviceGetName>(*library, "nvmlDeviceGetName");
  const auto get_memory = find<NvmlDeviceGetMemoryInfo>(*library, "nvmlDeviceGetMemoryInfo");
  const auto shutdown = find<NvmlShutdown>(*library, "nvmlShutdown");
  const auto error_string = find<NvmlErrorString>(*library, "nvmlErrorString");
  // Name, shutdown and error strings are optional: a device can be sized
  // without them.
  if (init == nullptr || get_count == nullptr || get_handle == nullptr || get_memory == nullptr) {
    warnings.push_back("NVML: the library lacks the functions memfit needs; no NVIDIA GPUs listed");
    return gpus;
  }
  const auto describe = [&](const char* call, NvmlReturn result) {
    const char* text = error_string != nullptr ? error_string(result) : nullptr;
    return std::string("NVML: ") + call + " returned " + std::to_string(result) +
           (text != nullptr ? std::string(" (") + text + ")" : std::string());
  };

  if (NvmlReturn result = init(); result != 0) {
    warnings.push_back(describe("nvmlInit", result) + "; no NVIDIA GPUs listed");
    return gpus;
  }
  unsigned int count = 0;
  if (NvmlReturn result = get_count(&count); result != 0) {
    warnings.push_back(describe("nvmlDeviceGetCount", result));
    count = 0;
  }
  if (count > kMaxDevices) {
    warnings.push_back("NVML: reports " + std::to_string(count) + " devices; only the first " +
                       std::to_string(kMaxDevices) + " are listed");
    count = kMaxDevices;
  }
  for (unsigned int i = 0; i < count; ++i) {
    NvmlDevice* device = nullptr;
    if (NvmlReturn result = get_handle(i, &device); result != 0) {
      warnings.push_back(describe("nvmlDeviceGetHandleByIndex", result) + " for device " +
                         std::to_string(i));
      continue;
    }
    NvmlMemory memory{};
    if (NvmlReturn result = get_memory(device, &memory); result != 0) {
      warnings.push_back(describe("nvmlDeviceGetMemoryInfo", result) + " for device " +
                         std::to_string(i));
      continue;
    }
    GpuMemory gpu;
    gpu.index = static_cast<int>(i);
    gpu.vendor = GpuVendor::kNvidia;
    gpu.total_bytes = memory.total;
    gpu.free_bytes = memory.free;
    std::array<char, kNameBufferBytes> name{};
    if (get_name != nullptr && get_name(device, name.data(), kNameBufferBytes - 1) == 0) {
      gpu.name = terminated(name);
    }
    gpus.push_back(std::move(gpu));
  }
  if (NvmlReturn result = shutdown != nullptr ? shutdown() : 0; result != 0) {
    warnings.push_back(describe("nvmlShutdown", result));
  }
  return gpus;
}

std::vector<GpuMemory> probe_amd_gpus(const std::string& library_path,
                                      std::vector<std::string>& warnings) {
  std::vector<GpuMemory> gpus;
  std::unique_ptr<SharedLibrary> library =
      load_first(library_path, default_rocm_smi_library_names(), "ROCm SMI", warnings);
  if (!library) return gpus;

  const auto init = find<RsmiInit>(*library, "rsmi_init");
  const auto get_count = find<RsmiNumMonitorDevices>(*library, "rsmi_num_monitor_devices");
  const auto get_name = find<RsmiDevNameGet>(*library, "rsmi_dev_name_get");
  const auto get_total = find<RsmiDevMemoryGet>(*library, "rsmi_dev_memory_total_get");
  const auto get_used = find<RsmiDevMemoryGet>(*library, "rsmi_dev_memory_usage_get");
  const auto shutdown = find<RsmiShutDown>(*library, "rsmi_shut_down");
  if (init == nullptr || get_count == nullptr || get_total == nullptr || get_used == nullptr) {
    warnings.push_back(
        "ROCm SMI: the library lacks the functions memfit needs; no AMD GPUs listed");
    return gpus;
  }
  const auto describe = [](const char* call, RsmiStatus status) {
    return std::string("ROCm SMI: ") + call + " returned " + std::to_string(status);
  };

  if (RsmiStatus status = init(0); status != 0) {
    warnings.push_back(describe("rsmi_init", status) + "; no AMD GPUs listed");
    return gpus;
  }
  uint32_t count = 0;
  if (RsmiStatus status = get_count(&count); status != 0) {
    warnings.push_back(describe("rsmi_num_monitor_devices", status));
    count = 0;
  }
  if (count > kMaxDevices) {
    warnings.push_back("ROCm SMI: reports " + std::to_string(count) + " devices; only the first " +
                       std::to_string(kMaxDevices) + " are listed");
    count = kMaxDevices;
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t total = 0;
    uint64_t used = 0;
    if (RsmiStatus status = get_total(i, kRsmiMemTypeVram, &total); status != 0) {
      warnings.push_back(describe("rsmi_dev_memory_total_get", status) + " for device " +
                         std::to_string(i));
      continue;
    }
    if (RsmiStatus status = get_used(i, kRsmiMemTypeVram, &used); status != 0) {
      warnings.push_back(describe("rsmi_dev_memory_usage_get", status) + " for device " +
                         std::to_string(i));
      continue;
    }
    GpuMemory gpu;
    gpu.index = static_cast<int>(i);
    gpu.vendor = GpuVendor::kAmd;
    gpu.total_bytes = total;
    gpu.free_bytes = used < total ? total - used : 0;
    std::array<char, kNameBufferBytes> name{};
    if (get_name != nullptr && get_name(i, name.data(), kNameBufferBytes - 1) == 0) {
      gpu.name = terminated(name);
    }
    gpus.push_back(std::move(gpu));
  }
  if (RsmiStatus status = shutdown != nullptr ? shutdown() : 0; status != 0) {
    warnings.push_back(describe("rsmi_shut_down", status));
  }
  return gpus;
}

}  // namespace memfit::host
