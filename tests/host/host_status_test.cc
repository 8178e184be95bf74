// The budget choice (explicit limit, GPU, CPU), the device selector, the
// JSON object and the available-now warning: all OS-independent.
#include "host/host_status.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memfit/environment.h"
#include "memfit/host_memory.h"
#include "support/units.h"

namespace memfit::host {
namespace {

using ::memfit::testing::kGiB;

// A Linux host with 16 GiB of RAM, 12 GiB available, in a cgroup leaving
// it 1 GiB.
RamReading container_ram() {
  RamReading ram;
  ram.os = "linux";
  ram.ram_total_bytes = 16 * kGiB;
  ram.available_now_bytes = 12 * kGiB;
  ram.ram_available_bytes = kGiB;
  ram.ram_budget_bytes = kGiB;
  ram.ram_budget_source = BudgetSource::kCgroup;
  CgroupMemory cgroup;
  cgroup.version = 2;
  cgroup.limit_bytes = 4 * kGiB;
  cgroup.usage_bytes = 3758096384;
  cgroup.inactive_file_bytes = 536870912;
  cgroup.path = "/kubepods/pod1";
  ram.cgroup = cgroup;
  return ram;
}

GpuMemory gpu(GpuVendor vendor, int index, std::string name, uint64_t total, uint64_t free) {
  GpuMemory g;
  g.vendor = vendor;
  g.index = index;
  g.name = std::move(name);
  g.total_bytes = total;
  g.free_bytes = free;
  return g;
}

// Two NVIDIA GPUs (39 GiB and 20 GiB free) and one AMD (184 GiB free).
std::vector<GpuMemory> three_gpus() {
  return {gpu(GpuVendor::kNvidia, 0, "A100", 40 * kGiB, 39 * kGiB),
          gpu(GpuVendor::kNvidia, 1, "RTX 4090", 24 * kGiB, 20 * kGiB),
          gpu(GpuVendor::kAmd, 0, "MI300X", 192 * kGiB, 184 * kGiB)};
}

HostQueryOptions on(const std::string& device) {
  HostQueryOptions options;
  options.device = *parse_device_selector(device);
  return options;
}

TEST(HostStatus, AutoPicksTheFirstGpu) {
  HostMemoryStatus status = compose_host_status(container_ram(), three_gpus(), on("auto"));
  EXPECT_EQ(status.device, "cuda:0");
  EXPECT_EQ(status.budget_bytes, 39 * kGiB);
  EXPECT_EQ(status.budget_source, BudgetSource::kGpu);
  EXPECT_FALSE(status.device_error.has_value());
  // The RAM figures stay as read.
  EXPECT_EQ(status.ram_total_bytes, 16 * kGiB);
  EXPECT_EQ(status.available_now_bytes, 12 * kGiB);
  EXPECT_EQ(status.ram_available_bytes, kGiB);
  EXPECT_EQ(status.gpus.size(), 3u);
}

TEST(HostStatus, AutoWithoutGpusIsTheCpu) {
  HostMemoryStatus status = compose_host_status(container_ram(), {}, on("auto"));
  EXPECT_EQ(status.device, "cpu");
  EXPECT_EQ(status.budget_bytes, kGiB);
  EXPECT_EQ(status.budget_source, BudgetSource::kCgroup);
}

TEST(HostStatus, CpuIgnoresGpus) {
  HostMemoryStatus status = compose_host_status(container_ram(), three_gpus(), on("cpu"));
  EXPECT_EQ(status.device, "cpu");
  EXPECT_EQ(status.budget_bytes, kGiB);
  EXPECT_EQ(status.budget_source, BudgetSource::kCgroup);
}

TEST(HostStatus, NamedGpusByVendorAndIndex) {
  HostMemoryStatus cuda1 = compose_host_status(container_ram(), three_gpus(), on("cuda:1"));
  EXPECT_EQ(cuda1.device, "cuda:1");
  EXPECT_EQ(cuda1.budget_bytes, 20 * kGiB);
  EXPECT_EQ(cuda1.budget_source, BudgetSource::kGpu);
  HostMemoryStatus rocm0 = compose_host_status(container_ram(), three_gpus(), on("rocm"));
  EXPECT_EQ(rocm0.device, "rocm:0");
  EXPECT_EQ(rocm0.budget_bytes, 184 * kGiB);
}

TEST(HostStatus, MissingGpuIsADeviceErrorAndZeroBudget) {
  HostMemoryStatus status = compose_host_status(container_ram(), three_gpus(), on("cuda:2"));
  ASSERT_TRUE(status.device_error.has_value());
  EXPECT_EQ(*status.device_error, "device cuda:2 not found: NVML lists cuda:0, cuda:1");
  EXPECT_EQ(status.device, "cuda:2");
  EXPECT_EQ(status.budget_bytes, 0u);
  EXPECT_EQ(status.budget_source, BudgetSource::kDeviceMissing);

  HostMemoryStatus none = compose_host_status(container_ram(), {}, on("rocm:0"));
  ASSERT_TRUE(none.device_error.has_value());
  EXPECT_EQ(*none.device_error, "device rocm:0 not found: ROCm SMI lists no GPU");
}

TEST(HostStatus, ExplicitLimitWinsOverEverything) {
  HostQueryOptions options = on("cuda:1");
  options.explicit_limit_bytes = 48 * kGiB;
  HostMemoryStatus status = compose_host_status(container_ram(), three_gpus(), options);
  EXPECT_EQ(status.budget_bytes, 48 * kGiB);
  EXPECT_EQ(status.budget_source, BudgetSource::kExplicit);
  EXPECT_EQ(status.device, "cuda:1");
}

TEST(HostStatus, ExplicitLimitTurnsAMissingDeviceIntoAWarning) {
  HostQueryOptions options = on("cuda:7");
  options.explicit_limit_bytes = 80 * kGiB;
  HostMemoryStatus status = compose_host_status(container_ram(), {}, options);
  EXPECT_FALSE(status.device_error.has_value());
  EXPECT_EQ(status.budget_bytes, 80 * kGiB);
  EXPECT_EQ(status.budget_source, BudgetSource::kExplicit);
  ASSERT_EQ(status.warnings.size(), 1u);
  EXPECT_EQ(status.warnings[0], "device cuda:7 not found: NVML lists no GPU");
}

TEST(HostStatus, MemoryBudgetCarriesRamForTheHostShadow) {
  HostMemoryStatus status = compose_host_status(container_ram(), three_gpus(), on("auto"));
  MemoryBudget budget = to_memory_budget(status);
  EXPECT_EQ(budget.budget_bytes, 39 * kGiB);
  EXPECT_EQ(budget.ram_available_bytes, kGiB);
  EXPECT_EQ(budget.source, BudgetSource::kGpu);
}

TEST(HostStatus, DeviceSelectorSpellings) {
  struct Case {
    const char* text;
    DeviceSelector::Kind kind;
    int index;
    const char* canonical;
  };
  for (const Case& c : {Case{"auto", DeviceSelector::Kind::kAuto, 0, "auto"},
                        Case{"cpu", DeviceSelector::Kind::kCpu, 0, "cpu"},
                        Case{"cuda", DeviceSelector::Kind::kCuda, 0, "cuda:0"},
                        Case{"cuda:3", DeviceSelector::Kind::kCuda, 3, "cuda:3"},
                        Case{"rocm", DeviceSelector::Kind::kRocm, 0, "rocm:0"},
                        Case{"rocm:12", DeviceSelector::Kind::kRocm, 12, "rocm:12"}}) {
    Result<DeviceSelector> device = parse_device_selector(c.text);
    ASSERT_TRUE(device.ok()) << c.text;
    EXPECT_EQ(device->kind, c.kind) << c.text;
    EXPECT_EQ(device->index, c.index) << c.text;
    EXPECT_EQ(device_selector_name(*device), c.canonical);
  }
}

TEST(HostStatus, BadDeviceSelectorsAreRefused) {
  for (const char* text : {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda1", "CUDA:0", "rocm:+1",
                           "cuda:99999999999", "metal"}) {
    Result<DeviceSelector> device = parse_device_selector(text);
    ASSERT_FALSE(device.ok()) << text;
    EXPECT_EQ(device.error().message(),
              "'" + std::string(text) + "': expected auto, cpu, cuda[:N] or rocm[:N]");
  }
}

TEST(HostStatus, DeviceSelectorInAnErrorIsEscaped) {
  Result<DeviceSelector> device = parse_device_selector("cuda:0\nmetal");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message(),
            "'cuda:0\\nmetal': expected auto, cpu, cuda[:N] or rocm[:N]");
}

TEST(HostStatus, JsonHasEveryField) {
  HostMemoryStatus status = compose_host_status(container_ram(), three_gpus(), on("cuda:1"));
  nlohmann::json expected = nlohmann::json::parse(R"({
    "os": "linux",
    "ram_total_bytes": 17179869184,
    "available_now_bytes": 12884901888,
    "ram_available_bytes": 1073741824,
    "reserve_bytes": 0,
    "budget_bytes": 21474836480,
    "budget_source": "gpu",
    "device": "cuda:1",
    "device_error": null,
    "cgroup": {"version": 2, "limit_bytes": 4294967296, "usage_bytes": 3758096384,
               "inactive_file_bytes": 536870912, "headroom_bytes": 1073741824,
               "path": "/kubepods/pod1"},
    "gpus": [
      {"index": 0, "vendor": "nvidia", "name": "A100", "total_bytes": 42949672960,
       "free_bytes": 41875931136},
      {"index": 1, "vendor": "nvidia", "name": "RTX 4090", "total_bytes": 25769803776,
       "free_bytes": 21474836480},
      {"index": 0, "vendor": "amd", "name": "MI300X", "total_bytes": 206158430208,
       "free_bytes": 197568495616}
    ],
    "metal_working_set_bytes": 0,
    "warnings": []
  })");
  EXPECT_EQ(host_status_to_json(status), expected);
}

