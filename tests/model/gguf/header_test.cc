// Tests of the GGUF header parser: the layout, every metadata value type,
// alignment, ggml's tensor layout rule, and the error text of each broken
// header. Byte positions in the expected messages are worked out in the
// comments: the preamble is 24 bytes (magic 4, version 4, two counts 8
// each); a string is its 8-byte length then its bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

std::string preamble(uint32_t version, uint64_t tensors, uint64_t entries) {
  return "GGUF" + gguf_le32(version) + gguf_le64(tensors) + gguf_le64(entries);
}

// The error text of parsing `bytes` as a whole file, or "ok".
std::string error_of(std::string_view bytes) {
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  return header.ok() ? "ok" : header.error().message();
}

GgufHeader parsed(std::string_view bytes) {
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  EXPECT_TRUE(header.ok()) << header.error().message();
  return header.ok() ? *header : GgufHeader{};
}

template <typename T>
T value_of(const GgufHeader& header, std::string_view key) {
  const GgufValue* value = header.find(key);
  EXPECT_NE(value, nullptr) << key;
  return value == nullptr ? T{} : std::get<T>(value->data);
}

// --- Valid files -------------------------------------------------------------

TEST(GgufHeader, EmptyFileIsJustThePreamble) {
  GgufHeader header = parsed(preamble(3, 0, 0));
  EXPECT_EQ(header.version, 3u);
  EXPECT_EQ(header.file_bytes, 24u);
  EXPECT_EQ(header.header_bytes, 24u);
  EXPECT_EQ(header.data_offset_bytes, 24u);  // no tensor: no padding
  EXPECT_EQ(header.alignment_bytes, 32u);
  EXPECT_TRUE(header.metadata.empty());
  EXPECT_TRUE(header.tensors.empty());
  EXPECT_EQ(header.tensor_bytes, 0u);
}

TEST(GgufHeader, VersionTwoReadsAsThree) { EXPECT_EQ(parsed(preamble(2, 0, 0)).version, 2u); }

TEST(GgufHeader, TensorsAreLaidOutAsGgmlLaysThemOut) {
  const std::string bytes = GgufWriter()
                                .add_string("general.architecture", "llama")
                                .add_tensor("blk.0.attn_q.weight", GgmlType::kQ4_K, {256, 4})
                                .add_tensor("blk.0.attn_norm.weight", GgmlType::kF32, {10})
                                .bytes();
  // Preamble 24; the entry 8 + 20 + 4 + 8 + 5 = 45 (69); the Q4_K info
  // 8 + 19 + 4 + 2 x 8 + 4 + 8 = 59 (128); the F32 info 8 + 22 + 4 + 8 + 4
  // + 8 = 54 (182); padding to 192. Q4_K [256, 4]: 1 block of 144 bytes a
  // row x 4 = 576 at offset 0; F32 [10]: 40 bytes at offset 576, padded to
  // 64: a data section of 640, a file of 832.
  ASSERT_EQ(bytes.size(), 832u);
  GgufHeader header = parsed(bytes);
  EXPECT_EQ(header.header_bytes, 182u);
  EXPECT_EQ(header.data_offset_bytes, 192u);
  EXPECT_EQ(header.data_section_bytes, 640u);
  EXPECT_EQ(header.tensor_bytes, 616u);  // 576 + 40
  ASSERT_EQ(header.tensors.size(), 2u);
  const GgufTensorInfo& q = header.tensors[0];
  EXPECT_EQ(q.name, "blk.0.attn_q.weight");
  EXPECT_EQ(q.type, GgmlType::kQ4_K);
  EXPECT_EQ(q.n_dims, 2u);
  EXPECT_EQ(std::vector<uint64_t>(q.shape().begin(), q.shape().end()),
            (std::vector<uint64_t>{256, 4}));
  EXPECT_EQ(q.dims[2], 1u);
  EXPECT_EQ(q.offset_bytes, 0u);
  EXPECT_EQ(q.data_bytes, 576u);
  EXPECT_EQ(header.tensors[1].offset_bytes, 576u);
  EXPECT_EQ(header.tensors[1].data_bytes, 40u);
  EXPECT_EQ(value_of<std::string>(header, "general.architecture"), "llama");
}

