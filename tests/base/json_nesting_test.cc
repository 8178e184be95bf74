// json_nesting_depth: brackets outside strings, measured before parsing.
#include "base/json_nesting.h"

#include <gtest/gtest.h>

#include <string>

namespace memfit {
namespace {

TEST(JsonNesting, CountsArraysAndObjects) {
  EXPECT_EQ(json_nesting_depth("5", 10), 0);
  EXPECT_EQ(json_nesting_depth("{}", 10), 1);
  EXPECT_EQ(json_nesting_depth(R"({"a":[1,{"b":[]}],"c":{}})", 10), 4);
}

TEST(JsonNesting, BracketsInsideStringsDoNotCount) {
  EXPECT_EQ(json_nesting_depth(R"({"[[[[":"{{{{"})", 10), 1);
  // An escaped quote does not end the string: the brackets after it are text.
  EXPECT_EQ(json_nesting_depth(R"({"a\"[[[[":1})", 10), 1);
  EXPECT_EQ(json_nesting_depth(R"({"a\\":[[1]]})", 10), 3);
}

TEST(JsonNesting, StopsOncePastTheLimit) {
  const std::string deep(1'000'000, '[');
  EXPECT_EQ(json_nesting_depth(deep, 64), 65);
  EXPECT_EQ(json_nesting_depth(std::string(64, '[') + std::string(64, ']'), 64), 64);
}

}  // namespace
}  // namespace memfit
