// The JSON object of `memfit host --json`; the service reuses it. Field
// meanings are in include/memfit/host_memory.h and docs/host.md. Byte
// counts are JSON integers (exact up to 2^64 - 1 in nlohmann::json).
#include <nlohmann/json.hpp>

#include "memfit/host_memory.h"

namespace memfit {

nlohmann::json host_status_to_json(const HostMemoryStatus& status) {
  nlohmann::json cgroup = nullptr;
  if (status.cgroup) {
    cgroup = {
        {"version", status.cgroup->version},
        {"limit_bytes", status.cgroup->limit_bytes},
        {"usage_bytes", status.cgroup->usage_bytes},
        {"inactive_file_bytes", status.cgroup->inactive_file_bytes},
        {"headroom_bytes", status.cgroup->headroom_bytes()},
        {"path", status.cgroup->path},
    };
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuMemory& gpu : status.gpus) {
    gpus.push_back({
        {"index", gpu.index},
        {"vendor", gpu_vendor_name(gpu.vendor)},
        {"name", gpu.name},
        {"total_bytes", gpu.total_bytes},
        {"free_bytes", gpu.free_bytes},
    });
  }
  nlohmann::json out = {
      {"os", status.os},
      {"ram_total_bytes", status.ram_total_bytes},
      {"available_now_bytes", status.available_now_bytes},
      {"ram_available_bytes", status.ram_available_bytes},
      {"reserve_bytes", status.reserve_bytes},
      {"budget_bytes", status.budget_bytes},
      {"budget_source", std::string(to_string(status.budget_source))},
      {"device", status.device},
      {"device_error", status.device_error ? nlohmann::json(*status.device_error) : nullptr},
      {"cgroup", cgroup},
      {"gpus", gpus},
      {"metal_working_set_bytes", status.metal_working_set_bytes},
      {"warnings", status.warnings},
  };
  // nlohmann sorts object keys; that order is stable across runs.
  return out;
}

}  // namespace memfit
