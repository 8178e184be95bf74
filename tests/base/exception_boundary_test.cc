// without_exceptions: the last line of defence at a public function.
#include "base/exception_boundary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace memfit {
namespace {

TEST(WithoutExceptions, PassesValuesAndErrorsThrough) {
  Result<int> value = without_exceptions("f", [] { return Result<int>(7); });
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 7);
  Result<int> error = without_exceptions("f", [] { return Result<int>(Error("bad input")); });
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().message(), "bad input");
}

TEST(WithoutExceptions, AJsonTypeErrorBecomesAnInternalError) {
  // The bug of issue 10: value("model_type", "") on {"model_type": 5}.
  Result<std::string> r = without_exceptions("parse_model_config", [] {
    const nlohmann::json config = nlohmann::json::parse(R"({"model_type": 5})");
    return Result<std::string>(config.value("model_type", ""));
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "internal error in parse_model_config: [json.exception.type_error.302] type must be "
            "string, but is number");
}

TEST(WithoutExceptions, TheExceptionTextIsEscaped) {
  Status s = without_exceptions("g", []() -> Status { throw std::runtime_error("line\nbreak"); });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "internal error in g: line\\nbreak");
  Status odd = without_exceptions("h", []() -> Status { throw 42; });
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().message(),
            "internal error in h: an exception that is not a std::exception");
}

}  // namespace
}  // namespace memfit
