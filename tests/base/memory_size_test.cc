// parse_memory_size and parse_multiplier_micros: every unit form of
// MEMFIT_MEMORY_LIMIT and the multipliers' fixed-point conversion.
#include <gtest/gtest.h>

#include "memfit/memory_size.h"
#include "memfit/settings.h"

namespace memfit {
namespace {

uint64_t size_of(std::string_view text) {
  Result<std::optional<uint64_t>> r = parse_memory_size(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message());
  EXPECT_TRUE(r.ok() && r->has_value()) << text;
  return r.ok() && r->has_value() ? **r : 0;
}

TEST(MemorySize, BinaryUnitsAreAllTheSame) {
  const uint64_t k48GiB = 48ull << 30;  // 51,539,607,552
  EXPECT_EQ(size_of("48GB"), k48GiB);
  EXPECT_EQ(size_of("48G"), k48GiB);
  EXPECT_EQ(size_of("48GiB"), k48GiB);
  EXPECT_EQ(size_of("48gb"), k48GiB);
  EXPECT_EQ(size_of("48gib"), k48GiB);
  EXPECT_EQ(size_of(" 48 GB "), k48GiB);
}

TEST(MemorySize, OtherUnitsAndRawBytes) {
  EXPECT_EQ(size_of("512MB"), 512ull << 20);  // 536,870,912
  EXPECT_EQ(size_of("512M"), 536870912u);
  EXPECT_EQ(size_of("4G"), 4294967296u);
  EXPECT_EQ(size_of("4GiB"), 4294967296u);
  EXPECT_EQ(size_of("2T"), 2ull << 40);
  EXPECT_EQ(size_of("64K"), 65536u);
  EXPECT_EQ(size_of("123456789"), 123456789u);
  EXPECT_EQ(size_of("1000B"), 1000u);
  // 1.5 x 2^30 = 1,610,612,736
  EXPECT_EQ(size_of("1.5G"), 1610612736u);
}

TEST(MemorySize, ZeroNoneAndEmptyMeanUnset) {
  for (std::string_view text : {"0", "none", "NONE", "", "  ", "0GB"}) {
    Result<std::optional<uint64_t>> r = parse_memory_size(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_FALSE(r->has_value()) << text;
  }
}

TEST(MemorySize, GarbageIsAnError) {
  for (std::string_view text : {"lots", "12XB", "-4G", "4 G B", "G", "1.2.3G"}) {
    EXPECT_FALSE(parse_memory_size(text).ok()) << text;
  }
  Result<std::optional<uint64_t>> r = parse_memory_size("12XB");
  EXPECT_EQ(r.error().message(),
            "memory size '12XB': expected bytes or a number with K, M, G or T (binary units)");
}

TEST(MemorySize, TheTextInAnErrorIsEscaped) {
  // The text may come from an HTTP body or the environment.
  EXPECT_EQ(parse_memory_size("4\x1b[2JGB").error().message(),
            "memory size '4\\x1b[2JGB': expected bytes or a number with K, M, G or T (binary "
            "units)");
  EXPECT_EQ(parse_multiplier_micros("1\n2").error().message(), "'1\\n2' is not a number");
}

TEST(MemorySize, OverflowIsAnError) {
  EXPECT_FALSE(parse_memory_size("99999999999999999999").ok());
  EXPECT_FALSE(parse_memory_size("20000000T").ok());  // 2e7 x 2^40 > 2^64
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
