// Tests of the safetensors header parser: the length prefix, the JSON
// header's validation and error text, and reading headers from files
// without touching tensor data.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "memfit/safetensors.h"
#include "support/recording_file_system.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

std::string prefix_of(uint64_t header_bytes) { return safetensors_length_prefix(header_bytes); }

// The error text of parsing `json` against a data region of
// `data_region_bytes`, or "ok".
std::string header_error(std::string_view json, uint64_t data_region_bytes = kMiB) {
  Result<SafetensorsHeader> header = parse_safetensors_header(json, data_region_bytes);
  return header.ok() ? "ok" : header.error().message();
}

// --- The 8-byte length prefix ---------------------------------------------

TEST(SafetensorsLength, DecodesLittleEndianLength) {
  Result<uint64_t> length = parse_safetensors_length(std::string("\x10\x01\0\0\0\0\0\0", 8), 1000);
  ASSERT_TRUE(length.ok()) << length.error().message();
  EXPECT_EQ(*length, 0x0110u);  // 272
}

TEST(SafetensorsLength, ZeroLengthIsCorruption) {
  EXPECT_EQ(parse_safetensors_length(prefix_of(0), 1024).error().message(),
            "safetensors header: length is 0 bytes; even an empty header is '{}'");
}

TEST(SafetensorsLength, LengthPastEndOfFileIsCorruption) {
  EXPECT_EQ(parse_safetensors_length(prefix_of(1ull << 53), 1024).error().message(),
            "safetensors header: length 9007199254740992 bytes runs past the end of the "
            "1024-byte file");
}

TEST(SafetensorsLength, HeaderEndingExactlyAtEndOfFileIsAccepted) {
  // 8 + 1016 = 1024: the header fills the file; the data region is empty.
  EXPECT_EQ(*parse_safetensors_length(prefix_of(1016), 1024), 1016u);
  EXPECT_EQ(parse_safetensors_length(prefix_of(1017), 1024).error().message(),
            "safetensors header: length 1017 bytes runs past the end of the 1024-byte file");
}

TEST(SafetensorsLength, LengthOverTheLimitIsCorruptionEvenInsideTheFile) {
  const uint64_t header_bytes = kMaxSafetensorsHeaderBytes + 1;  // 268435457
  EXPECT_EQ(parse_safetensors_length(prefix_of(header_bytes), 1ull << 40).error().message(),
            "safetensors header: length 268435457 bytes exceeds the 268435456-byte (256 MiB) "
            "limit");
  EXPECT_TRUE(parse_safetensors_length(prefix_of(kMaxSafetensorsHeaderBytes), 1ull << 40).ok());
}

TEST(SafetensorsLength, LargestLengthDoesNotWrapAround) {
  // 8 + (2^64 - 1) would wrap to 7 in uint64 arithmetic.
  EXPECT_EQ(parse_safetensors_length(prefix_of(UINT64_MAX), 64).error().message(),
            "safetensors header: length 18446744073709551615 bytes runs past the end of the "
            "64-byte file");
}

TEST(SafetensorsLength, FileShorterThanThePrefixIsCorruption) {
  EXPECT_EQ(parse_safetensors_length("\x01\x02\x03\x04\x05", 5).error().message(),
            "safetensors header: file is 5 bytes, shorter than the 8-byte length prefix");
  EXPECT_EQ(parse_safetensors_length("", 0).error().message(),
            "safetensors header: file is 0 bytes, shorter than the 8-byte length prefix");
}

TEST(SafetensorsLength, ShortPrefixBufferIsRejected) {
  EXPECT_EQ(parse_safetensors_length(std::string("\x02\0\0", 3), 100).error().message(),
            "safetensors header: length prefix is 3 bytes, expected 8");
}

// --- dtype widths -----------------------------------------------------------

TEST(SafetensorsDtype, WidthsFollowTheSpec) {
  for (const char* dtype : {"F64", "I64", "U64"})
    EXPECT_EQ(safetensors_dtype_width(dtype), 8u) << dtype;
  for (const char* dtype : {"F32", "I32", "U32"})
    EXPECT_EQ(safetensors_dtype_width(dtype), 4u) << dtype;
  for (const char* dtype : {"BF16", "F16", "I16", "U16"}) {
    EXPECT_EQ(safetensors_dtype_width(dtype), 2u) << dtype;
  }
  for (const char* dtype : {"F8_E5M2", "F8_E4M3", "F8_E8M0", "I8", "U8", "BOOL"}) {
    EXPECT_EQ(safetensors_dtype_width(dtype), 1u) << dtype;
  }
}

