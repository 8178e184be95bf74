// parse_cpuinfo() on /proc/cpuinfo texts as x86 and arm64 kernels write
// them, and read_cpu_features() through the same SysrootFiles reader the
// host query uses.
#include "memfit/cpu_features.h"

#include <gtest/gtest.h>

#include "host/host_status.h"
#include "support/fake_sysroot.h"

namespace memfit::host {
namespace {

using memfit::testing::FakeSysroot;
using memfit::testing::RecordingHostFiles;

// An AMD EPYC (Zen 4), trimmed: two processors, AVX2 and AVX-512, no AMX.
constexpr std::string_view kZen4 =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "model name\t: AMD EPYC 9R14\n"
    "flags\t\t: fpu vme sse sse2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_bf16\n"
    "bugs\t\t: sysret_ss_attrs\n"
    "\n"
    "processor\t: 1\n"
    "flags\t\t: fpu vme sse sse2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_bf16\n";

// A Haswell-era Intel: AVX2 only ("avx512" words that are not avx512f do
// not count).
constexpr std::string_view kHaswell =
    "processor\t: 0\n"
    "flags\t\t: fpu sse2 avx avx2 bmi2 avx512_vnni_absent\n";

// A Sapphire Rapids: AMX-INT8 as well.
constexpr std::string_view kSapphireRapids =
    "processor\t: 0\n"
    "flags\t\t: fpu avx2 avx512f avx512_fp16 amx_bf16 amx_tile amx_int8\n";

// An AWS Graviton3 (arm64): "Features" with asimddp and i8mm.
constexpr std::string_view kGraviton3 =
    "processor\t: 0\n"
    "BogoMIPS\t: 2100.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
    "asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat "
    "ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng\n"
    "CPU implementer\t: 0x41\n";

// A Cortex-A53 (arm64 without dot product).
constexpr std::string_view kCortexA53 =
    "processor\t: 0\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n";

TEST(CpuFeatures, X86FlagsLine) {
  CpuFeatures zen4 = parse_cpuinfo(kZen4);
  EXPECT_EQ(zen4.arch, CpuFeatures::Arch::kX86);
  EXPECT_TRUE(zen4.avx2);
  EXPECT_TRUE(zen4.avx512f);
  EXPECT_FALSE(zen4.amx_int8);

  CpuFeatures haswell = parse_cpuinfo(kHaswell);
  EXPECT_TRUE(haswell.avx2);
  EXPECT_FALSE(haswell.avx512f);

  EXPECT_TRUE(parse_cpuinfo(kSapphireRapids).amx_int8);
}

TEST(CpuFeatures, ArmFeaturesLine) {
  CpuFeatures graviton = parse_cpuinfo(kGraviton3);
  EXPECT_EQ(graviton.arch, CpuFeatures::Arch::kArm);
  EXPECT_TRUE(graviton.asimddp);
  EXPECT_TRUE(graviton.i8mm);  // the whole word, not "svei8mm"

  CpuFeatures a53 = parse_cpuinfo(kCortexA53);
  EXPECT_EQ(a53.arch, CpuFeatures::Arch::kArm);
  EXPECT_FALSE(a53.asimddp);
  EXPECT_FALSE(a53.i8mm);
  // "svei8mm" alone is not i8mm.
  EXPECT_FALSE(parse_cpuinfo("Features : asimd svei8mm\n").i8mm);
}

TEST(CpuFeatures, NoFlagLineIsUnknown) {
  EXPECT_EQ(parse_cpuinfo("").arch, CpuFeatures::Arch::kUnknown);
  EXPECT_EQ(parse_cpuinfo("processor\t: 0\nmodel name\t: something\n").arch,
            CpuFeatures::Arch::kUnknown);
  // A name that merely contains "flags" is not the flags line.
  EXPECT_EQ(parse_cpuinfo("vmx flags\t: ept vpid\n").arch, CpuFeatures::Arch::kUnknown);
}

TEST(CpuFeatures, ReadsProcCpuinfoUnderTheSysroot) {
  FakeSysroot root;
  root.write("/proc/cpuinfo", kGraviton3);
  SysrootFiles sysroot(root.path());
  RecordingHostFiles files(sysroot);
  CpuFeatures cpu = read_cpu_features(files);
  EXPECT_EQ(cpu.arch, CpuFeatures::Arch::kArm);
  EXPECT_TRUE(cpu.i8mm);
  EXPECT_EQ(files.paths_read(), std::vector<std::string>{"/proc/cpuinfo"});

  FakeSysroot empty;  // no /proc/cpuinfo (macOS, Windows): unknown, not an error
  SysrootFiles none(empty.path());
  EXPECT_EQ(read_cpu_features(none).arch, CpuFeatures::Arch::kUnknown);
}

}  // namespace
}  // namespace memfit::host