TEST(GgufHeader, LastTensorsPaddingMayBeMissing) {
  // One F32 [10] tensor: infos end at 24 + 33 = 57, data starts at 64; its
  // 40 bytes end at 104, its padding at 128. A file cut at 104 still holds
  // every tensor, as llama.cpp requires.
  const std::string bytes = GgufWriter().add_tensor("a", GgmlType::kF32, {10}).bytes();
  ASSERT_EQ(bytes.size(), 128u);
  GgufHeader header = parsed(bytes.substr(0, 104));
  EXPECT_EQ(header.data_offset_bytes, 64u);
  EXPECT_EQ(header.data_section_bytes, 64u);
  EXPECT_EQ(header.tensor_bytes, 40u);
}

TEST(GgufHeader, EveryScalarValueType) {
  GgufHeader header = parsed(GgufWriter()
                                 .add_u8("u8", 200)
                                 .add_i8("i8", -100)
                                 .add_u16("u16", 60000)
                                 .add_i16("i16", -30000)
                                 .add_u32("u32", 4000000000u)
                                 .add_i32("i32", -2000000000)
                                 .add_f32("f32", 1.5f)
                                 .add_bool("bool", true)
                                 .add_string("str", "h\xc3\xa9llo")
                                 .add_u64("u64", UINT64_MAX)
                                 .add_i64("i64", INT64_MIN)
                                 .add_f64("f64", 0.1)
                                 .bytes());
  ASSERT_EQ(header.metadata.size(), 12u);
  EXPECT_EQ(header.metadata[0].key, "u8");  // file order
  EXPECT_EQ(header.metadata[11].key, "f64");
  EXPECT_EQ(header.find("u8")->type, GgufValueType::kUint8);
  EXPECT_EQ(value_of<uint64_t>(header, "u8"), 200u);
  EXPECT_EQ(header.find("i8")->type, GgufValueType::kInt8);
  EXPECT_EQ(value_of<int64_t>(header, "i8"), -100);
  EXPECT_EQ(value_of<uint64_t>(header, "u16"), 60000u);
  EXPECT_EQ(value_of<int64_t>(header, "i16"), -30000);
  EXPECT_EQ(value_of<uint64_t>(header, "u32"), 4000000000u);
  EXPECT_EQ(value_of<int64_t>(header, "i32"), -2000000000);
  EXPECT_EQ(header.find("f32")->type, GgufValueType::kFloat32);
  EXPECT_EQ(value_of<double>(header, "f32"), 1.5);
  EXPECT_EQ(value_of<bool>(header, "bool"), true);
  EXPECT_EQ(value_of<std::string>(header, "str"), "h\xc3\xa9llo");
  EXPECT_EQ(value_of<uint64_t>(header, "u64"), UINT64_MAX);
  EXPECT_EQ(value_of<int64_t>(header, "i64"), INT64_MIN);
  EXPECT_EQ(header.find("f64")->type, GgufValueType::kFloat64);
  EXPECT_EQ(value_of<double>(header, "f64"), 0.1);
  EXPECT_EQ(header.find("absent"), nullptr);
}

TEST(GgufHeader, BoolIsAnyNonZeroByteAsInGgml) {
  GgufHeader header = parsed(GgufWriter()
                                 .add_raw("b0", gguf_type::kBool, std::string(1, '\0'))
                                 .add_raw("b2", gguf_type::kBool, "\x02")
                                 .bytes());
  EXPECT_EQ(value_of<bool>(header, "b0"), false);
  EXPECT_EQ(value_of<bool>(header, "b2"), true);
}

