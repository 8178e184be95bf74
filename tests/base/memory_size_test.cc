// parse_memory_size and parse_multiplier_micros: every unit form of
// MEMFIT_MEMORY_LIMIT (GB decimal, GiB and G binary, a bare number
// refused) and the multipliers' fixed-point conversion.
#include <gtest/gtest.h>

#include "memfit/memory_size.h"
#include "memfit/mlxcel_settings.h"

namespace memfit {
namespace {

uint64_t size_of(std::string_view text) {
  Result<std::optional<uint64_t>> r = parse_memory_size(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message());
  EXPECT_TRUE(r.ok() && r->has_value()) << text;
  return r.ok() && r->has_value() ? **r : 0;
}

TEST(MemorySize, BinaryUnits) {
  const uint64_t k48GiB = 48ull << 30;  // 51,539,607,552
  EXPECT_EQ(size_of("48GiB"), k48GiB);
  EXPECT_EQ(size_of("48G"), k48GiB);
  EXPECT_EQ(size_of("48gib"), k48GiB);
  EXPECT_EQ(size_of("48g"), k48GiB);
  EXPECT_EQ(size_of(" 48 GiB "), k48GiB);
  EXPECT_EQ(size_of("512MiB"), 512ull << 20);  // 536,870,912
  EXPECT_EQ(size_of("512M"), 536870912u);
  EXPECT_EQ(size_of("2T"), 2ull << 40);
  EXPECT_EQ(size_of("2TiB"), 2ull << 40);
  EXPECT_EQ(size_of("64K"), 65536u);
  EXPECT_EQ(size_of("64KiB"), 65536u);
  // 1.5 x 2^30 = 1,610,612,736
  EXPECT_EQ(size_of("1.5G"), 1610612736u);
}

TEST(MemorySize, DecimalUnitsAreSi) {
  // What GPU makers and disks say: 80GB is 80 x 10^9, not 80 x 2^30
  // (85,899,345,920); an H100 "80GB" reports 81,559 MiB = 85,520,809,984 B.
  EXPECT_EQ(size_of("80GB"), 80'000'000'000u);
  EXPECT_EQ(size_of("80gb"), 80'000'000'000u);
  EXPECT_EQ(size_of("512MB"), 512'000'000u);
  EXPECT_EQ(size_of("64KB"), 64'000u);
  EXPECT_EQ(size_of("2TB"), 2'000'000'000'000u);
  // Fractions are exact, rounded up to a byte: 1.1 x 10^9; 1.5 x 2^20 =
  // 1,572,864; 0.3B is a byte.
  EXPECT_EQ(size_of("1.1GB"), 1'100'000'000u);
  EXPECT_EQ(size_of("1.5MiB"), 1'572'864u);
  EXPECT_EQ(size_of("0.3B"), 1u);
  EXPECT_EQ(size_of("1000B"), 1000u);
  EXPECT_EQ(size_of("81559MiB"), 85'520'809'984u);
}

TEST(MemorySize, ABareNumberNeedsItsUnit) {
  // "--memory-limit 16" was 16 bytes; now it says which 16 was meant.
  Result<std::optional<uint64_t>> r = parse_memory_size("16");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(r.error().message(), "'16': a size needs its unit: 16GiB (16 x 2^30 bytes), 16GB (16 x 10^9) or 16B");
  EXPECT_EQ(parse_memory_size("1.5").error().message(),
            "'1.5': a size needs its unit: 1.5GiB (1.5 x 2^30 bytes), 1.5GB (1.5 x 10^9) or 1.5B");
  // A field whose runtime flag counts bytes takes one.
  Result<std::optional<uint64_t>> bytes = parse_memory_size("123456789", BareNumber::kBytes);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(**bytes, 123456789u);
}

TEST(MemorySize, ZeroNoneAndEmptyMeanUnset) {
  for (std::string_view text : {"0", "none", "NONE", "", "  ", "0GB", "0GiB"}) {
    Result<std::optional<uint64_t>> r = parse_memory_size(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_FALSE(r->has_value()) << text;
  }
}

TEST(MemorySize, GarbageIsAnError) {
  for (std::string_view text : {"lots", "12XB", "-4G", "4 G B", "G", "1.2.3G", ".5G", "1.GB",
                                "1.0000000001GB"}) {
    EXPECT_FALSE(parse_memory_size(text).ok()) << text;
  }
  Result<std::optional<uint64_t>> r = parse_memory_size("12XB");
  EXPECT_EQ(r.error().message(),
            "memory size '12XB': expected a number and its unit: B, KB, MB, GB, TB (10^3 ...), "
            "KiB, MiB, GiB, TiB (2^10 ...)");
}

TEST(MemorySize, TheTextInAnErrorIsEscaped) {
  // The text may come from an HTTP body or the environment.
  EXPECT_EQ(parse_memory_size("4\x1b[2JGB").error().message(),
            "memory size '4\\x1b[2JGB': expected a number and its unit: B, KB, MB, GB, TB (10^3 "
            "...), KiB, MiB, GiB, TiB (2^10 ...)");
  EXPECT_EQ(parse_multiplier_micros("1\n2").error().message(), "'1\\n2' is not a number");
}

TEST(MemorySize, OverflowIsAnError) {
  EXPECT_FALSE(parse_memory_size("99999999999999999999B").ok());
  EXPECT_FALSE(parse_memory_size("20000000T").ok());  // 2e7 x 2^40 > 2^64
  EXPECT_FALSE(parse_memory_size("18446744073.709551616GB").ok());  // 2^64 bytes
  EXPECT_EQ(size_of("18446744073.709551615GB"), UINT64_MAX);
}

TEST(Multiplier, DecimalsAreExactInMillionths) {
  EXPECT_EQ(*parse_multiplier_micros("1.20"), 1200000u);
  EXPECT_EQ(*parse_multiplier_micros("1.2"), 1200000u);
  EXPECT_EQ(*parse_multiplier_micros("2"), 2000000u);
  EXPECT_EQ(*parse_multiplier_micros("0.5"), 500000u);
  EXPECT_EQ(*parse_multiplier_micros("1.5e0"), 1500000u);
}

TEST(Multiplier, NonPositiveAndGarbageFail) {
  for (std::string_view text : {"0", "-1", "abc", "", "1.2x", "nan", "inf"}) {
    EXPECT_FALSE(parse_multiplier_micros(text).ok()) << text;
  }
}

}  // namespace
}  // namespace memfit
