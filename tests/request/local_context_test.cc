// LocalRequestContext's host query: which limit wins, and when the GPU
// libraries are loaded (tests/host/fake_nvml.c stands in for NVML: two
// GPUs, the first with 41,875,931,136 bytes free).
#include <gtest/gtest.h>

#include "memfit/environment.h"
#include "memfit/request.h"
#include "support/fake_sysroot.h"
#include "support/paths.h"

namespace memfit {
namespace {

#ifdef FAKE_NVML_PATH

class LocalContextHost : public ::testing::Test {
 protected:
  void SetUp() override { root_.meminfo(16777216, 12582912); }  // 16 GiB, 12 GiB available

  LocalRequestContext context(std::string memory_limit = "") const {
    return LocalRequestContext(MapEnvironment{{"MEMFIT_SYSROOT", root_.path()},
                                              {"MEMFIT_NVML_LIBRARY", FAKE_NVML_PATH},
                                              {"MEMFIT_MEMORY_LIMIT", memory_limit}});
  }

  testing::FakeSysroot root_;
};

DeviceSelector device(DeviceSelector::Kind kind, int index = 0) { return DeviceSelector{kind, index}; }

TEST_F(LocalContextHost, WithoutALimitTheGpusAreProbedAndAutoTakesTheFirst) {
  HostMemoryStatus s = context().host_memory(device(DeviceSelector::Kind::kAuto), std::nullopt);
  EXPECT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.budget_source, BudgetSource::kGpu);
  EXPECT_EQ(s.budget_bytes, 41875931136u);
}

TEST_F(LocalContextHost, AnExplicitLimitWithNoGpuNamedLeavesTheGpuLibrariesUnloaded) {
  // The request's limit, over none in the environment.
  HostMemoryStatus s =
      context().host_memory(device(DeviceSelector::Kind::kAuto), uint64_t{8} << 30);
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(s.budget_source, BudgetSource::kExplicit);
  EXPECT_EQ(s.budget_bytes, 8ull << 30);
  // 12 GiB available, from the sysroot: the host-shadow and guardrail figure.
  EXPECT_EQ(s.ram_available_bytes, 12884901888u);
  // The environment's limit, when the request gives none; and the request's
  // wins over it.
  s = context("4GiB").host_memory(device(DeviceSelector::Kind::kCpu), std::nullopt);
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(s.budget_bytes, 4ull << 30);
  s = context("4GiB").host_memory(device(DeviceSelector::Kind::kCpu), uint64_t{2} << 30);
  EXPECT_EQ(s.budget_bytes, 2ull << 30);
}

TEST_F(LocalContextHost, ANamedGpuIsProbedEvenUnderALimit) {
  HostMemoryStatus s =
      context().host_memory(device(DeviceSelector::Kind::kCuda, 1), uint64_t{8} << 30);
  EXPECT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.budget_bytes, 8ull << 30);
  EXPECT_TRUE(s.warnings.empty());
  // A GPU that is not there: a warning under a limit, an error without one.
  s = context().host_memory(device(DeviceSelector::Kind::kCuda, 5), uint64_t{8} << 30);
  EXPECT_FALSE(s.device_error.has_value());
  ASSERT_EQ(s.warnings.size(), 1u);
  s = context().host_memory(device(DeviceSelector::Kind::kCuda, 5), std::nullopt);
  EXPECT_TRUE(s.device_error.has_value());
}

#endif  // FAKE_NVML_PATH

}  // namespace
}  // namespace memfit