TEST(GgufHeader, ArraysKeepTheirNumbersAsTheFileStoresThem) {
  GgufHeader header = parsed(
      GgufWriter()
          .add_u32_array("heads", {32, 32, 8})
          .add_raw("signed", gguf_type::kArr, gguf_array_prefix(gguf_type::kI8, 2) + "\xff\x01")
          .add_string_array("tags", {"a", "bc"})
          .add_f32_array("empty", {})
          .bytes());
  const auto& heads = value_of<GgufArray>(header, "heads");
  EXPECT_EQ(heads.element_type, GgufValueType::kUint32);
  EXPECT_EQ(heads.count, 3u);
  EXPECT_TRUE(heads.kept);
  EXPECT_EQ(heads.number_bytes, gguf_le32(32) + gguf_le32(32) + gguf_le32(8));
  const auto& signed_bytes = value_of<GgufArray>(header, "signed");
  EXPECT_EQ(signed_bytes.number_bytes, "\xff\x01");
  const auto& tags = value_of<GgufArray>(header, "tags");
  EXPECT_EQ(tags.element_type, GgufValueType::kString);
  EXPECT_TRUE(tags.kept);
  EXPECT_EQ(tags.strings, (std::vector<std::string>{"a", "bc"}));
  const auto& empty = value_of<GgufArray>(header, "empty");
  EXPECT_EQ(empty.count, 0u);
  EXPECT_TRUE(empty.kept);
}

TEST(GgufHeader, LongArraysKeepOnlyTheirTypeAndCount) {
  GgufHeader header =
      parsed(GgufWriter()
                 .add_raw("u8_at_limit", gguf_type::kArr,
                          gguf_array_prefix(gguf_type::kU8, 65536) + std::string(65536, '\1'))
                 .add_raw("u8_past_limit", gguf_type::kArr,
                          gguf_array_prefix(gguf_type::kU8, 65537) + std::string(65537, '\1'))
                 .add_string_array("str_at_limit", std::vector<std::string>(1024, "t"))
                 .add_string_array("str_past_limit", std::vector<std::string>(1025, "t"))
                 .add_u8("after", 7)
                 .bytes());
  EXPECT_TRUE(value_of<GgufArray>(header, "u8_at_limit").kept);
  EXPECT_EQ(value_of<GgufArray>(header, "u8_at_limit").number_bytes.size(), 65536u);
  const auto& long_numbers = value_of<GgufArray>(header, "u8_past_limit");
  EXPECT_FALSE(long_numbers.kept);
  EXPECT_EQ(long_numbers.count, 65537u);
  EXPECT_TRUE(long_numbers.number_bytes.empty());
  EXPECT_TRUE(value_of<GgufArray>(header, "str_at_limit").kept);
  const auto& long_strings = value_of<GgufArray>(header, "str_past_limit");
  EXPECT_FALSE(long_strings.kept);
  EXPECT_EQ(long_strings.count, 1025u);
  EXPECT_TRUE(long_strings.strings.empty());
  EXPECT_EQ(value_of<uint64_t>(header, "after"), 7u);  // parsing went on past them
}

// [[1, 2], ["x"]]: an array of two arrays.
std::string nested_value() {
  return gguf_array_prefix(gguf_type::kArr, 2) + gguf_array_prefix(gguf_type::kU32, 2) +
         gguf_le32(1) + gguf_le32(2) + gguf_array_prefix(gguf_type::kStr, 1) + gguf_string("x");
}

// An array nested `levels` deep, the innermost holding one u8.
std::string nested_levels(int levels) {
  std::string bytes;
  for (int i = 1; i < levels; ++i) bytes += gguf_array_prefix(gguf_type::kArr, 1);
  return bytes + gguf_array_prefix(gguf_type::kU8, 1) + "\x05";
}

TEST(GgufHeader, NestedArraysAreReadAndSummarized) {
  GgufHeader header = parsed(GgufWriter()
                                 .add_raw("nested", gguf_type::kArr, nested_value())
                                 .add_raw("deep", gguf_type::kArr, nested_levels(8))
                                 .add_u8("after", 1)
                                 .bytes());
  const auto& nested = value_of<GgufArray>(header, "nested");
  EXPECT_EQ(nested.element_type, GgufValueType::kArray);
  EXPECT_EQ(nested.count, 2u);
  EXPECT_FALSE(nested.kept);
  EXPECT_EQ(value_of<GgufArray>(header, "deep").count, 1u);
  EXPECT_EQ(value_of<uint64_t>(header, "after"), 1u);
}

TEST(GgufHeader, ArraysNestedPastEightLevelsAreRefused) {
  EXPECT_EQ(error_of(GgufWriter().add_raw("deep", gguf_type::kArr, nested_levels(9)).bytes()),
            "gguf header: 'deep' nests arrays more than 8 deep");
}

