// The canonical scan (src/model/safetensors/canonical_header.cc) must never
// change a parse's outcome: every header here is parsed with it and
// without it (simdjson alone), and the two results must be identical:
// the same totals and tensors, or the same error text.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "model/safetensors/json_parser.h"

namespace memfit {
namespace {

using CanonicalScan = SafetensorsJsonParser::CanonicalScan;

constexpr uint64_t kDataRegionBytes = 1ull << 40;

// One parse, written out: "ok <bytes> <count>; <name> <dtype> [dims] <bytes>; ..."
// or "error <message>".
std::string outcome(CanonicalScan scan, std::string_view json,
                    uint64_t data_region_bytes = kDataRegionBytes) {
  SafetensorsJsonParser parser(scan);
  std::vector<SafetensorsTensor> tensors;
  Result<SafetensorsSummary> summary = parser.parse(json, data_region_bytes, &tensors);
  if (!summary.ok()) return "error " + summary.error().message();
  std::string text =
      "ok " + std::to_string(summary->data_bytes) + " " + std::to_string(summary->tensor_count);
  for (const SafetensorsTensor& tensor : tensors) {
    text += "; " + tensor.name + " " + tensor.dtype + " [";
    for (uint64_t dim : tensor.shape) text += std::to_string(dim) + ",";
    text += "] " + std::to_string(tensor.data_bytes);
  }
  // The summary-only parse (no tensor list) must agree too.
  SafetensorsJsonParser summary_parser(scan);
  Result<SafetensorsSummary> alone = summary_parser.parse(json, data_region_bytes, nullptr);
  if (!alone.ok() || alone->data_bytes != summary->data_bytes ||
      alone->tensor_count != summary->tensor_count) {
    text += " (summary-only parse differs)";
  }
  return text;
}

void expect_same_outcome(std::string_view json, uint64_t data_region_bytes = kDataRegionBytes) {
  EXPECT_EQ(outcome(CanonicalScan::kOn, json, data_region_bytes),
            outcome(CanonicalScan::kOff, json, data_region_bytes))
      << "header: " << json;
}

// As the reference writer spells a header: "__metadata__" first, no
// whitespace, tensors in offset order, spaces to a multiple of 8 bytes.
// 2 x 3 BF16 = 12 bytes, 4 F32 = 16 bytes, 8 F8_E4M3 = 8 bytes.
const std::string kCanonical =
    R"({"__metadata__":{"format":"pt"},)"
    R"("model.embed.weight":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},)"
    R"("model.norm.weight":{"dtype":"F32","shape":[4],"data_offsets":[12,28]},)"
    R"("lm_head.weight":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[28,36]}}     )";

TEST(SafetensorsCanonicalHeader, ReferenceSpellingParsesAsTheGeneralParserParsesIt) {
  // 12 + 16 + 8 = 36 bytes in 3 tensors.
  EXPECT_EQ(outcome(CanonicalScan::kOn, kCanonical),
            "ok 36 3; model.embed.weight BF16 [2,3,] 12; model.norm.weight F32 [4,] 16; "
            "lm_head.weight F8_E4M3 [8,] 8");
  expect_same_outcome(kCanonical);
  expect_same_outcome("{}");
  expect_same_outcome("{}        ");
  expect_same_outcome(R"({"__metadata__":{}})");
  expect_same_outcome(R"({"__metadata__":{"x":"y"},"__metadata__":{"a":"b"}})");
  expect_same_outcome(R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})");
  expect_same_outcome(R"({"u":{"dtype":"U1","shape":[7],"data_offsets":[0,1]}})");  // width unknown
  expect_same_outcome("{\"caf\xC3\xA9\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}");
}

// Each of these leaves the reference spelling in its own way and is read
// by the general parser: the outcome is still the same.
TEST(SafetensorsCanonicalHeader, OtherSpellingsParseAsTheGeneralParserParsesThem) {
  for (std::string_view json : {
           R"({ "a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
           R"({"a": {"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
           R"({"a":{"shape":[1],"dtype":"U8","data_offsets":[0,1]}})",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":true}})",
           R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
           R"({"a\u0062":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
           R"({"a":{"dtype":"U\u0038","shape":[1],"data_offsets":[0,1]}})",
           R"({"__metadata__":{"n":1},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
           R"({"__metadata__":[],"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
           R"({"__metadata\u005f_":{"x":"y"}})",
           "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}\t\n\r ",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551615]}})",
           R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,1]}})",
       }) {
    expect_same_outcome(json);
  }
}

TEST(SafetensorsCanonicalHeader, ErrorsAreWordedByTheGeneralParser) {
  for (std::string_view json : {
           "",
           "{",
           "[]",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}})",    // reversed
           R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,1]}})",    // 2 bytes expected
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
           R"("b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",     // overlap
           R"({"a":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}})",   // leading zero
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,-1]}})",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551616]}})",
           // 2^64 + 1: a parse that wrapped would read 1, and accept it.
           R"({"a":{"dtype":"U8","shape":[18446744073709551617],"data_offsets":[0,1]}})",
           R"({"a":{"dtype":"U8","shape":[100000000000000000001],"data_offsets":[0,1]}})",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}} x)",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}})",
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},})",
           R"({"a":{"dtype":"U8","shape":[1,],"data_offsets":[0,1]}})",
           "{\"a\x01\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
           "{\"a\xC3\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
       }) {
    expect_same_outcome(json);
  }
  // A NUL after the object.
  expect_same_outcome(std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})") +
                      '\0');
  // Past the data region: 36 bytes needed, 35 there.
  expect_same_outcome(kCanonical, 35);
}

// Every prefix of the reference header, and the header with each byte in
// turn replaced by each of a set of bytes that matter to JSON or UTF-8, or
// deleted: the two parses agree on every one.
TEST(SafetensorsCanonicalHeader, EveryTruncationAndSingleByteChangeParsesTheSame) {
  static constexpr char kReplacements[] = "\"\\,:{}[]019 \t\x00\x1F\x7F\x80\xC3\xFF" "a";
  const std::string_view replacements(kReplacements, sizeof kReplacements - 1);
  for (size_t length = 0; length < kCanonical.size(); ++length) {
    expect_same_outcome(std::string_view(kCanonical).substr(0, length));
  }
  for (size_t i = 0; i < kCanonical.size(); ++i) {
    for (char replacement : replacements) {
      std::string changed = kCanonical;
      changed[i] = replacement;
      expect_same_outcome(changed);
    }
    std::string deleted = kCanonical;
    deleted.erase(i, 1);
    expect_same_outcome(deleted);
  }
}

// One parser reused for headers of different lengths: the shorter text
// after the longer one must not see the rest of the longer one.
TEST(SafetensorsCanonicalHeader, ReusedParserSeesOnlyTheCurrentText) {
  SafetensorsJsonParser parser;
  ASSERT_TRUE(parser.parse(kCanonical, kDataRegionBytes, nullptr).ok());
  // The canonical header cut before its closing brace: an error, not the
  // rest of the previous text.
  const std::string cut = kCanonical.substr(0, kCanonical.find("]}}") + 2);
  Result<SafetensorsSummary> summary = parser.parse(cut, kDataRegionBytes, nullptr);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().message(), outcome(CanonicalScan::kOff, cut).substr(6));
}

}  // namespace
}  // namespace memfit
