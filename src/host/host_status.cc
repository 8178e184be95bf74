#include "host/host_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "memfit/untrusted_text.h"
#include "host/gpu_probe.h"
#include "memfit/untrusted_text.h"

namespace memfit {

uint64_t CgroupMemory::headroom_bytes() const {
  const uint64_t charged =
      usage_bytes > inactive_file_bytes ? usage_bytes - inactive_file_bytes : 0;
  return limit_bytes > charged ? limit_bytes - charged : 0;
}

const char* gpu_vendor_name(GpuVendor vendor) {
  return vendor == GpuVendor::kNvidia ? "nvidia" : "amd";
}

Result<DeviceSelector> parse_device_selector(const std::string& text) {
  const auto fail = [&] {
    return Error::usage(
        fmt::format("{}: expected auto, cpu, cuda[:N] or rocm[:N]", quote_untrusted(text)));
  };
  DeviceSelector device;
  if (text == "auto") return device;
  if (text == "cpu") {
    device.kind = DeviceSelector::Kind::kCpu;
    return device;
  }
  std::string_view rest = text;
  if (rest.substr(0, 4) == "cuda") {
    device.kind = DeviceSelector::Kind::kCuda;
  } else if (rest.substr(0, 4) == "rocm") {
    device.kind = DeviceSelector::Kind::kRocm;
  } else {
    return fail();
  }
  rest.remove_prefix(4);
  if (rest.empty()) return device;
  if (rest.front() != ':' || rest.size() < 2) return fail();
  rest.remove_prefix(1);
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), device.index);
  if (ec != std::errc() || end != rest.data() + rest.size() || device.index < 0) return fail();
  return device;
}

std::string device_selector_name(const DeviceSelector& device) {
  switch (device.kind) {
    case DeviceSelector::Kind::kAuto:
      return "auto";
    case DeviceSelector::Kind::kCpu:
      return "cpu";
    case DeviceSelector::Kind::kCuda:
      return "cuda:" + std::to_string(device.index);
    case DeviceSelector::Kind::kRocm:
      return "rocm:" + std::to_string(device.index);
  }
  return "auto";
}

HostQueryOptions host_query_options_from_environment(const Environment& env) {
  HostQueryOptions options;
  if (auto sysroot = env.get("MEMFIT_SYSROOT"); sysroot && !sysroot->empty()) {
    options.sysroot = *sysroot;
  }
  options.nvml_library = env.get("MEMFIT_NVML_LIBRARY").value_or("");
  options.rocm_smi_library = env.get("MEMFIT_ROCM_SMI_LIBRARY").value_or("");
  return options;
}

std::string_view to_string(BudgetSource source) {
  switch (source) {
    case BudgetSource::kExplicit:
      return "explicit";
    case BudgetSource::kCgroup:
      return "cgroup";
    case BudgetSource::kMeminfoAvailable:
      return "meminfo_available";
    case BudgetSource::kMeminfoTotal:
      return "meminfo_total";
    case BudgetSource::kUnifiedMemory:
      return "unified_memory";
    case BudgetSource::kWindows:
      return "windows";
    case BudgetSource::kSysconf:
      return "sysconf";
    case BudgetSource::kGpu:
      return "gpu";
    case BudgetSource::kUnavailable:
      return "unavailable";
    case BudgetSource::kDeviceMissing:
      return "device_missing";
    case BudgetSource::kGpuTotalGiven:
      return "gpu_total_given";
  }
  return "unavailable";
}

void apply_explicit_limit(HostMemoryStatus& status, uint64_t limit_bytes) {
  status.budget_bytes = limit_bytes;
  status.budget_source = BudgetSource::kExplicit;
  if (status.device_error) {
    status.warnings.push_back(std::move(*status.device_error));
    status.device_error.reset();
  }
}

MemoryBudget to_memory_budget(const HostMemoryStatus& status) {
  MemoryBudget budget;
  budget.budget_bytes = status.budget_bytes;
  budget.ram_available_bytes = status.ram_available_bytes;
  budget.source = status.budget_source;
  return budget;
}

std::optional<std::string> available_now_warning(const HostMemoryStatus& status,
                                                 uint64_t load_bytes) {
  if (!status.described_by.empty() || status.budget_source == BudgetSource::kGpu ||
      status.budget_source == BudgetSource::kDeviceMissing ||
      status.budget_source == BudgetSource::kUnavailable) {
    return std::nullopt;
  }
  const uint64_t usable = status.ram_available_bytes > status.reserve_bytes
                              ? status.ram_available_bytes - status.reserve_bytes
                              : 0;
  if (load_bytes <= usable) return std::nullopt;
  const auto gib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1ull << 30); };
  return fmt::format(
      "WARNING: memory available now is {:.2f} GiB; less the {:.2f} GiB reserve for the OS that "
      "leaves {:.2f} GiB, and this load (weights + KV cache + activation) needs {:.2f} GiB, so "
      "the OS may compress or swap memory to make room",
      gib(status.ram_available_bytes), gib(status.reserve_bytes), gib(usable), gib(load_bytes));
}