TEST(GgufHeader, AlignmentKeyPadsTheDataSectionAndEachTensor) {
  GgufHeader header = parsed(GgufWriter()
                                 .alignment(64)
                                 .add_tensor("a", GgmlType::kF32, {10})
                                 .add_tensor("b", GgmlType::kF32, {10})
                                 .bytes());
  // Preamble 24 + the entry 8 + 17 + 4 + 4 = 33 (57) + two infos of 8 + 1
  // + 4 + 8 + 4 + 8 = 33 (123); data at 128. 'a' takes 40 bytes at 0,
  // padded to 64, where 'b' starts; 'b' padded to 128.
  EXPECT_EQ(header.alignment_bytes, 64u);
  EXPECT_EQ(header.header_bytes, 123u);
  EXPECT_EQ(header.data_offset_bytes, 128u);
  EXPECT_EQ(header.tensors[1].offset_bytes, 64u);
  EXPECT_EQ(header.data_section_bytes, 128u);
  EXPECT_EQ(header.tensor_bytes, 80u);
}

TEST(GgufHeader, AlignmentMustBeAU32PowerOfTwo) {
  EXPECT_EQ(error_of(GgufWriter().add_i32("general.alignment", 32).bytes()),
            "gguf header: general.alignment is i32; it must be u32");
  EXPECT_EQ(error_of(GgufWriter().add_u32("general.alignment", 48).bytes()),
            "gguf header: general.alignment 48 is not a power of two");
  EXPECT_EQ(error_of(GgufWriter().add_u32("general.alignment", 0).bytes()),
            "gguf header: general.alignment 0 is not a power of two");
  EXPECT_EQ(parsed(GgufWriter().add_u32("general.alignment", 1).bytes()).alignment_bytes, 1u);
}

// --- The preamble -----------------------------------------------------------

TEST(GgufHeaderErrors, NotGguf) {
  EXPECT_EQ(error_of("GGML" + std::string(20, '\0')),
            "gguf header: not a GGUF file: it starts with 'GGML', not 'GGUF'");
  EXPECT_EQ(error_of(std::string("\x00\x01\nG", 4) + std::string(20, '\0')),
            "gguf header: not a GGUF file: it starts with '\\x00\\x01\\nG', not 'GGUF'");
  EXPECT_EQ(error_of("GGU"), "gguf header: file is 3 bytes, too short to be a GGUF file");
  EXPECT_EQ(error_of(""), "gguf header: file is 0 bytes, too short to be a GGUF file");
}

TEST(GgufHeaderErrors, Versions) {
  EXPECT_EQ(error_of(preamble(1, 0, 0)),
            "gguf header: version 1 is no longer read (nor by llama.cpp); convert the model "
            "again");
  EXPECT_EQ(error_of(preamble(4, 0, 0)),
            "gguf header: version 4 is newer than memfit reads (2 and 3)");
  EXPECT_EQ(error_of(preamble(0, 0, 0)), "gguf header: version 0 is not a GGUF version");
}

TEST(GgufHeaderErrors, BigEndianFileIsNamedAsSuch) {
  // A big-endian writer stores version 3 as 00 00 00 03 (the magic stays
  // "GGUF").
  const std::string big_endian = std::string("GGUF\0\0\0\x03", 8) + std::string(16, '\0');
  EXPECT_EQ(error_of(big_endian),
            "gguf header: version reads as 0x03000000: a big-endian GGUF file; memfit reads "
            "little-endian files only");
}

TEST(GgufHeaderErrors, PreambleCutShort) {
  EXPECT_EQ(error_of("GGUF" + gguf_le32(3)),
            "gguf header: the tensor count (8 bytes at byte 8) runs past the end of the 8-byte "
            "file");
  EXPECT_EQ(error_of("GGUF" + gguf_le32(3) + gguf_le64(0) + "\1\2"),
            "gguf header: the metadata count (8 bytes at byte 16) runs past the end of the "
            "18-byte file");
}