TEST(SafetensorsDtype, SubByteAndUnknownDtypesHaveNoWidth) {
  for (const char* dtype : {"F4", "F6_E2M3", "F6_E3M2", "bf16", "", "C64", "F8_E4M3FN"}) {
    EXPECT_EQ(safetensors_dtype_width(dtype), 0u) << dtype;
  }
}

// --- The JSON header: accepted forms ----------------------------------------

TEST(SafetensorsHeader, ParsesEveryTensorInHeaderOrder) {
  Result<SafetensorsHeader> header = parse_safetensors_header(
      R"({"b.weight":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},)"
      R"("a.bias":{"dtype":"F32","shape":[4],"data_offsets":[12,28]}})",
      28);
  ASSERT_TRUE(header.ok()) << header.error().message();
  ASSERT_EQ(header->tensors.size(), 2u);
  EXPECT_EQ(header->tensors[0].name, "b.weight");
  EXPECT_EQ(header->tensors[0].dtype, "BF16");
  EXPECT_EQ(header->tensors[0].shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(header->tensors[0].data_bytes, 12u);  // 2 x 3 x 2 bytes
  EXPECT_EQ(header->tensors[1].name, "a.bias");
  EXPECT_EQ(header->tensors[1].data_bytes, 16u);  // 4 x 4 bytes
  EXPECT_EQ(header->data_bytes, 28u);             // 12 + 16
}

TEST(SafetensorsHeader, EmptyObjectHasNoTensors) {
  Result<SafetensorsHeader> header = parse_safetensors_header("{}", 0);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_TRUE(header->tensors.empty());
  EXPECT_EQ(header->data_bytes, 0u);
}

TEST(SafetensorsHeader, MetadataIsSkippedWhateverItHolds) {
  for (const char* metadata :
       {R"({"format":"pt"})", R"({"n":1,"nested":{"a":[1,2]}})", "[1,2]", "\"text\"", "null"}) {
    const std::string json = std::string(R"({"__metadata__":)") + metadata +
                             R"(,"x":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})";
    Result<SafetensorsHeader> header = parse_safetensors_header(json, 3);
    ASSERT_TRUE(header.ok()) << metadata << ": " << header.error().message();
    ASSERT_EQ(header->tensors.size(), 1u) << metadata;
    EXPECT_EQ(header->data_bytes, 3u) << metadata;
  }
}

TEST(SafetensorsHeader, DeeplyNestedMetadataIsSkippedWithoutRecursion) {
  const std::string json = R"({"__metadata__":)" + std::string(100000, '[') +
                           std::string(100000, ']') +
                           R"(,"x":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})";
  EXPECT_EQ(header_error(json), "ok");
}

TEST(SafetensorsHeader, TrailingSpacePaddingIsAccepted) {
  EXPECT_EQ(header_error("{}      "), "ok");
  EXPECT_EQ(header_error(" \n\t{} \r\n"), "ok");
}

TEST(SafetensorsHeader, FieldsComeInAnyOrderAndUnknownFieldsAreIgnored) {
  Result<SafetensorsHeader> header = parse_safetensors_header(
      R"({"x":{"data_offsets":[0,8],"extra":{"k":[1]},"shape":[2],"dtype":"F32"}})", 8);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->data_bytes, 8u);  // 2 x 4 bytes
}

TEST(SafetensorsHeader, EscapedNamesAreUnescaped) {
  Result<SafetensorsHeader> header = parse_safetensors_header(
      R"({"a\"b\u00e9":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->tensors[0].name, "a\"b\xc3\xa9");
}

TEST(SafetensorsHeader, EscapedFieldNamesAreRecognized) {
  // "dtyp\u0065" is "dtype"; "shap" and "data_offsetsX" are other fields.
  Result<SafetensorsHeader> header = parse_safetensors_header(
      R"({"x":{"dtyp\u0065":"F32","shap":1,"sh\u0061pe":[2],"data_offsetsX":0,)"
      R"("data_offsets":[0,8]}})",
      8);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->tensors[0].dtype, "F32");
  EXPECT_EQ(header->data_bytes, 8u);  // 2 x 4 bytes
}

