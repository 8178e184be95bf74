// Tests of GgufHeader's typed getters: what each accepts, and the message
// naming the key and its value when it does not.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

GgufHeader sample() {
  Result<GgufHeader> header = [] {
    const std::string bytes =
        GgufWriter()
            .add_string("general.architecture", "llama")
            .add_u32("llama.block_count", 32)
            .add_u8("small", 7)
            .add_i32("negative", -3)
            .add_i64("big_signed", 1ll << 40)
            .add_u64("huge", UINT64_MAX)
            .add_f32("llama.rope.freq_base", 500000.0f)
            .add_f64("f64", 0.25)
            .add_bool("flag", true)
            .add_u32_array("llama.attention.head_count_kv", {8, 8, 0, 4})
            .add_i32_array("signed_array", {1, -1})
            .add_f32_array("floats", {0.5f, 2.0f})
            .add_string_array("general.tags", {"a", "b"})
            .add_raw("u16_array", gguf_type::kArr,
                     gguf_array_prefix(gguf_type::kU16, 2) + gguf_le16(1) + gguf_le16(65535))
            .add_raw("long", gguf_type::kArr,
                     gguf_array_prefix(gguf_type::kI32, 65537) + std::string(65537 * 4, '\0'))
            .add_string_array("long_strings", std::vector<std::string>(1025, "t"))
            .add_raw("nested", gguf_type::kArr,
                     gguf_array_prefix(gguf_type::kArr, 1) + gguf_array_prefix(gguf_type::kU8, 0))
            .bytes();
    return parse_gguf_header(bytes, bytes.size());
  }();
  EXPECT_TRUE(header.ok()) << header.error().message();
  return header.ok() ? *header : GgufHeader{};
}

template <typename T>
std::string error_of(const Result<T>& result) {
  return result.ok() ? "ok" : result.error().message();
}

TEST(GgufMetadata, UnsignedIntegers) {
  const GgufHeader header = sample();
  EXPECT_EQ(header.get_uint64("llama.block_count").value(), 32u);
  EXPECT_EQ(header.get_uint64("small").value(), 7u);
  EXPECT_EQ(header.get_uint64("big_signed").value(), 1ull << 40);  // i64 >= 0
  EXPECT_EQ(header.get_uint64("huge").value(), UINT64_MAX);
  EXPECT_EQ(error_of(header.get_uint64("negative")),
            "gguf metadata: 'negative' is i32 -3, not a non-negative integer");
  EXPECT_EQ(error_of(header.get_uint64("llama.rope.freq_base")),
            "gguf metadata: 'llama.rope.freq_base' is f32 500000, not a non-negative integer");
  EXPECT_EQ(error_of(header.get_uint64("flag")),
            "gguf metadata: 'flag' is bool true, not a non-negative integer");
  EXPECT_EQ(error_of(header.get_uint64("llama.attention.head_count_kv")),
            "gguf metadata: 'llama.attention.head_count_kv' is an array of 4 u32, not a "
            "non-negative integer");
  EXPECT_EQ(error_of(header.get_uint64("llama.absent")),
            "gguf metadata: 'llama.absent' is missing");
}

TEST(GgufMetadata, SignedIntegers) {
  const GgufHeader header = sample();
  EXPECT_EQ(header.get_int64("negative").value(), -3);
  EXPECT_EQ(header.get_int64("llama.block_count").value(), 32);
  EXPECT_EQ(error_of(header.get_int64("huge")),
            "gguf metadata: 'huge' is u64 18446744073709551615, not an integer that fits int64");
}

TEST(GgufMetadata, Floats) {
  const GgufHeader header = sample();
  EXPECT_EQ(header.get_float("llama.rope.freq_base").value(), 500000.0);
  EXPECT_EQ(header.get_float("f64").value(), 0.25);
  EXPECT_EQ(header.get_float("llama.block_count").value(), 32.0);  // integers convert
  EXPECT_EQ(error_of(header.get_float("general.architecture")),
            "gguf metadata: 'general.architecture' is str 'llama', not a number");
}

TEST(GgufMetadata, BoolsAndStrings) {
  const GgufHeader header = sample();
  EXPECT_TRUE(header.get_bool("flag").value());
  EXPECT_EQ(error_of(header.get_bool("small")), "gguf metadata: 'small' is u8 7, not a bool");
  EXPECT_EQ(header.get_string("general.architecture").value(), "llama");
  EXPECT_EQ(error_of(header.get_string("llama.block_count")),
            "gguf metadata: 'llama.block_count' is u32 32, not a string");
}

TEST(GgufMetadata, ArrayCountsOfAnyArray) {
  const GgufHeader header = sample();
  EXPECT_EQ(header.get_array_count("llama.attention.head_count_kv").value(), 4u);
  EXPECT_EQ(header.get_array_count("long").value(), 65537u);
  EXPECT_EQ(header.get_array_count("long_strings").value(), 1025u);
  EXPECT_EQ(header.get_array_count("nested").value(), 1u);
  EXPECT_EQ(error_of(header.get_array_count("small")),
            "gguf metadata: 'small' is u8 7, not an array");
}

TEST(GgufMetadata, NumberArrays) {
  const GgufHeader header = sample();
  EXPECT_EQ(header.get_uint64_array("llama.attention.head_count_kv").value(),
            (std::vector<uint64_t>{8, 8, 0, 4}));
  EXPECT_EQ(header.get_uint64_array("u16_array").value(), (std::vector<uint64_t>{1, 65535}));
  EXPECT_EQ(header.get_int64_array("signed_array").value(), (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(header.get_float_array("floats").value(), (std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(header.get_float_array("signed_array").value(), (std::vector<double>{1.0, -1.0}));
  EXPECT_EQ(error_of(header.get_uint64_array("signed_array")),
            "gguf metadata: 'signed_array' element 1 is i32 -1, not a non-negative integer");
  EXPECT_EQ(error_of(header.get_uint64_array("floats")),
            "gguf metadata: 'floats' element 0 is f32 0.5, not a non-negative integer");
  EXPECT_EQ(error_of(header.get_uint64_array("general.tags")),
            "gguf metadata: 'general.tags' is an array of 2 str, not an array of non-negative "
            "integers");
  EXPECT_EQ(error_of(header.get_uint64_array("llama.block_count")),
            "gguf metadata: 'llama.block_count' is u32 32, not an array of non-negative "
            "integers");
  EXPECT_EQ(error_of(header.get_int64_array("long")),
            "gguf metadata: 'long' is an array of 65537 i32, longer than memfit keeps (65536 "
            "elements)");
  EXPECT_EQ(error_of(header.get_float_array("nested")),
            "gguf metadata: 'nested' is an array of 1 arr, not an array of numbers");
}

TEST(GgufMetadata, StringArrays) {
  const GgufHeader header = sample();
  EXPECT_EQ(header.get_string_array("general.tags").value(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(error_of(header.get_string_array("long_strings")),
            "gguf metadata: 'long_strings' is an array of 1025 str, longer than memfit keeps "
            "(1024 elements)");
  EXPECT_EQ(error_of(header.get_string_array("floats")),
            "gguf metadata: 'floats' is an array of 2 f32, not an array of strings");
}

TEST(GgufMetadata, KeysInMessagesAreEscaped) {
  const std::string bytes = GgufWriter().add_u8("a\nb", 1).bytes();
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(error_of(header->get_string("a\nb")), "gguf metadata: 'a\\nb' is u8 1, not a string");
}

}  // namespace
}  // namespace memfit