TEST(GgufHeaderErrors, CountsThatCannotFitAreRefusedBeforeAnyLoop) {
  // 24 + 4 bytes: not even one 14-byte entry fits in the 4 left.
  EXPECT_EQ(error_of(preamble(3, 0, 1) + std::string(4, '\0')),
            "gguf header: 1 metadata entry and 0 tensor infos cannot fit in the 4 bytes left of "
            "the 28-byte file (an entry takes at least 14 bytes, a tensor info 24)");
  // 2^63 x 24 is past 2^64: the product saturates rather than wraps.
  EXPECT_EQ(error_of(preamble(3, 1ull << 63, 0)),
            "gguf header: 0 metadata entries and 9223372036854775808 tensor infos cannot fit in "
            "the 0 bytes left of the 24-byte file (an entry takes at least 14 bytes, a tensor "
            "info 24)");
  EXPECT_EQ(error_of(preamble(3, UINT64_MAX, UINT64_MAX)),
            "gguf header: 18446744073709551615 metadata entries and 18446744073709551615 tensor "
            "infos cannot fit in the 0 bytes left of the 24-byte file (an entry takes at least "
            "14 bytes, a tensor info 24)");
}

TEST(GgufHeaderErrors, CountsPastMemfitsLimitsInALargeFile) {
  constexpr uint64_t kTerabyte = 1ull << 40;
  auto error_in_large_file = [&](const std::string& bytes) {
    return parse_gguf_header(bytes, kTerabyte).error().message();
  };
  // 65,537 x 14 bytes would fit in 256 MiB: the count limit refuses it.
  EXPECT_EQ(error_in_large_file(preamble(3, 0, 65537)),
            "gguf header: 65537 metadata entries, more than memfit's limit of 65536");
  EXPECT_EQ(error_in_large_file(preamble(3, 1048577, 0)),
            "gguf header: 1048577 tensors, more than memfit's limit of 1048576");
  // 12,000,000 x 24 = 288,000,000 > 268,435,456 - 24.
  EXPECT_EQ(error_in_large_file(preamble(3, 12000000, 0)),
            "gguf header: 0 metadata entries and 12000000 tensor infos cannot fit in the "
            "268435432 bytes left under memfit's 256 MiB header limit (an entry takes at least "
            "14 bytes, a tensor info 24)");
}

// --- Metadata ---------------------------------------------------------------

TEST(GgufHeaderErrors, KeyLengthPastTheFile) {
  // The key's length is at 24, its bytes from 32; the file is 42 bytes.
  EXPECT_EQ(error_of(preamble(3, 0, 1) + gguf_le64(1000) + "abcdefghij"),
            "gguf header: the key of metadata entry 0 (1000 bytes at byte 32) runs past the end "
            "of the 42-byte file");
  EXPECT_EQ(error_of(preamble(3, 0, 1) + gguf_le64(UINT64_MAX) + "abcdefghij"),
            "gguf header: the key of metadata entry 0 (18446744073709551615 bytes at byte 32) "
            "runs past the end of the 42-byte file");
}

TEST(GgufHeaderErrors, EmptyAndDuplicateKeys) {
  EXPECT_EQ(error_of(GgufWriter().add_string("", "abc").bytes()),
            "gguf header: metadata entry 0 has an empty key");
  EXPECT_EQ(error_of(GgufWriter().add_u8("k", 1).add_u8("x", 2).add_u8("k", 3).bytes()),
            "gguf header: key 'k' appears twice");
}

TEST(GgufHeaderErrors, UnknownValueTypes) {
  // Key "k" is 9 bytes at 24, its type at 33; one byte pads the file to 38,
  // the least one entry needs.
  EXPECT_EQ(error_of(preamble(3, 0, 1) + gguf_string("k") + gguf_le32(13) + std::string(1, '\0')),
            "gguf header: 'k' has unknown value type 13");
  EXPECT_EQ(
      error_of(GgufWriter()
                   .add_raw("k", gguf_type::kArr, gguf_array_prefix(13, 1) + std::string(1, '\0'))
                   .bytes()),
      "gguf header: array 'k' has unknown element type 13");
}

TEST(GgufHeaderErrors, KeysInMessagesAreEscaped) {
  EXPECT_EQ(error_of(preamble(3, 0, 1) + gguf_string("a\nb\x1b[31m") + gguf_le32(99)),
            "gguf header: 'a\\nb\\x1b[31m' has unknown value type 99");
}