TEST(SafetensorsHeader, ScalarAndEmptyTensorsAreSized) {
  // [] is a scalar: 1 element x 4 bytes. [0, 5] has no elements.
  Result<SafetensorsHeader> header =
      parse_safetensors_header(R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]},)"
                               R"("e":{"dtype":"F32","shape":[0,5],"data_offsets":[4,4]}})",
                               4);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->data_bytes, 4u);
}

TEST(SafetensorsHeader, SubByteAndUnknownDtypesTrustTheOffsets) {
  // F4 [3] would be 1.5 bytes; the writer stored 2. "X7" is unknown.
  Result<SafetensorsHeader> header =
      parse_safetensors_header(R"({"q":{"dtype":"F4","shape":[3],"data_offsets":[0,2]},)"
                               R"("u":{"dtype":"X7","shape":[1000],"data_offsets":[2,7]}})",
                               7);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->data_bytes, 7u);  // 2 + 5
}

TEST(SafetensorsHeader, AdjacentRangesAndEmptyTensorsAtABoundaryDoNotOverlap) {
  // Listed out of offset order: [4, 8), [4, 4), [0, 4).
  EXPECT_EQ(header_error(R"({"c":{"dtype":"U8","shape":[4],"data_offsets":[4,8]},)"
                         R"("e":{"dtype":"U8","shape":[0],"data_offsets":[4,4]},)"
                         R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})"),
            "ok");
}

TEST(SafetensorsHeader, GapsBetweenTensorsAreAllowed) {
  Result<SafetensorsHeader> header =
      parse_safetensors_header(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                               R"("b":{"dtype":"U8","shape":[2],"data_offsets":[10,12]}})",
                               16);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->data_bytes, 4u);  // tensor bytes, not the span
}

TEST(SafetensorsHeader, SummaryMatchesTheFullParse) {
  const std::string json = safetensors_header_json(
      {{"a", "BF16", {7, 3}, {}}, {"b", "F8_E4M3", {5}, {}}, {"c", "I64", {2, 2}, {}}});
  SafetensorsHeaderReader reader;
  Result<SafetensorsSummary> summary = reader.parse_summary(json, 1000);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  EXPECT_EQ(summary->data_bytes, 79u);  // 7*3*2 + 5*1 + 2*2*8 = 42 + 5 + 32
  EXPECT_EQ(summary->tensor_count, 3u);
  EXPECT_EQ(reader.parse(json, 1000)->data_bytes, 79u);
}

TEST(SafetensorsHeader, ReusedBufferNeverShowsTheEarlierText) {
  // The reader keeps one buffer: after a long header, a shorter text must be
  // parsed as itself, never completed by the earlier header's bytes.
  const std::string json = safetensors_header_json({{"a", "U8", {4}, {}}, {"b", "U8", {4}, {}}});
  SafetensorsHeaderReader reader;
  ASSERT_TRUE(reader.parse_summary(json, 8).ok());
  const std::string cut = json.substr(0, json.find("\"b\""));  // ends after "a"'s entry and ','
  Result<SafetensorsSummary> summary = reader.parse_summary(cut, 8);
  ASSERT_FALSE(summary.ok());
  // The same as a fresh reader says.
  EXPECT_EQ(summary.error().message(),
            "safetensors header: invalid JSON: JSON document ended early in the middle of an "
            "object or array.");
  EXPECT_EQ(header_error(cut), summary.error().message());
  // And the full text again, from the same buffer: 4 + 4 bytes.
  EXPECT_EQ(reader.parse_summary(json, 8)->data_bytes, 8u);
}

// --- The JSON header: rejected forms ----------------------------------------

TEST(SafetensorsHeader, RootThatIsNotAnObjectIsCorruption) {
  EXPECT_EQ(header_error("[]"), "safetensors header: JSON is an array, not an object");
  EXPECT_EQ(header_error("5"), "safetensors header: JSON is a number, not an object");
  EXPECT_EQ(header_error("\"x\""), "safetensors header: JSON is a string, not an object");
  EXPECT_EQ(header_error("null"), "safetensors header: JSON is null, not an object");
}

