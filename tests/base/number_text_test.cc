// parse_double (memfit/number_text.h) and its stream path
// (base/number_text_stream.h): each text below read by both, so the
// macOS (libc++) path is checked on every build.
#include <gtest/gtest.h>

#include <optional>
#include <string_view>

#include "base/number_text_stream.h"
#include "memfit/number_text.h"

namespace memfit {
namespace {

using Parse = std::optional<double> (*)(std::string_view);

class NumberText : public ::testing::TestWithParam<Parse> {};

TEST_P(NumberText, TakesDecimalNumbers) {
  const Parse parse = GetParam();
  EXPECT_EQ(parse("0.9"), 0.9);
  EXPECT_EQ(parse("24"), 24.0);
  EXPECT_EQ(parse("-2"), -2.0);
  EXPECT_EQ(parse("1."), 1.0);
  EXPECT_EQ(parse(".5"), 0.5);
  EXPECT_EQ(parse("0"), 0.0);
  EXPECT_EQ(parse("0e5"), 0.0);      // 0 x 10^5: a zero, not an underflow
  EXPECT_EQ(parse("1e3"), 1000.0);   // 1 x 10^3
  EXPECT_EQ(parse("2.5E+2"), 250.0);  // 2.5 x 100
  EXPECT_EQ(parse("125e-3"), 0.125);  // 125 / 1000, exact in binary
  EXPECT_EQ(parse("0.1"), 0.1);       // correctly rounded, as the literal is
}

TEST_P(NumberText, RefusesTheRest) {
  const Parse parse = GetParam();
  for (std::string_view text : {"", "1e", "1e+", "e5", ".", "-", "--1", "+1", " 1", "1 ", "1.5x",
                                "1.2.3", "0x10", "inf", "-inf", "infinity", "nan", "NAN", "1,5"}) {
    EXPECT_EQ(parse(text), std::nullopt) << "'" << text << "'";
  }
}

TEST_P(NumberText, RefusesWhatOverflowsOrUnderflowsToZero) {
  const Parse parse = GetParam();
  EXPECT_EQ(parse("1e999"), std::nullopt);    // past the double's ~1.8e308
  EXPECT_EQ(parse("-1e999"), std::nullopt);
  EXPECT_EQ(parse("1e-400"), std::nullopt);   // below the smallest subnormal, ~4.9e-324
  EXPECT_EQ(parse("1.7e308"), 1.7e308);       // the largest decade that fits
}

INSTANTIATE_TEST_SUITE_P(BothPaths, NumberText, ::testing::Values(&parse_double, &parse_double_by_stream));

}  // namespace
}  // namespace memfit