TEST(GgufHeaderErrors, ValuesPastTheFile) {
  // "k" at 24..33, its type at 33..37: a u64 value at 37 needs 45 bytes.
  EXPECT_EQ(
      error_of(preamble(3, 0, 1) + gguf_string("k") + gguf_le32(gguf_type::kU64) + gguf_le32(0)),
      "gguf header: the value of 'k' (8 bytes at byte 37) runs past the end of the "
      "41-byte file");
  // A string's length at 37, its bytes from 45.
  EXPECT_EQ(error_of(preamble(3, 0, 1) + gguf_string("k") + gguf_le32(gguf_type::kStr) +
                     gguf_le64(UINT64_MAX)),
            "gguf header: the value of 'k' (18446744073709551615 bytes at byte 45) runs past the "
            "end of the 45-byte file");
}

TEST(GgufHeaderErrors, ArraysPastTheFile) {
  // The array's prefix is at 37..49; its elements from 49; the file is 59.
  const std::string head = preamble(3, 0, 1) + gguf_string("k") + gguf_le32(gguf_type::kArr);
  const std::string tail(10, '\0');
  EXPECT_EQ(error_of(head + gguf_array_prefix(gguf_type::kU32, 1000) + tail),
            "gguf header: array 'k' of 1000 u32 (4000 bytes at byte 49) runs past the end of "
            "the 59-byte file");
  // 2^62 x 4 bytes = 2^64.
  EXPECT_EQ(error_of(head + gguf_array_prefix(gguf_type::kU32, 1ull << 62) + tail),
            "gguf header: array 'k' of 4611686018427387904 u32 is more than 2^64 bytes");
  // At least 8 bytes a string: 1,000,000 strings cannot fit in 10 bytes.
  EXPECT_EQ(error_of(head + gguf_array_prefix(gguf_type::kStr, 1000000) + tail),
            "gguf header: array 'k' of 1000000 str cannot fit in the 10 bytes left of the "
            "59-byte file (each takes at least 8 bytes)");
  EXPECT_EQ(error_of(head + gguf_array_prefix(gguf_type::kArr, UINT64_MAX) + tail),
            "gguf header: array 'k' of 18446744073709551615 arr cannot fit in the 10 bytes left "
            "of the 59-byte file (each takes at least 12 bytes)");
  // The second string's length (at 49 + 9 = 58) says 100 bytes from 66.
  EXPECT_EQ(error_of(head + gguf_array_prefix(gguf_type::kStr, 2) + gguf_string("a") +
                     gguf_le64(100) + "xy"),
            "gguf header: element 1 of 'k' (100 bytes at byte 66) runs past the end of the "
            "68-byte file");
}

// --- Tensor infos -----------------------------------------------------------

std::string one_tensor(GgufTensorSpec tensor) {
  return GgufWriter().add_tensor(std::move(tensor)).bytes();
}

TEST(GgufHeaderErrors, TensorShapes) {
  EXPECT_EQ(error_of(one_tensor({"x", 0, {1, 1, 1, 1, 1}, 4, std::nullopt})),
            "gguf header: tensor 'x' has 5 dimensions; ggml allows at most 4");
  EXPECT_EQ(error_of(one_tensor({"x", 0, {4, UINT64_MAX - 4}, 16, std::nullopt})),
            "gguf header: tensor 'x' has a negative dimension: ne[1] = -5");
  EXPECT_EQ(error_of(one_tensor({"x", 0, {1ull << 32, 1ull << 32}, 0, std::nullopt})),
            "gguf header: tensor 'x' has dims [4294967296, 4294967296]: 2^63 or more elements");
  EXPECT_EQ(error_of(one_tensor({"x", 24, {1ull << 62, 2}, 0, std::nullopt})),
            "gguf header: tensor 'x' has dims [4611686018427387904, 2]: 2^63 or more elements");
}

TEST(GgufHeaderErrors, TensorBytesPast64BitsIsAnOverflow) {
  Result<GgufHeader> header =
      parse_gguf_header(one_tensor({"x", 0, {1ull << 62}, 0, std::nullopt}),
                        one_tensor({"x", 0, {1ull << 62}, 0, std::nullopt}).size());
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().message(),
            "gguf header: tensor 'x' (f32 [4611686018427387904]): more than 2^64 bytes");
  EXPECT_EQ(header.error().kind(), ErrorKind::kOverflow);
}

