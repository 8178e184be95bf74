// Tests of parse_numbered_file_name: shard and split names, and what is not
// one.
#include "model/numbered_file_name.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

TEST(NumberedFileName, ReadsPrefixNumberCountAndWidths) {
  std::optional<NumberedFileName> n =
      parse_numbered_file_name("Qwen3-235B-A22B-Q4_K_M-00002-of-00005.gguf", ".gguf");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->prefix, "Qwen3-235B-A22B-Q4_K_M");
  EXPECT_EQ(n->number, 2u);
  EXPECT_EQ(n->count, 5u);
  EXPECT_EQ(n->number_digits, 5u);
  EXPECT_EQ(n->count_digits, 5u);
  // The prefix may be empty and i may lie outside 1..n: the callers decide.
  n = parse_numbered_file_name("-0-of-3.safetensors", ".safetensors");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->prefix, "");
  EXPECT_EQ(n->number, 0u);
}

TEST(NumberedFileName, RefusesWhatIsNotANumberedName) {
  for (const char* name : {"model-1-of-2.gguf.part", "model-1-of-0.gguf", "model-1-of-.gguf",
                           "model-x-of-2.gguf", "model1-of-2.gguf", "model-1-of-1234567890.gguf",
                           "model-+1-of-2.gguf", "model.gguf"}) {
    EXPECT_FALSE(parse_numbered_file_name(name, ".gguf").has_value()) << name;
  }
  // Nine digits is the most: 999,999,999 of 999,999,999.
  EXPECT_EQ(parse_numbered_file_name("m-999999999-of-999999999.gguf", ".gguf")->count, 999999999u);
  EXPECT_FALSE(parse_numbered_file_name("m-1-of-2.safetensors", ".gguf").has_value());
}

}  // namespace
}  // namespace memfit
