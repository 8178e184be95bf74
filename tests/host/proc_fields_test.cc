// The kernel text formats under /proc and /sys.
#include "host/proc_fields.h"

#include <gtest/gtest.h>

namespace memfit::host {
namespace {

constexpr std::string_view kMeminfo =
    "MemTotal:       16318412 kB\n"
    "MemFree:         1044060 kB\n"
    "MemAvailable:   12582912 kB\n"
    "Mlocked:              64 kB\n"
    "HugePages_Total:       0\n";

TEST(HostProcFields, KibFieldIsBytes) {
  // 12582912 kB x 1024 = 12884901888 bytes (12 GiB).
  Result<std::optional<uint64_t>> available = find_kib_field(kMeminfo, "MemAvailable");
  ASSERT_TRUE(available.ok());
  EXPECT_EQ(*available, std::optional<uint64_t>(12884901888ull));
  // 16318412 x 1024 = 16710053888.
  EXPECT_EQ(*find_kib_field(kMeminfo, "MemTotal"), std::optional<uint64_t>(16710053888ull));
  EXPECT_EQ(*find_kib_field(kMeminfo, "Mlocked"), std::optional<uint64_t>(65536));
}

TEST(HostProcFields, KibFieldNameMustMatchWhole) {
  EXPECT_EQ(*find_kib_field(kMeminfo, "Mem"), std::nullopt);
  EXPECT_EQ(*find_kib_field(kMeminfo, "MemTotal:"), std::nullopt);
  EXPECT_EQ(*find_kib_field(kMeminfo, "SwapTotal"), std::nullopt);
  EXPECT_EQ(*find_kib_field("", "MemTotal"), std::nullopt);
}

TEST(HostProcFields, KibFieldWithoutUnitIsAnError) {
  Result<std::optional<uint64_t>> pages = find_kib_field(kMeminfo, "HugePages_Total");
  ASSERT_FALSE(pages.ok());
  EXPECT_EQ(pages.error().message(), "HugePages_Total \"0\": expected a number of kB");
}

TEST(HostProcFields, KibFieldThatIsNotANumberIsAnError) {
  Result<std::optional<uint64_t>> bad = find_kib_field("MemAvailable:  12x kB\n", "MemAvailable");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "MemAvailable \"12x kB\": expected a number of kB");
  Result<std::optional<uint64_t>> negative = find_kib_field("MemAvailable: -5 kB", "MemAvailable");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().message(), "MemAvailable \"-5 kB\": expected a number of kB");
}

TEST(HostProcFields, ValueInAnErrorIsEscaped) {
  // A fake sysroot (MEMFIT_SYSROOT) is any folder: its text is untrusted.
  Result<std::optional<uint64_t>> kib = find_kib_field("MemTotal: 1\x1b[2J kB\n", "MemTotal");
  ASSERT_FALSE(kib.ok());
  EXPECT_EQ(kib.error().message(), "MemTotal \"1\\x1b[2J kB\": expected a number of kB");
  Result<std::optional<uint64_t>> stat = find_stat_field("inactive_file 1\r2\n", "inactive_file");
  ASSERT_FALSE(stat.ok());
  EXPECT_EQ(stat.error().message(), "inactive_file \"1\\r2\": expected a number");
}

TEST(HostProcFields, KibFieldOverflowingBytesIsAnError) {
  // 18014398509481984 kB = 2^54 KiB = 2^64 bytes: one past UINT64_MAX.
  Result<std::optional<uint64_t>> huge =
      find_kib_field("MemTotal: 18014398509481984 kB\n", "MemTotal");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message(), "MemTotal \"18014398509481984 kB\": too large");
  // 2^54 - 1 KiB fits: 18446744073709550592 bytes.
  EXPECT_EQ(*find_kib_field("MemTotal: 18014398509481983 kB", "MemTotal"),
            std::optional<uint64_t>(18446744073709550592ull));
}

TEST(HostProcFields, StatFieldMatchesWholeKey) {
  constexpr std::string_view kStat =
      "inactive_file 100\n"
      "total_inactive_file 536870912\n";
  EXPECT_EQ(*find_stat_field(kStat, "inactive_file"), std::optional<uint64_t>(100));
  EXPECT_EQ(*find_stat_field(kStat, "total_inactive_file"), std::optional<uint64_t>(536870912));
  EXPECT_EQ(*find_stat_field(kStat, "active_file"), std::nullopt);
  Result<std::optional<uint64_t>> bad = find_stat_field("inactive_file lots\n", "inactive_file");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "inactive_file \"lots\": expected a number");
}

TEST(HostProcFields, DecimalMustBeTheWholeToken) {
  EXPECT_EQ(parse_decimal("9223372036854771712"), std::optional<uint64_t>(9223372036854771712ull));
  EXPECT_EQ(parse_decimal("18446744073709551615"), std::optional<uint64_t>(UINT64_MAX));
  EXPECT_EQ(parse_decimal("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_decimal(""), std::nullopt);
  EXPECT_EQ(parse_decimal("+1"), std::nullopt);
  EXPECT_EQ(parse_decimal(" 1"), std::nullopt);
  EXPECT_EQ(parse_decimal("1 "), std::nullopt);
  EXPECT_EQ(parse_decimal("max"), std::nullopt);
}

}  // namespace
}  // namespace memfit::host