TEST(GgufHeaderErrors, TensorTypes) {
  EXPECT_EQ(error_of(one_tensor({"x", 99, {1}, 4, std::nullopt})),
            "gguf header: tensor 'x' has unknown ggml type 99");
  EXPECT_EQ(error_of(one_tensor({"x", 31, {32}, 18, std::nullopt})),
            "gguf header: tensor 'x' has ggml type 31 (Q4_0_4_4), which ggml no longer reads "
            "from files");
  EXPECT_EQ(error_of(one_tensor({"x", 12, {100, 3}, 0, std::nullopt})),
            "gguf header: tensor 'x' (q4_K [100, 3]): 100 elements per row is not a multiple "
            "of q4_K's block of 256");
}

TEST(GgufHeaderErrors, OffsetsMustFollowGgmlsLayout) {
  auto two_tensors = [](uint64_t first_offset, uint64_t second_offset) {
    return GgufWriter()
        .add_tensor({"a", 0, {10}, std::nullopt, first_offset})
        .add_tensor({"b", 0, {10}, std::nullopt, second_offset})
        .bytes();
  };
  EXPECT_EQ(error_of(two_tensors(0, 64)), "ok");
  // Overlapping 'a' (40 bytes at 0), misaligned.
  EXPECT_EQ(error_of(two_tensors(0, 16)),
            "gguf header: tensor 'b' is at offset 16, expected 64: tensors lie in order, each "
            "padded to the 32-byte alignment");
  // Aligned, but a gap after 'a'.
  EXPECT_EQ(error_of(two_tensors(0, 96)),
            "gguf header: tensor 'b' is at offset 96, expected 64: tensors lie in order, each "
            "padded to the 32-byte alignment");
  EXPECT_EQ(error_of(two_tensors(64, 0)),
            "gguf header: tensor 'a' is at offset 64, expected 0: tensors lie in order, each "
            "padded to the 32-byte alignment");
}

TEST(GgufHeaderErrors, TensorsMustLieWithinTheFile) {
  // Infos end at 57, data starts at 64; 'a' takes 40 bytes from 64.
  const std::string bytes = GgufWriter().add_tensor("a", GgmlType::kF32, {10}).bytes();
  EXPECT_EQ(error_of(bytes.substr(0, 84)),
            "gguf header: tensor 'a' (40 bytes at byte 64) runs past the end of the 84-byte "
            "file");
  EXPECT_EQ(error_of(bytes.substr(0, 60)),
            "gguf header: the data section would start at byte 64, past the end of the 60-byte "
            "file");
  EXPECT_EQ(error_of(bytes.substr(0, 57)),
            "gguf header: the data section would start at byte 64, past the end of the 57-byte "
            "file");
}

TEST(GgufHeaderErrors, DuplicateTensorNames) {
  EXPECT_EQ(error_of(GgufWriter()
                         .add_tensor("a", GgmlType::kF32, {1})
                         .add_tensor("b", GgmlType::kF32, {1})
                         .add_tensor("a", GgmlType::kF32, {1})
                         .bytes()),
            "gguf header: tensor name 'a' appears twice");
}

// --- Robustness -----------------------------------------------------------------

std::string sample_file() {
  return GgufWriter()
      .add_string("general.architecture", "llama")
      .add_u32("llama.block_count", 2)
      .add_u32_array("llama.attention.head_count_kv", {8, 4})
      .add_raw("nested", gguf_type::kArr, nested_value())
      .add_string_array("tokenizer.ggml.tokens", {"<unk>", "a", "b"})
      .add_f32_array("tokenizer.ggml.scores", {0.0f, -1.0f, -2.0f})
      .add_tensor("token_embd.weight", GgmlType::kQ8_0, {64, 3})
      .add_tensor("blk.0.attn_norm.weight", GgmlType::kF32, {64})
      .bytes();
}