TEST(SafetensorsHeader, InvalidJsonIsCorruption) {
  // The detail after "invalid JSON: " is simdjson's (3.0.1) wording.
  const std::string structure =
      "safetensors header: invalid JSON: The JSON document has an improper structure: missing or "
      "superfluous commas, braces, missing keys, etc.";
  const std::string ended_early =
      "safetensors header: invalid JSON: JSON document ended early in the middle of an object or "
      "array.";
  EXPECT_EQ(header_error(""), "safetensors header: invalid JSON: Empty: no JSON found");
  EXPECT_EQ(header_error("   "), "safetensors header: invalid JSON: Empty: no JSON found");
  EXPECT_EQ(header_error("{\"a\":"), ended_early);
  EXPECT_EQ(header_error("{\"a\" {}}"), structure);
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},})"), structure);
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1],}})"), structure);
  // The root object left open.
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})"), structure);
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1])"), ended_early);
  EXPECT_EQ(header_error("{\"\xff\":{}}"),
            "safetensors header: invalid JSON: The input is not valid UTF-8");
  EXPECT_EQ(header_error("<html>"),
            "safetensors header: invalid JSON: the text does not start with a JSON value");
  EXPECT_EQ(header_error("{\"a"),
            "safetensors header: invalid JSON: A string is opened, but never closed.");
}

TEST(SafetensorsHeader, TextAfterTheObjectIsCorruption) {
  const std::string ended_early =
      "safetensors header: invalid JSON: JSON document ended early in the middle of an object or "
      "array.";
  EXPECT_EQ(header_error("{} {}"), "safetensors header: unexpected text after the JSON object");
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}})"),
            "safetensors header: unexpected text after the JSON object");
  // simdjson words a stray token after the object as an early end.
  EXPECT_EQ(header_error("{}]"), ended_early);
  EXPECT_EQ(header_error("{} x"), ended_early);
  // NUL padding is not whitespace.
  EXPECT_EQ(header_error(std::string("{}\0", 3)), ended_early);
}

TEST(SafetensorsHeader, EntryThatIsNotAnObjectIsCorruption) {
  EXPECT_EQ(header_error(R"({"x.weight":[1,2]})"),
            "safetensors header: entry 'x.weight' is not an object");
}

TEST(SafetensorsHeader, MissingFieldsAreCorruption) {
  EXPECT_EQ(header_error(R"({"x":{"shape":[1],"data_offsets":[0,1]}})"),
            "safetensors header: tensor 'x' has no dtype");
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","data_offsets":[0,1]}})"),
            "safetensors header: tensor 'x' has no shape");
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[1]}})"),
            "safetensors header: tensor 'x' has no data_offsets");
}

TEST(SafetensorsHeader, FieldsOfTheWrongTypeAreCorruption) {
  EXPECT_EQ(header_error(R"({"x":{"dtype":16,"shape":[1],"data_offsets":[0,1]}})"),
            "safetensors header: dtype of 'x' is not a string");
  const std::string shape_error =
      "safetensors header: shape of 'x' is not an array of non-negative integers";
  for (const char* shape : {"\"1\"", "{}", "[1,-2]", "[1.5]", "[1e3]", "[\"2\"]", "[[2]]",
                            "[18446744073709551616]", "[true]", "null"}) {
    EXPECT_EQ(header_error(std::string(R"({"x":{"dtype":"U8","shape":)") + shape +
                           R"(,"data_offsets":[0,1]}})"),
              shape_error)
        << shape;
  }
  const std::string offsets_error =
      "safetensors header: data_offsets of 'x' is not an array of two non-negative integers";
  for (const char* offsets : {"[]", "[0]", "[0,1,2]", "[-1,0]", "[0,1.0]", "\"0,1\"", "{}"}) {
    EXPECT_EQ(header_error(std::string(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":)") +
                           offsets + "}}"),
              offsets_error)
        << offsets;
  }
}

TEST(SafetensorsHeader, ReversedOffsetsAreCorruption) {
  EXPECT_EQ(header_error(R"({"x.weight":{"dtype":"X","shape":[1],"data_offsets":[10,4]}})"),
            "safetensors header: data_offsets of 'x.weight' [10, 4] are reversed");
}

