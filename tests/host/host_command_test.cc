// `memfit host` as a whole process: a fake sysroot and the fake GPU
// libraries through the environment, JSON on stdout, errors on stderr.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_sysroot.h"
#include "support/paths.h"
#include "support/run_command.h"

namespace memfit {
namespace {

using testing::FakeSysroot;
using testing::run_memfit;

// A container: 16 GiB RAM, 12 GiB available, a v2 cgroup whose parent
// leaves 1 GiB: 4 GiB limit - (3.5 GiB usage - 0.5 GiB inactive file).
class HostCommand : public ::testing::Test {
 protected:
  HostCommand() {
    root_.meminfo(16777216, 12582912);
    root_.self_cgroup_v2("/kubepods/pod1/ctr");
    root_.cgroup_v2_level("/kubepods/pod1/ctr", "max", 1073741824, 0);
    root_.cgroup_v2_level("/kubepods/pod1", "4294967296", 3758096384, 536870912);
  }

  // The environment of every run: this sysroot, the fake libraries, and no
  // limit from the caller's environment ("" means unset).
  std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) const {
    std::map<std::string, std::string> vars = {{"MEMFIT_SYSROOT", root_.path()},
                                               {"MEMFIT_NVML_LIBRARY", FAKE_NVML_PATH},
                                               {"MEMFIT_ROCM_SMI_LIBRARY", FAKE_ROCM_SMI_PATH},
                                               {"MEMFIT_MEMORY_LIMIT", ""},
                                               {"MLXCEL_MEMORY_LIMIT", ""}};
    for (auto& [name, value] : extra) vars[name] = value;
    return vars;
  }

  FakeSysroot root_;
};

TEST_F(HostCommand, JsonReportsEveryFigure) {
  testing::CommandResult run = run_memfit({"host", "--json"}, env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  nlohmann::json expected = nlohmann::json::parse(R"({
    "os": "linux",
    "ram_total_bytes": 17179869184,
    "available_now_bytes": 12884901888,
    "ram_available_bytes": 1073741824,
    "reserve_bytes": 0,
    "budget_bytes": 41875931136,
    "budget_source": "gpu",
    "device": "cuda:0",
    "device_error": null,
    "cgroup": {"version": 2, "limit_bytes": 4294967296, "usage_bytes": 3758096384,
               "inactive_file_bytes": 536870912, "headroom_bytes": 1073741824,
               "path": "/kubepods/pod1"},
    "gpus": [
      {"index": 0, "vendor": "nvidia", "name": "Fake NVIDIA A100-SXM4-40GB",
       "total_bytes": 42949672960, "free_bytes": 41875931136},
      {"index": 1, "vendor": "nvidia", "name": "Fake NVIDIA GeForce RTX 4090",
       "total_bytes": 25769803776, "free_bytes": 21474836480},
      {"index": 0, "vendor": "amd", "name": "Fake AMD Instinct MI300X",
       "total_bytes": 206158430208, "free_bytes": 197568495616}
    ],
    "metal_working_set_bytes": 0,
    "warnings": []
  })");
  EXPECT_EQ(nlohmann::json::parse(run.out), expected);
}

TEST_F(HostCommand, CpuDeviceTakesTheCgroupBudget) {
  testing::CommandResult run = run_memfit({"host", "--json", "--device", "cpu"}, env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["budget_bytes"], 1073741824u);
  EXPECT_EQ(json["budget_source"], "cgroup");
  EXPECT_EQ(json["device"], "cpu");
}

TEST_F(HostCommand, NamedGpu) {
  testing::CommandResult run = run_memfit({"host", "--json", "--device", "rocm:0"}, env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["budget_bytes"], 197568495616u);
  EXPECT_EQ(json["device"], "rocm:0");
}

TEST_F(HostCommand, MissingGpuIsAnErrorWithNothingOnStdout) {
  testing::CommandResult run = run_memfit({"host", "--json", "--device", "cuda:5"}, env());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "memfit: host: device cuda:5 not found: NVML lists cuda:0, cuda:1\n");
}

TEST_F(HostCommand, BadDeviceIsAUsageError) {
  testing::CommandResult run = run_memfit({"host", "--device", "gpu0"}, env());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "memfit: host: --device: 'gpu0': expected auto, cpu, cuda[:N] or rocm[:N]\n");
}

