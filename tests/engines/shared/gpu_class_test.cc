// A GPU's name read for its class (classify_gpu) and checked when given
// (parse_gpu_name): the names nvidia-smi and rocm-smi print.
#include "engines/shared/gpu_class.h"

#include <gtest/gtest.h>

#include <string>

#include "memfit/vllm.h"

namespace memfit {
namespace {

TEST(GpuClass, RealNamesFallInTheirFamilies) {
  // Hopper: FlashMLA's 64-token blocks; H100 and H200 (a GH200 says H200)
  // also take v0.7's large batch defaults, H800 and H20 do not.
  EXPECT_EQ(classify_gpu("NVIDIA H100 80GB HBM3"), GpuClass::kHopperH100H200);
  EXPECT_EQ(classify_gpu("NVIDIA H100 PCIe"), GpuClass::kHopperH100H200);
  EXPECT_EQ(classify_gpu("NVIDIA H200"), GpuClass::kHopperH100H200);
  EXPECT_EQ(classify_gpu("NVIDIA GH200 480GB"), GpuClass::kHopperH100H200);
  EXPECT_EQ(classify_gpu("NVIDIA H800"), GpuClass::kHopperOther);
  EXPECT_EQ(classify_gpu("NVIDIA H20"), GpuClass::kHopperOther);
  // Datacenter Blackwell (SM 10.x): FlashInfer MLA; a GB200 says B200.
  EXPECT_EQ(classify_gpu("NVIDIA B200"), GpuClass::kBlackwellDatacenter);
  EXPECT_EQ(classify_gpu("NVIDIA GB200"), GpuClass::kBlackwellDatacenter);
  EXPECT_EQ(classify_gpu("NVIDIA B300 SXM6 AC"), GpuClass::kBlackwellDatacenter);
  // An A100 takes vLLM's small batch defaults whatever its memory.
  EXPECT_EQ(classify_gpu("NVIDIA A100-SXM4-80GB"), GpuClass::kAmpereA100);
  EXPECT_EQ(classify_gpu("NVIDIA A100 80GB PCIe"), GpuClass::kAmpereA100);
  // Named, but no rule singles it out: the size rule alone (and v0.7's
  // small pair); no MLA forcing. A workstation Blackwell is SM 12.0, not
  // datacenter Blackwell.
  EXPECT_EQ(classify_gpu("NVIDIA GeForce RTX 4090"), GpuClass::kOther);
  EXPECT_EQ(classify_gpu("NVIDIA L40S"), GpuClass::kOther);
  EXPECT_EQ(classify_gpu("NVIDIA RTX PRO 6000 Blackwell Server Edition"), GpuClass::kOther);
  EXPECT_EQ(classify_gpu("AMD Instinct MI300X"), GpuClass::kOther);
  // Not named at all.
  EXPECT_EQ(classify_gpu(""), GpuClass::kUnknown);
}

TEST(GpuClass, CaseDoesNotMatterAndHopperIsBothKinds) {
  EXPECT_EQ(classify_gpu("nvidia h100 80gb hbm3"), GpuClass::kHopperH100H200);
  EXPECT_EQ(classify_gpu("H100"), GpuClass::kHopperH100H200);
  EXPECT_TRUE(is_hopper(GpuClass::kHopperH100H200));
  EXPECT_TRUE(is_hopper(GpuClass::kHopperOther));
  EXPECT_FALSE(is_hopper(GpuClass::kBlackwellDatacenter));
  EXPECT_FALSE(is_hopper(GpuClass::kAmpereA100));
  EXPECT_FALSE(is_hopper(GpuClass::kOther));
  EXPECT_FALSE(is_hopper(GpuClass::kUnknown));
}

TEST(GpuClass, AmdNamesAreTheRocmPlatforms) {
  // ROCm SMI's and vLLM logs' spellings.
  EXPECT_TRUE(names_amd_gpu("AMD Instinct MI300X"));
  EXPECT_TRUE(names_amd_gpu("AMD Radeon AI PRO R9700"));
  EXPECT_TRUE(names_amd_gpu("Radeon 8060S Graphics"));
  EXPECT_TRUE(names_amd_gpu("MI100"));
  EXPECT_TRUE(names_amd_gpu("mi355x"));
  EXPECT_TRUE(names_amd_gpu("gfx1151"));
  // NVIDIA's names, and "mi" that is not a model number.
  EXPECT_FALSE(names_amd_gpu("NVIDIA H100 80GB HBM3"));
  EXPECT_FALSE(names_amd_gpu("NVIDIA GeForce RTX 4090"));
  EXPECT_FALSE(names_amd_gpu("NVIDIA A100-SXM4-80GB"));
  EXPECT_FALSE(names_amd_gpu("Tesla T4 MIG 1g.5gb"));
  EXPECT_FALSE(names_amd_gpu("XMI300"));   // not a word of its own
  EXPECT_FALSE(names_amd_gpu("MI3"));      // one digit
  EXPECT_FALSE(names_amd_gpu("MI3000"));   // four digits
  EXPECT_FALSE(names_amd_gpu("gfx"));
  EXPECT_FALSE(names_amd_gpu(""));
}

TEST(GpuName, TakesPrintableAsciiUpTo128Bytes) {
  Result<std::string> h100 = parse_gpu_name("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100.ok()) << h100.error().message();
  EXPECT_EQ(*h100, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(parse_gpu_name(std::string(128, 'H')).ok());
  EXPECT_TRUE(parse_gpu_name("x").ok());
}

TEST(GpuName, RefusesEmptyBlankLongAndUnprintableNames) {
  const std::string expectation =
      ": expected a GPU's name as nvidia-smi prints it, e.g. \"NVIDIA H100 80GB HBM3\" (1 to 128 "
      "printable ASCII characters)";
  auto error = [](const std::string& text) {
    Result<std::string> r = parse_gpu_name(text);
    EXPECT_FALSE(r.ok()) << text;
    if (r.ok()) return std::string("accepted");
    EXPECT_EQ(r.error().kind(), ErrorKind::kUsage);
    return r.error().message();
  };
  EXPECT_EQ(error(""), "''" + expectation);
  EXPECT_EQ(error("   "), "'   '" + expectation);
  EXPECT_EQ(error("H100\n"), "'H100\\n'" + expectation);
  EXPECT_EQ(error("H100\x1b[31m"), "'H100\\x1b[31m'" + expectation);
  EXPECT_EQ(error("NVIDIA H100 \xc3\xa9"), "'NVIDIA H100 \xc3\xa9'" + expectation);
  EXPECT_EQ(error(std::string(129, 'H')), "'" + std::string(129, 'H') + "'" + expectation);
}

}  // namespace
}  // namespace memfit