TEST(SafetensorsHeader, OffsetsPastTheDataRegionAreCorruption) {
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[2048],"data_offsets":[0,2048]}})", 1024),
            "safetensors header: data_offsets of 'x' [0, 2048] run past the 1024-byte data "
            "region");
  // An offset near 2^64 must not wrap anything around.
  EXPECT_EQ(header_error(R"({"x":{"dtype":"X","shape":[1],)"
                         R"("data_offsets":[18446744073709551615,18446744073709551615]}})",
                         1024),
            "safetensors header: data_offsets of 'x' [18446744073709551615, "
            "18446744073709551615] run past the 1024-byte data region");
}

TEST(SafetensorsHeader, OverlappingOffsetsAreCorruption) {
  EXPECT_EQ(header_error(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})"),
            "safetensors header: data_offsets of 'b' [4, 12] overlap those of 'a' [0, 8]");
  // Listed in reverse order, found after sorting.
  EXPECT_EQ(header_error(R"({"b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]},)"
                         R"("a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})"),
            "safetensors header: data_offsets of 'b' [4, 12] overlap those of 'a' [0, 8]");
  // The same range twice (a repeated name, too).
  EXPECT_EQ(header_error(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                         R"("a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})"),
            "safetensors header: data_offsets of 'a' [0, 8] overlap those of 'a' [0, 8]");
  // A tensor inside another.
  EXPECT_EQ(header_error(R"({"big":{"dtype":"U8","shape":[100],"data_offsets":[0,100]},)"
                         R"("mid":{"dtype":"U8","shape":[0],"data_offsets":[50,50]}})"),
            "safetensors header: data_offsets of 'mid' [50, 50] overlap those of 'big' [0, 100]");
}

TEST(SafetensorsHeader, DtypeWidthMismatchIsCorruption) {
  // BF16 [2, 3] = 6 elements x 2 bytes = 12 bytes, not 10.
  EXPECT_EQ(header_error(R"({"x":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,10]}})"),
            "safetensors header: 'x' is BF16 [2, 3], 12 bytes, but its data_offsets [0, 10] "
            "hold 10 bytes");
}

TEST(SafetensorsHeader, ShapeOverflowingUint64IsCorruption) {
  // 2^32 x 2^32 = 2^64 elements: one more than a uint64 holds.
  EXPECT_EQ(header_error(R"({"x":{"dtype":"U8","shape":[4294967296,4294967296],)"
                         R"("data_offsets":[0,1]}})"),
            "safetensors header: shape [4294967296, 4294967296] of 'x' has more than 2^64 "
            "elements");
  // 2^62 elements fit; x 4 bytes = 2^64 bytes do not.
  EXPECT_EQ(header_error(R"({"x":{"dtype":"F32","shape":[4611686018427387904],)"
                         R"("data_offsets":[0,1]}})"),
            "safetensors header: 'x' is F32 [4611686018427387904]: more than 2^64 bytes");
}

TEST(SafetensorsHeader, UntrustedNamesStayOnOneLine) {
  EXPECT_EQ(header_error("{\"evil\\nname\\u001b[31m\":[]}"),
            "safetensors header: entry 'evil\\nname\\x1b[31m' is not an object");
  const std::string long_name(1000, 'n');
  EXPECT_EQ(header_error("{\"" + long_name + "\":[]}"),
            "safetensors header: entry '" + std::string(200, 'n') + "...' is not an object");
}

// --- Reading files ----------------------------------------------------------

class SafetensorsFileTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::unique_ptr<FileSystem> real_fs_ = make_real_file_system();
};

TEST_F(SafetensorsFileTest, ReadsOnlyThePrefixAndTheHeader) {
  // A "13 GB" file: 4096 x 4096 x 2 bytes = 33554432, x 400 tensors.
  std::vector<TensorSpec> tensors;
  for (int i = 0; i < 400; ++i) {
    tensors.push_back({"layers." + std::to_string(i) + ".weight", "BF16", {4096, 4096}, {}});
  }
  const std::string path = dir_.file_path("big.safetensors");
  write_safetensors_file(path, tensors, TensorData::kSparse);
  const uint64_t header_bytes = safetensors_header_json(tensors).size();

  RecordingFileSystem fs(*real_fs_);
  SafetensorsHeaderReader reader;
  Result<SafetensorsHeader> header = reader.read(fs, path);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->data_bytes, 13421772800u);  // 400 x 33554432
  EXPECT_EQ(header->tensors.size(), 400u);
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{path, 0, 8}, {path, 8, header_bytes}}));
}

