// GPUs through the fake NVML and ROCm SMI built beside the tests
// (tests/host/fake_nvml.c, fake_rocm_smi.c), loaded by path exactly as the
// real libraries would be.
#include "host/gpu_probe.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "memfit/host_memory.h"
#include "support/fake_sysroot.h"
#include "support/paths.h"

namespace memfit::host {
namespace {

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

// Holds the fake NVML open for a test, so its call counters survive the
// probe's own dlclose, and reads them.
class FakeNvml {
 public:
  FakeNvml() : handle_(::dlopen(FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL)) {}
  ~FakeNvml() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  bool loaded() const { return handle_ != nullptr; }
  int counter(const char* name) const { return *static_cast<int*>(::dlsym(handle_, name)); }
  void reset() {
    *static_cast<int*>(::dlsym(handle_, "fake_nvml_init_calls")) = 0;
    *static_cast<int*>(::dlsym(handle_, "fake_nvml_shutdown_calls")) = 0;
  }

 private:
  void* handle_;
};

TEST(HostGpuProbe, FakeNvmlListsTwoGpus) {
  FakeNvml fake;
  ASSERT_TRUE(fake.loaded());
  fake.reset();
  std::vector<std::string> warnings;
  std::vector<GpuMemory> gpus = probe_nvidia_gpus(FAKE_NVML_PATH, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_EQ(gpus[0].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(gpus[0].name, "Fake NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(gpus[0].total_bytes, 42949672960u);  // 40 GiB
  EXPECT_EQ(gpus[0].free_bytes, 41875931136u);   // 39 GiB
  EXPECT_EQ(gpus[1].index, 1);
  EXPECT_EQ(gpus[1].name, "Fake NVIDIA GeForce RTX 4090");
  EXPECT_EQ(gpus[1].total_bytes, 25769803776u);  // 24 GiB
  EXPECT_EQ(gpus[1].free_bytes, 21474836480u);   // 20 GiB
  // Initialised once and shut down once.
  EXPECT_EQ(fake.counter("fake_nvml_init_calls"), 1);
  EXPECT_EQ(fake.counter("fake_nvml_shutdown_calls"), 1);
}

TEST(HostGpuProbe, DeviceCountComesFromTheLibrary) {
  ScopedEnv one("FAKE_NVML_DEVICE_COUNT", "1");
  std::vector<std::string> warnings;
  std::vector<GpuMemory> gpus = probe_nvidia_gpus(FAKE_NVML_PATH, warnings);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].name, "Fake NVIDIA A100-SXM4-40GB");
}

TEST(HostGpuProbe, FailedInitIsAWarningAndNoGpus) {
  FakeNvml fake;
  fake.reset();
  ScopedEnv fail("FAKE_NVML_INIT_RESULT", "9");
  std::vector<std::string> warnings;
  EXPECT_TRUE(probe_nvidia_gpus(FAKE_NVML_PATH, warnings).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "NVML: nvmlInit returned 9 (Driver Not Loaded); no NVIDIA GPUs listed");
  EXPECT_EQ(fake.counter("fake_nvml_shutdown_calls"), 0);  // nothing to shut down
}

TEST(HostGpuProbe, NamedLibraryThatIsMissingIsAWarning) {
  std::vector<std::string> warnings;
  EXPECT_TRUE(probe_nvidia_gpus("/nonexistent/libnvidia-ml.so.1", warnings).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "NVML: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file "
            "or directory");
}

TEST(HostGpuProbe, LibraryWithoutTheEntryPointsIsAWarning) {
  std::vector<std::string> warnings;
  EXPECT_TRUE(probe_nvidia_gpus(FAKE_ROCM_SMI_PATH, warnings).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "NVML: the library lacks the functions memfit needs; no NVIDIA GPUs listed");
}

TEST(HostGpuProbe, PreV2NamesWithoutOptionalEntryPointsStillSizeDevices) {
  // The minimal fake exports nvmlInit, nvmlDeviceGetCount,
  // nvmlDeviceGetHandleByIndex and nvmlDeviceGetMemoryInfo only.
  std::vector<std::string> warnings;
  std::vector<GpuMemory> gpus = probe_nvidia_gpus(FAKE_NVML_MINIMAL_PATH, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].name, "");
  EXPECT_EQ(gpus[0].free_bytes, 41875931136u);
  EXPECT_EQ(gpus[1].total_bytes, 25769803776u);
}

TEST(HostGpuProbe, FakeRocmSmiListsOneGpu) {
  std::vector<std::string> warnings;
  std::vector<GpuMemory> gpus = probe_amd_gpus(FAKE_ROCM_SMI_PATH, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_EQ(gpus[0].vendor, GpuVendor::kAmd);
  EXPECT_EQ(gpus[0].name, "Fake AMD Instinct MI300X");
  EXPECT_EQ(gpus[0].total_bytes, 206158430208u);  // 192 GiB
  // free = total - used = 206158430208 - 8589934592 = 197568495616 (184 GiB).
  EXPECT_EQ(gpus[0].free_bytes, 197568495616u);
}

#ifdef __linux__  // why: query_host_memory reads the sysroot only on Linux
TEST(HostGpuProbe, QueryListsNvidiaThenAmdAndAutoTakesTheFirst) {
  testing::FakeSysroot root;
  root.meminfo(16777216, 12582912);
  HostQueryOptions options;
  options.sysroot = root.path();
  options.nvml_library = FAKE_NVML_PATH;
  options.rocm_smi_library = FAKE_ROCM_SMI_PATH;
  HostMemoryStatus status = query_host_memory(options);
  ASSERT_EQ(status.gpus.size(), 3u);
  EXPECT_EQ(status.gpus[0].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(status.gpus[1].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(status.gpus[2].vendor, GpuVendor::kAmd);
  EXPECT_EQ(status.device, "cuda:0");
  EXPECT_EQ(status.budget_bytes, 41875931136u);
  EXPECT_EQ(status.budget_source, BudgetSource::kGpu);
  EXPECT_EQ(status.ram_total_bytes, 17179869184u);
  EXPECT_TRUE(status.warnings.empty());
}

TEST(HostGpuProbe, QueryWithGpusOffListsNone) {
  testing::FakeSysroot root;
  root.meminfo(16777216, 12582912);
  HostQueryOptions options;
  options.sysroot = root.path();
  options.nvml_library = FAKE_NVML_PATH;
  options.probe_gpus = false;
  HostMemoryStatus status = query_host_memory(options);
  EXPECT_TRUE(status.gpus.empty());
  EXPECT_EQ(status.device, "cpu");
  EXPECT_EQ(status.budget_bytes, 12884901888u);
  EXPECT_EQ(status.budget_source, BudgetSource::kMeminfoAvailable);
}
#endif

}  // namespace
}  // namespace memfit::host
