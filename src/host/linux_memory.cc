#include "host/linux_memory.h"

#include "host/cgroup.h"
#include "host/proc_fields.h"

namespace memfit::host {
namespace {

// One /proc/meminfo field; nullopt (with a warning when malformed) when it
// cannot be had.
std::optional<uint64_t> meminfo_field(const std::string& text, const char* name,
                                      std::vector<std::string>& warnings) {
  Result<std::optional<uint64_t>> value = find_kib_field(text, name);
  if (!value.ok()) {
    warnings.push_back("/proc/meminfo: " + value.error().message());
    return std::nullopt;
  }
  return *value;
}

}  // namespace

RamReading read_linux_ram(HostFiles& files) {
  RamReading ram;
  ram.os = "linux";
  std::optional<uint64_t> available;
  Result<std::optional<std::string>> meminfo = files.read("/proc/meminfo");
  if (!meminfo.ok()) {
    ram.warnings.push_back(meminfo.error().message());
  } else if (!meminfo.value()) {
    ram.warnings.push_back("/proc/meminfo: not found; host RAM is unknown");
  } else {
    const std::string& text = **meminfo;
    const std::optional<uint64_t> total = meminfo_field(text, "MemTotal", ram.warnings);
    available = meminfo_field(text, "MemAvailable", ram.warnings);
    ram.ram_total_bytes = total.value_or(0);
    if (available) {
      ram.ram_budget_source = BudgetSource::kMeminfoAvailable;
    } else if (total) {
      ram.warnings.push_back(
          "/proc/meminfo: no MemAvailable (Linux before 3.14?); using MemTotal, which counts "
          "memory in use as available");
      available = total;
      ram.ram_budget_source = BudgetSource::kMeminfoTotal;
    } else {
      ram.warnings.push_back(
          "/proc/meminfo: neither MemAvailable nor MemTotal; host RAM is unknown");
    }
  }
  ram.available_now_bytes = available.value_or(0);

  ram.cgroup = read_cgroup_memory(files, ram.warnings);
  if (ram.cgroup && (!available || ram.cgroup->headroom_bytes() < *available)) {
    ram.ram_budget_bytes = ram.cgroup->headroom_bytes();
    ram.ram_budget_source = BudgetSource::kCgroup;
  } else if (available) {
    ram.ram_budget_bytes = *available;
  } else {
    ram.ram_budget_source = BudgetSource::kUnavailable;
  }
  ram.ram_available_bytes = ram.ram_budget_bytes;
  return ram;
}

Result<uint64_t> read_linux_locked_bytes(HostFiles& files) {
  Result<std::optional<std::string>> meminfo = files.read("/proc/meminfo");
  if (!meminfo.ok()) return meminfo.error();
  if (!meminfo.value()) return Error("/proc/meminfo: not found");
  Result<std::optional<uint64_t>> mlocked = find_kib_field(**meminfo, "Mlocked");
  if (!mlocked.ok()) return mlocked.error().within("/proc/meminfo");
  if (!mlocked.value()) return Error("/proc/meminfo: no Mlocked line");
  return **mlocked;
}

ProcessGauges parse_proc_status_gauges(std::string_view status_text) {
  const auto field = [&](const char* name) -> std::optional<uint64_t> {
    Result<std::optional<uint64_t>> value = find_kib_field(status_text, name);
    return value.ok() ? *value : std::nullopt;
  };
  ProcessGauges gauges;
  gauges.footprint_bytes = field("VmRSS");
  gauges.swapped_bytes = field("VmSwap");
  gauges.wired_bytes = field("VmLck");
  return gauges;
}

}  // namespace memfit::host