TEST_F(HostCommand, MemoryLimitOptionWinsOverTheEnvironment) {
  testing::CommandResult run =
      run_memfit({"host", "--json", "--memory-limit", "8GiB"}, env({{"MEMFIT_MEMORY_LIMIT", "4G"}}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["budget_bytes"], 8589934592u);  // 8 x 2^30
  EXPECT_EQ(json["budget_source"], "explicit");
}

TEST_F(HostCommand, MemoryLimitFromTheEnvironmentAndItsAlias) {
  testing::CommandResult memfit =
      run_memfit({"host", "--json"}, env({{"MEMFIT_MEMORY_LIMIT", "4G"}}));
  ASSERT_EQ(memfit.exit_code, 0) << memfit.err;
  EXPECT_EQ(nlohmann::json::parse(memfit.out)["budget_bytes"], 4294967296u);

  std::map<std::string, std::string> alias_only = env({{"MLXCEL_MEMORY_LIMIT", "512MiB"}});
  alias_only.erase("MEMFIT_MEMORY_LIMIT");
  // run_command adds to this process's environment; make sure
  // MEMFIT_MEMORY_LIMIT is not inherited either.
  ::unsetenv("MEMFIT_MEMORY_LIMIT");
  testing::CommandResult mlxcel = run_memfit({"host", "--json"}, alias_only);
  ASSERT_EQ(mlxcel.exit_code, 0) << mlxcel.err;
  nlohmann::json json = nlohmann::json::parse(mlxcel.out);
  EXPECT_EQ(json["budget_bytes"], 536870912u);  // 512 x 2^20
  EXPECT_EQ(json["budget_source"], "explicit");
}

TEST_F(HostCommand, InvalidEnvironmentLimitIsAWarning) {
  testing::CommandResult run =
      run_memfit({"host", "--json", "--device", "cpu"}, env({{"MEMFIT_MEMORY_LIMIT", "lots"}}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err,
            "memfit: warning: MEMFIT_MEMORY_LIMIT: memory size 'lots': expected a number and its "
            "unit: B, KB, MB, GB, TB (10^3 ...), KiB, MiB, GiB, TiB (2^10 ...); ignored\n");
  EXPECT_EQ(nlohmann::json::parse(run.out)["budget_source"], "cgroup");
}

TEST_F(HostCommand, BadMemoryLimitOptionIsAUsageError) {
  testing::CommandResult run = run_memfit({"host", "--memory-limit", "lots"}, env());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "memfit: host: --memory-limit: memory size 'lots': expected a number and its unit: B, "
            "KB, MB, GB, TB (10^3 ...), KiB, MiB, GiB, TiB (2^10 ...)\n");
}

TEST_F(HostCommand, TextIsATableInGib) {
  testing::CommandResult run = run_memfit({"host"}, env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "Host memory (linux)\n"
            "  RAM total                  16.00 GiB\n"
            "  available now              12.00 GiB   machine-wide\n"
            "  cgroup headroom             1.00 GiB   v2 /kubepods/pod1: limit 4.00 GiB, usage "
            "3.50 GiB, inactive file 0.50 GiB\n"
            "  this process can take       1.00 GiB\n"
            "  reserve for the OS          0.00 GiB\n"
            "  budget                     39.00 GiB   source gpu, device cuda:0\n"
            "GPUs\n"
            "  device   vendor           total           free  name\n"
            "  cuda:0   nvidia       40.00 GiB      39.00 GiB  Fake NVIDIA A100-SXM4-40GB\n"
            "  cuda:1   nvidia       24.00 GiB      20.00 GiB  Fake NVIDIA GeForce RTX 4090\n"
            "  rocm:0   amd         192.00 GiB     184.00 GiB  Fake AMD Instinct MI300X\n");
}

TEST_F(HostCommand, UnloadableNamedLibraryIsAWarning) {
  testing::CommandResult run = run_memfit(
      {"host", "--json"}, env({{"MEMFIT_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1"},
                               {"MEMFIT_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so"}}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["gpus"], nlohmann::json::array());
  EXPECT_EQ(json["device"], "cpu");
  EXPECT_EQ(json["budget_source"], "cgroup");
  EXPECT_EQ(json["warnings"].size(), 2u);
}

}  // namespace
}  // namespace memfit
