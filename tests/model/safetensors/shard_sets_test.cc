// Numbered shard names and the choice of which files hold one copy of the
// weights (model/safetensors/shard_sets.h). Folder-level cases, with real files and
// bytes, are in model/safetensors/weights_locator_test.cc.
#include "model/safetensors/shard_sets.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

TEST(ShardName, ParsesPrefixNumberAndCount) {
  std::optional<ShardName> s = parse_shard_name("model-00003-of-00046.safetensors");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->prefix, "model");
  EXPECT_EQ(s->number, 3u);
  EXPECT_EQ(s->count, 46u);
  // DeepSeek-V3 pads N to six digits and i to five.
  s = parse_shard_name("model-00001-of-000163.safetensors");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->count, 163u);
  // The prefix may hold dashes of its own; the last "-<i>-of-<N>" counts.
  s = parse_shard_name("pytorch-model-2-of-3.safetensors");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->prefix, "pytorch-model");
  EXPECT_EQ(s->number, 2u);
  // gpt-oss numbers from 0.
  s = parse_shard_name("model-00000-of-00002.safetensors");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->number, 0u);
}

TEST(ShardName, OtherNamesAreNotShards) {
  for (const char* name :
       {"model.safetensors", "consolidated.safetensors", "model-00001-of-00002.bin",
        "model-00001-of-0.safetensors", "model-x-of-2.safetensors", "model-1-of-.safetensors",
        "model-of-2.safetensors", "00001-of-00002.safetensors", "model-+1-of-2.safetensors",
        "model-1234567890-of-2.safetensors", "model-1-of-1234567890.safetensors"}) {
    EXPECT_FALSE(parse_shard_name(name).has_value()) << name;
  }
}

std::vector<WeightFile> files(std::initializer_list<const char*> names, uint64_t size_bytes = 10) {
  std::vector<WeightFile> out;
  for (const char* name : names) out.push_back({name, size_bytes});
  return out;
}

TEST(ChooseWeightFiles, LooseFilesAloneAreAllKept) {
  WeightFileChoice c = choose_weight_files(files({"a.safetensors", "b.safetensors"}));
  EXPECT_EQ(c.files, (std::vector<std::string>{"a.safetensors", "b.safetensors"}));
  EXPECT_TRUE(c.skipped.empty());
  EXPECT_EQ(c.warning, "");
}

TEST(ChooseWeightFiles, IncompleteSetAloneIsAllKept) {
  WeightFileChoice c = choose_weight_files(
      files({"model-00001-of-00003.safetensors", "model-00003-of-00003.safetensors"}));
  EXPECT_EQ(c.files.size(), 2u);
  EXPECT_EQ(c.warning, "");
}

TEST(ChooseWeightFiles, CompleteSetWinsOverAConsolidatedFile) {
  WeightFileChoice c = choose_weight_files(files({"consolidated.safetensors",
                                                  "model-00001-of-00002.safetensors",
                                                  "model-00002-of-00002.safetensors"}));
  EXPECT_EQ(c.files, (std::vector<std::string>{"model-00001-of-00002.safetensors",
                                                "model-00002-of-00002.safetensors"}));
  EXPECT_EQ(c.skipped, std::vector<std::string>{"consolidated.safetensors"});
  EXPECT_EQ(c.warning,
            "sized the complete shard set 'model-00001-of-00002.safetensors' .. "
            "'model-00002-of-00002.safetensors' (2 files) and skipped 'consolidated.safetensors', "
            "so that no weight is counted twice");
}

TEST(ChooseWeightFiles, OfTwoCompleteSetsTheLargerCountWinsWhateverTheOrder) {
  for (bool reversed : {false, true}) {
    std::vector<WeightFile> in = files({"a-1-of-1.safetensors", "b-1-of-2.safetensors",
                                        "b-2-of-2.safetensors"});
    if (reversed) in = files({"a-1-of-2.safetensors", "a-2-of-2.safetensors",
                              "b-1-of-1.safetensors"});
    WeightFileChoice c = choose_weight_files(in);
    ASSERT_EQ(c.files.size(), 2u) << reversed;
    EXPECT_EQ(c.skipped.size(), 1u);
  }
  // Equal counts: the prefix that sorts first.
  WeightFileChoice c = choose_weight_files(
      files({"a-1-of-1.safetensors", "b-1-of-1.safetensors"}));
  EXPECT_EQ(c.files, std::vector<std::string>{"a-1-of-1.safetensors"});
  EXPECT_EQ(c.warning,
            "sized the complete shard set 'a-1-of-1.safetensors' (1 file) and skipped the shard "
            "set 'b-1-of-1.safetensors' (1 file), so that no weight is counted twice");
}

TEST(ChooseWeightFiles, ConsolidatedCopyWinsOverAnIncompleteSet) {
  std::vector<WeightFile> in = {{"model-00001-of-00003.safetensors", 100},
                                {"model-00002-of-00003.safetensors", 100},
                                {"model.safetensors", 300}};
  WeightFileChoice c = choose_weight_files(in);
  EXPECT_EQ(c.files, std::vector<std::string>{"model.safetensors"});
  EXPECT_EQ(c.skipped.size(), 2u);
  EXPECT_EQ(c.warning,
            "skipped the incomplete shard set 'model-00001-of-00003.safetensors' .. "
            "'model-00002-of-00003.safetensors' (2 of its 3 shards) and sized "
            "'model.safetensors' instead, so that no weight is counted twice");
}

TEST(ChooseWeightFiles, LooseFilesSmallerThanAnIncompleteSetAreNotACopy) {
  // 150 bytes of loose files beside 200 of shards: an adapter, not a copy.
  std::vector<WeightFile> in = {{"adapter.safetensors", 150},
                                {"model-00001-of-00003.safetensors", 100},
                                {"model-00002-of-00003.safetensors", 100}};
  WeightFileChoice c = choose_weight_files(in);
  EXPECT_EQ(c.files.size(), 3u);
  EXPECT_EQ(c.warning, "");
}

TEST(ChooseWeightFiles, SkippedNamesAreQuoted) {
  WeightFileChoice c = choose_weight_files(
      files({"evil\n.safetensors", "m-1-of-1.safetensors"}));
  EXPECT_EQ(c.warning,
            "sized the complete shard set 'm-1-of-1.safetensors' (1 file) and skipped "
            "'evil\\n.safetensors', so that no weight is counted twice");
}

}  // namespace
}  // namespace memfit