TEST(HostStatus, JsonCgroupIsNullWithoutALimit) {
  RamReading ram = container_ram();
  ram.cgroup.reset();
  nlohmann::json json = host_status_to_json(compose_host_status(ram, {}, on("cpu")));
  EXPECT_TRUE(json["cgroup"].is_null());
  EXPECT_EQ(json["gpus"], nlohmann::json::array());
}

// A Mac with 20 GiB available now and the 7 GiB reserve: 13 GiB usable.
HostMemoryStatus mac_status() {
  HostMemoryStatus status;
  status.ram_available_bytes = 20 * kGiB;
  status.available_now_bytes = 20 * kGiB;
  status.reserve_bytes = 7 * kGiB;
  status.budget_source = BudgetSource::kUnifiedMemory;
  return status;
}

TEST(HostStatus, WarningWhenTheLoadCutsIntoTheReserve) {
  std::optional<std::string> warning = available_now_warning(mac_status(), 14 * kGiB);
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(*warning,
            "WARNING: memory available now is 20.00 GiB; less the 7.00 GiB reserve for the OS "
            "that leaves 13.00 GiB, and this load (weights + KV cache + activation) needs 14.00 "
            "GiB, so the OS may compress or swap memory to make room");
}

TEST(HostStatus, NoWarningUpToTheReserve) {
  EXPECT_FALSE(available_now_warning(mac_status(), 13 * kGiB).has_value());  // exactly 20 - 7
  EXPECT_TRUE(available_now_warning(mac_status(), 13 * kGiB + 1).has_value());
}