namespace host {
namespace {

std::string gpu_device_name(const GpuMemory& gpu) {
  return (gpu.vendor == GpuVendor::kNvidia ? "cuda:" : "rocm:") + std::to_string(gpu.index);
}

std::string missing_device_message(const DeviceSelector& device,
                                   const std::vector<GpuMemory>& gpus) {
  const GpuVendor vendor =
      device.kind == DeviceSelector::Kind::kCuda ? GpuVendor::kNvidia : GpuVendor::kAmd;
  std::string present;
  for (const GpuMemory& gpu : gpus) {
    if (gpu.vendor != vendor) continue;
    present += (present.empty() ? "" : ", ") + gpu_device_name(gpu);
  }
  const char* library = vendor == GpuVendor::kNvidia ? "NVML" : "ROCm SMI";
  return "device " + device_selector_name(device) + " not found: " +
         (present.empty() ? std::string(library) + " lists no GPU"
                          : library + std::string(" lists ") + present);
}

}  // namespace

HostMemoryStatus compose_host_status(RamReading ram, std::vector<GpuMemory> gpus,
                                     const HostQueryOptions& options) {
  HostMemoryStatus status;
  status.os = std::move(ram.os);
  status.ram_total_bytes = ram.ram_total_bytes;
  status.available_now_bytes = ram.available_now_bytes;
  status.ram_available_bytes = ram.ram_available_bytes;
  status.reserve_bytes = ram.reserve_bytes;
  status.cgroup = std::move(ram.cgroup);
  status.metal_working_set_bytes = ram.metal_working_set_bytes;
  status.warnings = std::move(ram.warnings);
  status.gpus = std::move(gpus);

  // Which device's memory is the budget.
  const GpuMemory* gpu = nullptr;
  bool missing = false;
  const DeviceSelector& device = options.device;
  switch (device.kind) {
    case DeviceSelector::Kind::kAuto:
      if (!status.gpus.empty()) gpu = &status.gpus.front();
      break;
    case DeviceSelector::Kind::kCpu:
      break;
    case DeviceSelector::Kind::kCuda:
    case DeviceSelector::Kind::kRocm: {
      const GpuVendor vendor =
          device.kind == DeviceSelector::Kind::kCuda ? GpuVendor::kNvidia : GpuVendor::kAmd;
      const auto found = std::find_if(
          status.gpus.begin(), status.gpus.end(),
          [&](const GpuMemory& g) { return g.vendor == vendor && g.index == device.index; });
      if (found != status.gpus.end()) {
        gpu = &*found;
      } else {
        missing = true;
      }
      break;
    }
  }

  if (gpu != nullptr) {
    status.device = gpu_device_name(*gpu);
    status.budget_bytes = gpu->free_bytes;
    status.budget_source = BudgetSource::kGpu;
  } else if (missing) {
    status.device = device_selector_name(device);
    status.budget_bytes = 0;
    status.budget_source = BudgetSource::kDeviceMissing;
  } else {
    status.device = "cpu";
    status.budget_bytes = ram.ram_budget_bytes;
    status.budget_source = ram.ram_budget_source;
  }

  if (missing) status.device_error = missing_device_message(device, status.gpus);
  if (options.explicit_limit_bytes) apply_explicit_limit(status, *options.explicit_limit_bytes);
  return status;
}

}  // namespace host

HostMemoryStatus query_host_memory(const HostQueryOptions& options) {
  host::RamReading ram = host::read_os_ram(options);
  std::vector<GpuMemory> gpus;
  if (options.probe_gpus) {
    gpus = host::probe_nvidia_gpus(options.nvml_library, ram.warnings);
    std::vector<GpuMemory> amd = host::probe_amd_gpus(options.rocm_smi_library, ram.warnings);
    gpus.insert(gpus.end(), amd.begin(), amd.end());
  }
  HostMemoryStatus status = host::compose_host_status(std::move(ram), std::move(gpus), options);
  host::SysrootFiles files(options.sysroot);
  status.cpu = host::read_cpu_features(files);
  return status;
}

}  // namespace memfit
