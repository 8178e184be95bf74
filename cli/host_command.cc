// memfit host: the memory this machine has and can give now (docs/host.md).
//
//   memfit host [--json] [--device auto|cpu|cuda:N|rocm:N] [--memory-limit SIZE]
//
// Environment: MEMFIT_SYSROOT, MEMFIT_NVML_LIBRARY, MEMFIT_ROCM_SMI_LIBRARY,
// MEMFIT_MEMORY_LIMIT (alias MLXCEL_MEMORY_LIMIT; --memory-limit wins).
// Exit 0 with the status on stdout; 2 for a bad option value; 1 when the
// named device does not exist.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "memfit/memory_size.h"
#include "memfit/environment.h"
#include "memfit/host_memory.h"
#include "memfit/mlxcel_settings.h"

namespace memfit::cli {
namespace {

struct HostOptions {
  bool json = false;
  std::string device = "auto";
  std::string memory_limit;  // "" = not given
};

void print_line(const std::string& line) { std::fprintf(stderr, "memfit: %s\n", line.c_str()); }

std::string gib(uint64_t bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1ull << 30));
}

// MEMFIT_MEMORY_LIMIT, else MLXCEL_MEMORY_LIMIT, as mlxcel_settings_from_environment
// reads it; an invalid value is a warning and leaves the limit unset.
std::optional<uint64_t> limit_from_environment(const Environment& env,
                                               std::vector<std::string>& warnings) {
  for (const char* name : {"MEMFIT_MEMORY_LIMIT", "MLXCEL_MEMORY_LIMIT"}) {
    std::optional<std::string> value = env.get(name);
    if (!value) continue;
    Result<std::optional<uint64_t>> limit = parse_memory_size(*value);
    if (limit.ok()) return *limit;
    warnings.push_back(std::string(name) + ": " + limit.error().message() + "; ignored");
    return std::nullopt;
  }
  return std::nullopt;
}

std::string render_text(const HostMemoryStatus& status) {
  std::string out = fmt::format("Host memory ({})\n", status.os);
  const auto row = [&](const char* label, const std::string& value, const std::string& note) {
    out += fmt::format("  {:<22}{:>14}{}\n", label, value, note.empty() ? "" : "   " + note);
  };
  row("RAM total", gib(status.ram_total_bytes), "");
  row("available now", gib(status.available_now_bytes), "machine-wide");
  if (status.cgroup) {
    const CgroupMemory& cg = *status.cgroup;
    row("cgroup headroom", gib(cg.headroom_bytes()),
        fmt::format("v{} {}: limit {}, usage {}, inactive file {}", cg.version, cg.path,
                    gib(cg.limit_bytes), gib(cg.usage_bytes), gib(cg.inactive_file_bytes)));
  }
  row("this process can take", gib(status.ram_available_bytes), "");
  row("reserve for the OS", gib(status.reserve_bytes), "");
  if (status.metal_working_set_bytes > 0) {
    row("Metal working set", gib(status.metal_working_set_bytes), "");
  }
  row("budget", gib(status.budget_bytes),
      fmt::format("source {}, device {}", to_string(status.budget_source), status.device));
  if (status.gpus.empty()) {
    out += "GPUs: none found\n";
    return out;
  }
  out += fmt::format("GPUs\n  {:<8} {:<7} {:>14} {:>14}  {}\n", "device", "vendor", "total", "free",
                     "name");
  for (const GpuMemory& gpu : status.gpus) {
    const std::string device =
        (gpu.vendor == GpuVendor::kNvidia ? "cuda:" : "rocm:") + std::to_string(gpu.index);
    out += fmt::format("  {:<8} {:<7} {:>14} {:>14}  {}\n", device, gpu_vendor_name(gpu.vendor),
                       gib(gpu.total_bytes), gib(gpu.free_bytes), gpu.name);
  }
  return out;
}

int run_host(const HostOptions& options) {
  std::unique_ptr<Environment> env = make_process_environment();
  std::vector<std::string> warnings;
  HostQueryOptions query = host_query_options_from_environment(*env);
  query.explicit_limit_bytes = limit_from_environment(*env, warnings);
  if (!options.memory_limit.empty()) {
    Result<std::optional<uint64_t>> limit = parse_memory_size(options.memory_limit);
    if (!limit.ok()) {
      print_line("host: --memory-limit: " + limit.error().message());
      return kExitUsage;
    }
    query.explicit_limit_bytes = *limit;
  }
  Result<DeviceSelector> device = parse_device_selector(options.device);
  if (!device.ok()) {
    print_line("host: --device: " + device.error().message());
    return kExitUsage;
  }
  query.device = *device;

  HostMemoryStatus status = query_host_memory(query);
  status.warnings.insert(status.warnings.begin(), warnings.begin(), warnings.end());
  for (const std::string& warning : status.warnings) print_line("warning: " + warning);
  if (status.device_error) {
    print_line("host: " + *status.device_error);
    return kExitError;
  }
  std::string out;
  if (options.json) {
    out =
        host_status_to_json(status).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
        "\n";
  } else {
    out = render_text(status);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_host_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<HostOptions>();
  CLI::App* command = app.add_subcommand("host", "the memory this machine has and can give now");
  command->add_flag("--json", options->json, "print one JSON object on stdout");
  command->add_option("--device", options->device, "budget device: auto, cpu, cuda:N or rocm:N");
  command->add_option("--memory-limit", options->memory_limit,
                      "memory budget, e.g. 48GiB (2^30 bytes) or 80GB (10^9 bytes); overrides "
                      "MEMFIT_MEMORY_LIMIT");
  command->callback([options, &exit_code] { exit_code = run_host(*options); });
}

}  // namespace memfit::cli