TEST(HostStatus, WarningAlsoUnderAnExplicitLimit) {
  HostMemoryStatus status = mac_status();
  status.budget_source = BudgetSource::kExplicit;
  EXPECT_TRUE(available_now_warning(status, 14 * kGiB).has_value());
}

TEST(HostStatus, NoWarningWhenTheLoadIsOnAGpu) {
  HostMemoryStatus status = mac_status();
  status.budget_source = BudgetSource::kGpu;
  EXPECT_FALSE(available_now_warning(status, 100 * kGiB).has_value());
}

TEST(HostStatus, ReserveLargerThanAvailableWarnsForAnyLoad) {
  HostMemoryStatus status = mac_status();
  status.ram_available_bytes = 5 * kGiB;
  EXPECT_FALSE(available_now_warning(status, 0).has_value());
  EXPECT_TRUE(available_now_warning(status, 1).has_value());
}

TEST(HostStatus, OptionsFromTheEnvironment) {
  MapEnvironment env({{"MEMFIT_SYSROOT", "/tmp/fake"},
                      {"MEMFIT_NVML_LIBRARY", "/opt/nvml.so"},
                      {"MEMFIT_ROCM_SMI_LIBRARY", "/opt/rsmi.so"}});
  HostQueryOptions options = host_query_options_from_environment(env);
  EXPECT_EQ(options.sysroot, "/tmp/fake");
  EXPECT_EQ(options.nvml_library, "/opt/nvml.so");
  EXPECT_EQ(options.rocm_smi_library, "/opt/rsmi.so");
  EXPECT_FALSE(options.explicit_limit_bytes.has_value());

  HostQueryOptions defaults =
      host_query_options_from_environment(MapEnvironment({{"MEMFIT_SYSROOT", ""}}));
  EXPECT_EQ(defaults.sysroot, "/");
  EXPECT_EQ(defaults.nvml_library, "");
}

}  // namespace
}  // namespace memfit::host