TEST_F(SafetensorsFileTest, OneReaderReadsManyFiles) {
  SafetensorsHeaderReader reader;
  auto fs = make_real_file_system();
  for (uint64_t i = 1; i <= 20; ++i) {
    // Sizes go up and down so buffers are both grown and reused.
    const uint64_t count = (i % 2 == 0) ? i * 50 : i;
    std::vector<TensorSpec> tensors;
    for (uint64_t t = 0; t < count; ++t)
      tensors.push_back({"t" + std::to_string(t), "F16", {i}, {}});
    const std::string path = dir_.file_path("f" + std::to_string(i) + ".safetensors");
    write_safetensors_file(path, tensors);
    Result<SafetensorsSummary> summary = reader.read_summary(*fs, path);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    EXPECT_EQ(summary->tensor_count, count);
    EXPECT_EQ(summary->data_bytes, count * i * 2);
  }
}

TEST_F(SafetensorsFileTest, LengthOverTheLimitIsRefusedBeforeReadingTheHeader) {
  // A sparse file big enough to hold a 256 MiB + 1 header, holding only the prefix.
  const std::string path =
      dir_.write_file("huge.safetensors", prefix_of(kMaxSafetensorsHeaderBytes + 1));
  std::filesystem::resize_file(path, 8 + kMaxSafetensorsHeaderBytes + 4096);
  RecordingFileSystem fs(*real_fs_);
  SafetensorsHeaderReader reader;
  Result<SafetensorsHeader> header = reader.read(fs, path);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().message(),
            "reading '" + path +
                "': safetensors header: length 268435457 bytes exceeds the "
                "268435456-byte (256 MiB) limit");
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{path, 0, 8}}));
}

TEST_F(SafetensorsFileTest, MissingFileAndFolderAreErrors) {
  SafetensorsHeaderReader reader;
  const std::string missing = dir_.file_path("none.safetensors");
  EXPECT_EQ(reader.read(*real_fs_, missing).error().message(),
            "reading '" + missing + "': no such file");
  dir_.make_dir("d.safetensors");
  EXPECT_EQ(reader.read(*real_fs_, dir_.file_path("d.safetensors")).error().message(),
            "reading '" + dir_.file_path("d.safetensors") + "': not a regular file");
}

std::string file_error(FileSystem& fs, const std::string& path) {
  SafetensorsHeaderReader reader;
  Result<SafetensorsHeader> header = reader.read(fs, path);
  return header.ok() ? "ok" : header.error().message();
}

TEST_F(SafetensorsFileTest, EveryTruncatedPrefixOfAValidFileFailsCleanly) {
  const std::string bytes = safetensors_file_bytes(
      {{"model.embed.weight", "BF16", {4, 3}, {}}, {"model.norm.weight", "F32", {3}, {}}},
      R"({"format":"pt"})");
  const std::string path = dir_.file_path("t.safetensors");
  dir_.write_file("t.safetensors", bytes);
  ASSERT_EQ(file_error(*real_fs_, path), "ok");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    dir_.write_file("t.safetensors", bytes.substr(0, cut));
    const std::string error = file_error(*real_fs_, path);
    EXPECT_TRUE(error.starts_with("reading '" + path + "': safetensors header: "))
        << "cut at " << cut;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST_F(SafetensorsFileTest, FlippedBytesNeverCrash) {
  const std::string bytes = safetensors_file_bytes(
      {{"a", "BF16", {4, 3}, {}}, {"b", "F32", {3}, {}}, {"c", "U8", {5}, {}}},
      R"({"format":"pt"})");
  const std::string path = dir_.file_path("f.safetensors");
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char mask : {0x01, 0x20, 0x80, 0xff}) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ mask);
      dir_.write_file("f.safetensors", flipped);
      SafetensorsHeaderReader reader;
      Result<SafetensorsHeader> header = reader.read(*real_fs_, path);
      if (header.ok()) {
        EXPECT_LE(header->data_bytes, bytes.size());
      } else {
        EXPECT_EQ(header.error().message().find('\n'), std::string::npos);
      }
    }
  }
}

}  // namespace
}  // namespace memfit
