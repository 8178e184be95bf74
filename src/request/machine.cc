// The machine a request prices (machine.h). A described machine is built
// as the host query would have read it on that machine, so every engine
// reads it where it reads this one (HostMemoryStatus): the GPUs' list, the
// budget and its source, a Mac's unified memory and reserve.
#include "request/machine.h"

#include <fmt/format.h>

#include <algorithm>

#include "host/host_status.h"
#include "memfit/memory_size.h"

namespace memfit::request {
namespace {

GpuVendor host_vendor(HardwareVendor vendor) {
  return vendor == HardwareVendor::kAmd ? GpuVendor::kAmd : GpuVendor::kNvidia;
}

Result<std::vector<const GpuSpec*>> find_gpus(const HardwareTable& table,
                                              const std::vector<std::string>& names) {
  std::vector<const GpuSpec*> gpus;
  for (const std::string& name : names) {
    Result<const GpuSpec*> gpu = find_gpu(table, name);
    if (!gpu) return Error::usage("gpu", gpu.error().message());
    if ((*gpu)->vendor == HardwareVendor::kIntel) {
      return Error::usage("gpu", fmt::format("{} is an Intel GPU: no engine here prices its "
                                             "runtime; give its memory as memory_limit",
                                             (*gpu)->id));
    }
    gpus.push_back(*gpu);
  }
  // The host lists NVIDIA's devices before AMD's (host_memory.h).
  std::stable_partition(gpus.begin(), gpus.end(),
                        [](const GpuSpec* g) { return g->vendor == HardwareVendor::kNvidia; });
  return gpus;
}

// A --device the described GPUs have (auto and cpu always are); kUsage
// naming those there are otherwise, a limit or not: it is the request's
// own contradiction, not a device this host lacks.
Status check_device(const DeviceSelector& device, const std::vector<GpuMemory>& gpus) {
  const bool cuda = device.kind == DeviceSelector::Kind::kCuda;
  if (!cuda && device.kind != DeviceSelector::Kind::kRocm) return Status::Ok();
  std::string present;
  for (const GpuMemory& g : gpus) {
    if ((g.vendor == GpuVendor::kNvidia) == cuda && g.index == device.index) return Status::Ok();
    present += fmt::format("{}{}:{}", present.empty() ? "" : ", ",
                           g.vendor == GpuVendor::kNvidia ? "cuda" : "rocm", g.index);
  }
  return Error::usage("device", fmt::format("{} is not among the GPUs gpu describes ({})",
                                            device_selector_name(device), present));
}

// This host's RAM with the described GPUs in place of the probed ones.
Result<HostMemoryStatus> described_gpus(const EstimateRequest& r, const DescribedMachine& machine,
                                        RequestContext& context) {
  HostMemoryStatus ram = context.host_ram(r.memory_limit_bytes);
  host::RamReading reading;
  reading.os = ram.os;
  reading.ram_total_bytes = ram.ram_total_bytes;
  reading.available_now_bytes = ram.available_now_bytes;
  reading.ram_available_bytes = ram.ram_available_bytes;
  reading.reserve_bytes = ram.reserve_bytes;
  reading.ram_budget_bytes = ram.budget_bytes;
  reading.ram_budget_source = ram.budget_source;
  reading.cgroup = ram.cgroup;
  reading.metal_working_set_bytes = ram.metal_working_set_bytes;
  reading.warnings = ram.warnings;

  std::vector<GpuMemory> gpus;
  int index[2] = {0, 0};  // per vendor: cuda:N, rocm:N
  for (const GpuSpec* g : machine.gpus) {
    const GpuVendor vendor = host_vendor(g->vendor);
    // An idle device: all of its memory is free.
    gpus.push_back(GpuMemory{index[vendor == GpuVendor::kAmd]++, vendor, g->name, g->memory_bytes(),
                             g->memory_bytes()});
  }
  if (Status device = check_device(r.device, gpus); !device) return device.error();
  // The request's limit is the budget as on any machine; the context's own
  // (MEMFIT_MEMORY_LIMIT, the service's) is this host's and stays with its RAM.
  HostQueryOptions options;
  options.device = r.device;
  options.explicit_limit_bytes = r.memory_limit_bytes;
  HostMemoryStatus status = host::compose_host_status(std::move(reading), std::move(gpus), options);
  status.cpu = ram.cpu;
  status.described_by = "gpu";
  return status;
}

// The Mac as its own host query would read it, idle.
Result<HostMemoryStatus> described_mac(const EstimateRequest& r, const MacSpec& mac,
                                       std::vector<Warning>& warnings) {
  if (r.device.kind == DeviceSelector::Kind::kCuda ||
      r.device.kind == DeviceSelector::Kind::kRocm) {
    return Error::usage("device",
                        fmt::format("{} is not a device of a Mac ({}): its GPU shares the "
                                    "unified memory, device cpu",
                                    device_selector_name(r.device), mac.title()));
  }
  HostMemoryStatus status;
  status.os = "macos";
  status.device = "cpu";
  status.ram_total_bytes = mac.ram_bytes();
  status.reserve_bytes = mac_reserve_bytes(status.ram_total_bytes);
  const uint64_t usable =
      status.ram_total_bytes - std::min(status.reserve_bytes, status.ram_total_bytes);
  status.ram_available_bytes = usable;  // idle: all but macOS's reserve
  status.metal_working_set_bytes = mac.wired_limit_bytes;
  status.budget_bytes = mac.wired_limit_bytes;
  status.budget_source = BudgetSource::kUnifiedMemory;
  status.described_by = "mac";
  // Apple silicon: ARMv8.4's dot product from the M1, int8 matrix multiply
  // from the M2 (what llama.cpp's CPU repacking reads).
  status.cpu.arch = CpuFeatures::Arch::kArm;
  status.cpu.asimddp = true;
  status.cpu.i8mm = !mac.chip.starts_with("M1");
  if (r.memory_limit_bytes) {
    // A limit stands for a raised wired limit (sysctl iogpu.wired_limit_mb),
    // which leaves macOS its reserve only up to RAM - reserve.
    apply_explicit_limit(status, std::min(*r.memory_limit_bytes, usable));
    if (*r.memory_limit_bytes > usable) {
      warnings.push_back(Warning{
          WarningKind::kRequest,
          fmt::format("memory_limit {} would leave macOS less than its reserve on {} ({} of RAM, "
                      "{} reserve): the budget is {}",
                      format_bytes(*r.memory_limit_bytes), mac.title(),
                      format_bytes(status.ram_total_bytes), format_bytes(status.reserve_bytes),
                      format_bytes(usable))});
    }
  }
  return status;
}

// The table's row for a GPU as the host or the described machine reports
// it: by its printed name, and where cards sold with two memory sizes print
// one name (an RTX 4060 Ti of 8 or 16 GB: find_gpu asks which), the row of
// that name whose memory is nearest the device's total. nullptr: none.
const GpuSpec* spec_for_device(const HardwareTable& table, const GpuMemory& gpu) {
  if (Result<const GpuSpec*> spec = find_gpu(table, gpu.name)) return *spec;
  const std::string key = hardware_key(gpu.name);
  const GpuSpec* nearest = nullptr;
  uint64_t nearest_gap = 0;
  for (const GpuSpec& row : table.gpus) {
    if (row.memory_mib == 0 || hardware_key(row.name) != key) continue;
    const uint64_t bytes = row.memory_bytes();
    const uint64_t gap = bytes > gpu.total_bytes ? bytes - gpu.total_bytes : gpu.total_bytes - bytes;
    if (nearest == nullptr || gap < nearest_gap) {
      nearest = &row;
      nearest_gap = gap;
    }
  }
  return nearest;
}

}  // namespace

Result<DescribedMachine> describe_machine(const MachineRequest& request) {
  DescribedMachine machine;
  if (!request.given()) return machine;
  if (!request.gpu.empty() && request.mac) {
    return Error::usage("mac", "and gpu describe two machines: give one");
  }
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return table.error();
  if (request.mac) {
    Result<const MacSpec*> mac = find_mac(**table, *request.mac);
    if (!mac) return Error::usage("mac", mac.error().message());
    machine.mac = *mac;
    return machine;
  }
  Result<std::vector<const GpuSpec*>> gpus = find_gpus(**table, request.gpu);
  if (!gpus) return gpus.error();
  machine.gpus = std::move(*gpus);
  return machine;
}

void apply_machine_platform(const DescribedMachine& machine, Platform& platform) {
  if (machine.mac != nullptr) {
    platform.os = HostOs::kMacos;
    platform.backend = Backend::kMetal;
    platform.metal_gpu_cores = machine.mac->gpu_cores;
  } else if (!machine.gpus.empty()) {
    platform.backend =
        machine.gpus.front()->vendor == HardwareVendor::kAmd ? Backend::kRocm : Backend::kCuda;
  }
}

Result<HostMemoryStatus> host_for_request(const EstimateRequest& r, const DescribedMachine& machine,
                                          RequestContext& context, std::vector<Warning>& warnings) {
  if (machine.mac != nullptr) return described_mac(r, *machine.mac, warnings);
  if (!machine.gpus.empty()) return described_gpus(r, machine, context);
  HostMemoryStatus status = context.host_memory(r.device, r.memory_limit_bytes);
  if (r.memory_limit_bytes) status.described_by = "memory_limit";
  return status;
}

SpeedMachine speed_machine(const DescribedMachine& machine, const HostMemoryStatus& host,
                           std::optional<double> host_bandwidth_gb_s) {
  SpeedMachine out;
  out.host.bandwidth_gb_s = host_bandwidth_gb_s.value_or(0);
  if (machine.mac != nullptr) {
    // A Mac's GPU has no INT8 tensor figure: 0.
    out.unified = DeviceThroughput{machine.mac->id, machine.mac->decode_bandwidth_gb_s(),
                                   machine.mac->fp16_tflops, 0};
    return out;
  }
  Result<const HardwareTable*> table = hardware_table();
  for (const GpuMemory& g : host.gpus) {
    DeviceThroughput device{g.name, 0, 0, 0};
    if (table) {
      if (const GpuSpec* spec = spec_for_device(**table, g)) {
        device = DeviceThroughput{spec->id, spec->bandwidth_gb_s, spec->fp16_dense_tflops,
                                  spec->int8_dense_tops};
      }
    }
    out.gpus.push_back(std::move(device));
  }
  return out;
}

}  // namespace memfit::request
