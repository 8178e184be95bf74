// The index's fast path (src/model/safetensors/canonical_index.cc) must
// never change a parse's outcome: whenever it takes an index, simdjson's
// parser must give the same index, and the parse that tries it first must
// give what simdjson alone gives, index or error text.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "model/safetensors/index.h"

namespace memfit {
namespace {

// `json` followed by the padding the parsers need.
std::string padded(std::string_view json) {
  return std::string(json) + std::string(kSafetensorsIndexPaddingBytes, '\0');
}

std::string describe(const SafetensorsIndex& index) {
  std::string text = "total " + std::to_string(index.total_bytes) + ", tensors " +
                     std::to_string(index.tensor_count) + ", shards";
  for (const std::string& shard : index.shard_names) text += " " + shard;
  return text;
}

std::string describe(const Result<SafetensorsIndex>& index) {
  return index.ok() ? describe(*index) : "error " + index.error().message();
}

// Whether the fast path took `json`; fails the test when its index or the
// combined parse's outcome differs from simdjson's.
bool expect_same_outcome(std::string_view json) {
  const std::string text = padded(json);
  const std::string_view view(text.data(), json.size());
  const std::string general = describe(parse_padded_safetensors_index_with_simdjson(view));
  EXPECT_EQ(describe(parse_padded_safetensors_index(view)), general) << "index: " << json;
  std::optional<SafetensorsIndex> scanned = scan_canonical_safetensors_index(view);
  if (scanned) {
    EXPECT_EQ(describe(*scanned), general) << "index: " << json;
  }
  return scanned.has_value();
}

// As Python's json.dump(index, f, indent=2) writes it.
const std::string kIndented = R"({
  "metadata": {
    "total_size": 1000
  },
  "weight_map": {
    "a.weight": "model-00001-of-00002.safetensors",
    "b.weight": "model-00001-of-00002.safetensors",
    "c.weight": "model-00002-of-00002.safetensors",
    "d.weight": "model-00001-of-00002.safetensors"
  }
}
)";

TEST(SafetensorsCanonicalIndex, WritersSpellingsAreScannedToTheSameIndex) {
  const std::string text = padded(kIndented);
  std::optional<SafetensorsIndex> index =
      scan_canonical_safetensors_index(std::string_view(text.data(), kIndented.size()));
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(describe(*index),
            "total 1000, tensors 4, shards model-00001-of-00002.safetensors "
            "model-00002-of-00002.safetensors");
  for (std::string_view json : {
           std::string_view(kIndented),
           std::string_view(R"({"metadata":{"total_size":5},"weight_map":{"a":"x"}})"),
           std::string_view(R"({"weight_map":{"a":"x","b":"y","c":"x"},"metadata":{"total_size":0}})"),
           std::string_view(R"({"metadata":{"total_parameters":12,"format":"pt","total_size":7},)"
                            R"("weight_map":{"a":"x"}})"),
           std::string_view("\r\n\t {\"metadata\" : {\"total_size\" : 3} , \"weight_map\" : "
                            "{\"a\" : \"x\"}} \n"),
           std::string_view("{\"metadata\":{\"total_size\":3},\"weight_map\":{\"caf\xC3\xA9\":\"x\"}}"),
       }) {
    EXPECT_TRUE(expect_same_outcome(json)) << json;
  }
}

// Each leaves the writers' spelling in its own way and is read by
// simdjson's parser alone, to the same outcome.
TEST(SafetensorsCanonicalIndex, OtherSpellingsAreLeftToTheGeneralParser) {
  for (std::string_view json : {
           R"({"metadata":{"total_size":1.0},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1,"total_size":2},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":"x"},"weight_map":{"b":"y"}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":"x"},"extra":null})",
           R"({"metadata":{"total_size":1,"nested":{}},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1,"flag":true},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a\u0062":"x"}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":"x","b":"\u0078"}})",
           R"({"metad\u0061ta":{"total_size":1},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":18446744073709551615},"weight_map":{"a":"x"}})",
       }) {
    EXPECT_FALSE(expect_same_outcome(json)) << json;
  }
}

TEST(SafetensorsCanonicalIndex, ErrorsAreWordedByTheGeneralParser) {
  for (std::string_view json : {
           "",
           "{",
           "[]",
           R"({"metadata":{"total_size":1},"weight_map":{}})",
           R"({"metadata":{"total_size":1}})",
           R"({"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":3}})",
           R"({"metadata":{"total_size":-1},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":01},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1,"n":0123"abc"},"weight_map":{"a":"x"}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":"x"}} {})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":"x",}})",
           R"({"metadata":{"total_size":1},"weight_map":{"a":"x" "b":"y"}})",
           "{\"metadata\":{\"total_size\":1},\"weight_map\":{\"a\x01\":\"x\"}}",
           "{\"metadata\":{\"total_size\":1},\"weight_map\":{\"a\xC3\":\"x\"}}",
       }) {
    EXPECT_FALSE(expect_same_outcome(json)) << json;
  }
}

// Every prefix of the indented index, and the index with each byte in turn
// replaced by each of a set of bytes that matter to JSON or UTF-8, or
// deleted: the outcomes agree on every one.
TEST(SafetensorsCanonicalIndex, EveryTruncationAndSingleByteChangeParsesTheSame) {
  static constexpr char kReplacements[] = "\"\\,:{}[]019 \t\n\x00\x1F\x7F\x80\xC3\xFF" "a";
  const std::string_view replacements(kReplacements, sizeof kReplacements - 1);
  for (size_t length = 0; length < kIndented.size(); ++length) {
    expect_same_outcome(std::string_view(kIndented).substr(0, length));
  }
  for (size_t i = 0; i < kIndented.size(); ++i) {
    for (char replacement : replacements) {
      std::string changed = kIndented;
      changed[i] = replacement;
      expect_same_outcome(changed);
    }
    std::string deleted = kIndented;
    deleted.erase(i, 1);
    expect_same_outcome(deleted);
  }
}

}  // namespace
}  // namespace memfit
