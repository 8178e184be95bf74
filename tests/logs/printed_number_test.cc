// Printed decimals converted exactly (runtime_log.h: parse_printed_decimal,
// scale_printed): the arithmetic of each case in its comment.
#include <gtest/gtest.h>

#include "memfit/runtime_log.h"

namespace memfit {
namespace {

TEST(PrintedDecimal, KeepsEveryDigitAndTheDecimals) {
  Result<PrintedDecimal> n = parse_printed_decimal("4403.49");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->digits, 440349u);
  EXPECT_EQ(n->decimals, 2u);
  // Separators dropped, leading zeros not significant: 386,320 and 0.05.
  EXPECT_EQ(*parse_printed_decimal("386,320"), (PrintedDecimal{386320, 0}));
  EXPECT_EQ(*parse_printed_decimal("0.05"), (PrintedDecimal{5, 2}));
}

TEST(PrintedDecimal, RefusesSignsExponentsAndTooManyDigits) {
  for (std::string_view text : {"", ".", "-2.14", "1e9", "1.2.3", "12345678901234567890", "0.0000000001"}) {
    Result<PrintedDecimal> n = parse_printed_decimal(text);
    EXPECT_FALSE(n.ok()) << text;
  }
  EXPECT_EQ(parse_printed_decimal("1e9").error().message(), "'1e9': not a decimal number");
}

TEST(ScalePrinted, MibFigureIsExactToTheByteWithItsBand) {
  // 4403.49 MiB = 440349 x 2^20 / 100 = 4,617,393,930.24 -> 4,617,393,930;
  // the band, half of 0.01 MiB, 2^20 / 200 = 5,242.88 -> 5,243.
  Result<ScaledValue> v = scale_printed(PrintedDecimal{440349, 2}, 1ull << 20);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->value, 4'617'393'930u);
  EXPECT_EQ(v->band, 5'243u);
}

TEST(ScalePrinted, RoundsHalfUpOnce) {
  // 1.95 MiB = 195 x 1,048,576 / 100 = 2,044,723.2 -> 2,044,723;
  // 0.5 B units: 0.5 x 1 = 0.5 -> 1 (half up), band 1 / 20 -> 1.
  EXPECT_EQ(scale_printed(PrintedDecimal{195, 2}, 1ull << 20)->value, 2'044'723u);
  EXPECT_EQ(scale_printed(PrintedDecimal{5, 1}, 1)->value, 1u);
  EXPECT_EQ(scale_printed(PrintedDecimal{5, 1}, 1)->band, 1u);
}

TEST(ScalePrinted, GigabytesAsTheRuntimeMeansThem) {
  // vLLM's "30.7098 GB" is GiB: 307098 x 2^30 / 10^4 = 32,974,396,667.0 (to
  // the byte: 20,608,997,916,672 / 625); mlx-lm's "13.523 GB" is 10^9:
  // 13,523,000,000 exactly, +- 500,000.
  EXPECT_EQ(scale_printed(PrintedDecimal{307098, 4}, 1ull << 30)->value, 32'974'396'667u);
  Result<ScaledValue> peak = scale_printed(PrintedDecimal{13523, 3}, 1'000'000'000ull);
  EXPECT_EQ(peak->value, 13'523'000'000u);
  EXPECT_EQ(peak->band, 500'000u);
}

TEST(ScalePrinted, OverflowIsAnError) {
  // 10^19 - 1 TiB is past 2^64 bytes.
  Result<ScaledValue> v = scale_printed(PrintedDecimal{9'999'999'999'999'999'999ull, 0}, 1ull << 40);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().kind(), ErrorKind::kOverflow);
}

}  // namespace
}  // namespace memfit