TEST(GgufHeaderRobustness, EveryTruncatedPrefixFailsWithOneLine) {
  const std::string bytes = sample_file();
  ASSERT_EQ(error_of(bytes), "ok");
  const uint64_t header_bytes = parsed(bytes).header_bytes;
  // Every length through the header and into the data, then each length
  // at which the data ends short of the last byte.
  for (size_t length = 0; length < bytes.size(); ++length) {
    const std::string message = error_of(bytes.substr(0, length));
    if (message == "ok") {
      EXPECT_GE(length, header_bytes);
      continue;
    }
    EXPECT_EQ(message.rfind("gguf header: ", 0), 0u) << length << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << length;
  }
}

TEST(GgufHeaderRobustness, PrefixGivenForALargerFileMustHoldTheHeader) {
  const std::string bytes = sample_file();
  Result<GgufHeader> header = parse_gguf_header(bytes.substr(0, 100), bytes.size());
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().message(), "gguf header: runs past the 100 bytes given of the " +
                                          std::to_string(bytes.size()) + "-byte file");
  EXPECT_EQ(parse_gguf_header(bytes, 10).error().message(),
            "gguf header: " + std::to_string(bytes.size()) + " bytes given for a 10-byte file");
}

TEST(GgufHeaderRobustness, FlippedBytesNeverEscapeAsAnythingButAnError) {
  const std::string bytes = sample_file();
  const uint64_t header_bytes = parsed(bytes).header_bytes;
  // Every header byte set to 0x00, 0x80 and 0xff in turn: each parse ends
  // in a header or a one-line error (a crash or a throw fails the test).
  for (size_t i = 0; i < header_bytes; ++i) {
    for (char flipped : {'\x00', '\x80', '\xff'}) {
      std::string broken = bytes;
      broken[i] = flipped;
      const std::string message = error_of(broken);
      EXPECT_EQ(message.find('\n'), std::string::npos) << i;
    }
  }
}

TEST(GgufWriterTokenizer, LlamaBlockHasTheSentencePieceTokens) {
  GgufHeader header = parsed(GgufWriter().add_tokenizer(GgufTokenizer::kLlama, 10).bytes());
  // "<unk>", "<s>", "</s>", 256 byte tokens, 10 more: 269.
  EXPECT_EQ(value_of<std::string>(header, "tokenizer.ggml.model"), "llama");
  const auto& tokens = value_of<GgufArray>(header, "tokenizer.ggml.tokens");
  EXPECT_EQ(tokens.count, 269u);
  ASSERT_TRUE(tokens.kept);
  EXPECT_EQ(tokens.strings[1], "<s>");
  EXPECT_EQ(tokens.strings[3 + 0x0a], "<0x0A>");
  EXPECT_EQ(tokens.strings[268], "\xe2\x96\x81t9");
  EXPECT_EQ(value_of<GgufArray>(header, "tokenizer.ggml.scores").count, 269u);
  EXPECT_EQ(value_of<GgufArray>(header, "tokenizer.ggml.token_type").count, 269u);
  EXPECT_EQ(value_of<uint64_t>(header, "tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(value_of<uint64_t>(header, "tokenizer.ggml.eos_token_id"), 2u);
}

TEST(GgufWriterTokenizer, Gpt2BlockHasTheByteLevelAlphabet) {
  GgufHeader header = parsed(GgufWriter().add_tokenizer(GgufTokenizer::kGpt2, 10).bytes());
  // 256 byte-level symbols, 10 more, "<|endoftext|>": 267.
  EXPECT_EQ(value_of<std::string>(header, "tokenizer.ggml.model"), "gpt2");
  const auto& tokens = value_of<GgufArray>(header, "tokenizer.ggml.tokens");
  EXPECT_EQ(tokens.count, 267u);
  ASSERT_TRUE(tokens.kept);
  EXPECT_EQ(tokens.strings['A'], "A");
  EXPECT_EQ(tokens.strings['\n'], "\xc4\x8a");  // U+010A
  EXPECT_EQ(tokens.strings[' '], "\xc4\xa0");   // U+0120, "Ġ"
  EXPECT_EQ(tokens.strings[266], "<|endoftext|>");
  EXPECT_EQ(value_of<GgufArray>(header, "tokenizer.ggml.merges").count, 0u);
  EXPECT_EQ(value_of<uint64_t>(header, "tokenizer.ggml.eos_token_id"), 266u);
}

}  // namespace
}  // namespace memfit
