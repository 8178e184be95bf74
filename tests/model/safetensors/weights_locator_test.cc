// Tests of the folder and single-file weights rules (docs/weights.md,
// include/memfit/weights.h) and of the index parser.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "memfit/weights.h"
#include "support/paths.h"
#include "support/recording_file_system.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

const std::string kCorpusDir = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// An index naming, for each tensor, the shard that holds it.
std::string index_json(const std::map<std::string, std::string>& weight_map, uint64_t total_bytes) {
  nlohmann::json index;
  index["metadata"]["total_size"] = total_bytes;
  index["weight_map"] = weight_map;
  return index.dump(2);
}

// An index naming shards "tensor.<i>" -> shard_names[i].
std::string index_naming(const std::vector<std::string>& shard_names, uint64_t total_bytes) {
  std::map<std::string, std::string> weight_map;
  for (size_t i = 0; i < shard_names.size(); ++i) {
    weight_map["tensor." + std::to_string(i)] = shard_names[i];
  }
  return index_json(weight_map, total_bytes);
}

// "model-00003-of-00046.safetensors"
std::string shard_name(int number, int count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", number, count);
  return name;
}

class WeightsLocatorTest : public ::testing::Test {
 protected:
  // Writes a sparse shard holding `tensors` in the model folder; returns its path.
  std::string write_shard(const std::string& name, const std::vector<TensorSpec>& tensors) {
    const std::string path = dir_.file_path("m/" + name);
    std::filesystem::create_directories(dir_.file_path("m"));
    write_safetensors_file(path, tensors, TensorData::kSparse);
    return path;
  }
  std::string write_model_file(const std::string& name, std::string_view bytes) {
    return dir_.write_file("m/" + name, bytes);
  }
  Result<WeightsLookup> find() { return find_folder_weights(fs_, model_dir(), warnings_); }
  std::string model_dir() const { return dir_.file_path("m"); }
  std::string model_path(const std::string& name) const { return model_dir() + "/" + name; }

  TempDir dir_;
  std::unique_ptr<FileSystem> real_fs_ = make_real_file_system();
  RecordingFileSystem fs_{*real_fs_};
  std::vector<std::string> warnings_;
};

// A 1024 x 4096 BF16 matrix: 1024 * 4096 * 2 = 8388608 bytes.
const TensorSpec kMatrix{"layers.0.mlp.up_proj.weight", "BF16", {1024, 4096}, {}};
// A 4096 F32 vector: 4096 * 4 = 16384 bytes.
const TensorSpec kNorm{"layers.0.norm.weight", "F32", {4096}, {}};

TEST(WeightsSource, SpellingsMatchTheReportField) {
  EXPECT_EQ(to_string(WeightsSource::kSafetensorsHeader), "safetensors_header");
  EXPECT_EQ(to_string(WeightsSource::kSafetensorsIndex), "safetensors_index");
  EXPECT_EQ(to_string(WeightsSource::kGgufHeader), "gguf_header");
  EXPECT_EQ(to_string(WeightsSource::kAnalyticalConfig), "analytical_config");
  EXPECT_EQ(to_string(WeightsSource::kFallback), "fallback");
}

// --- A single file ------------------------------------------------------------

TEST_F(WeightsLocatorTest, SingleFileIsSizedFromItsHeader) {
  const std::string path = write_shard("model.safetensors", {kMatrix, kNorm});
  Result<WeightsInfo> info = read_single_file_weights(fs_, path);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_EQ(info->bytes, 8404992u);  // 8388608 + 16384
  EXPECT_EQ(info->source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(info->file_count, 1u);
  EXPECT_EQ(info->tensor_count, 2u);
  EXPECT_TRUE(info->verified);
}

TEST_F(WeightsLocatorTest, SingleFileErrorNamesTheFile) {
  const std::string json = R"({"x.weight":{"dtype":"U8","shape":[6],"data_offsets":[10,4]}})";
  const std::string path = write_model_file(
      "model.safetensors", safetensors_length_prefix(json.size()) + json + "0123456789");
  Result<WeightsInfo> info = read_single_file_weights(fs_, path);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().message(),
            "reading '" + path +
                "': safetensors header: data_offsets of 'x.weight' [10, 4] are "
                "reversed");
}

// --- A folder without an index ---------------------------------------------

TEST_F(WeightsLocatorTest, FolderWithoutIndexSumsTheHeadersOfEveryShard) {
  const std::string a = write_shard(shard_name(1, 2), {kMatrix, kNorm});
  const std::string b = write_shard(shard_name(2, 2), {kMatrix});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_TRUE(lookup->found);
  EXPECT_EQ(lookup->info.bytes, 16793600u);  // (8388608 + 16384) + 8388608
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(lookup->info.file_count, 2u);
  EXPECT_EQ(lookup->info.tensor_count, 3u);
  EXPECT_TRUE(lookup->info.verified);
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
  // Only prefixes and headers were read: never tensor data.
  const uint64_t a_header = safetensors_header_json({kMatrix, kNorm}).size();
  const uint64_t b_header = safetensors_header_json({kMatrix}).size();
  EXPECT_EQ(fs_.reads(),
            (std::vector<FileRead>{{a, 0, 8}, {a, 8, a_header}, {b, 0, 8}, {b, 8, b_header}}));
}

TEST_F(WeightsLocatorTest, ManyShardsAreSummedAndOnlyTheirHeadersAreRead) {
  // Enough shards to be parsed on several threads.
  std::vector<FileRead> expected_reads;
  for (int i = 1; i <= 40; ++i) {
    const std::string path = write_shard(shard_name(i, 40), {kMatrix, kNorm});
    expected_reads.push_back({path, 0, 8});
    expected_reads.push_back({path, 8, safetensors_header_json({kMatrix, kNorm}).size()});
  }
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 336199680u);  // 40 x (8388608 + 16384)
  EXPECT_EQ(lookup->info.tensor_count, 80u);
  EXPECT_EQ(lookup->info.file_count, 40u);
  std::vector<FileRead> reads = fs_.reads();
  auto by_path = [](const FileRead& a, const FileRead& b) {
    return std::tie(a.path, a.offset_bytes) < std::tie(b.path, b.offset_bytes);
  };
  std::sort(reads.begin(), reads.end(), by_path);
  EXPECT_EQ(reads, expected_reads);
}

TEST_F(WeightsLocatorTest, FirstBadShardInNameOrderIsReportedWhateverTheThreadsDo) {
  const std::string json = R"({"x.weight":{"dtype":"U8","shape":[6],"data_offsets":[10,4]}})";
  const std::string bad_bytes = safetensors_length_prefix(json.size()) + json + "0123456789";
  for (int i = 1; i <= 40; ++i) {
    if (i == 17 || i == 18 || i == 33) {
      write_model_file(shard_name(i, 40), bad_bytes);
    } else {
      write_shard(shard_name(i, 40), {kNorm});
    }
  }
  for (int attempt = 0; attempt < 20; ++attempt) {
    Result<WeightsLookup> lookup = find();
    ASSERT_FALSE(lookup.ok());
    EXPECT_EQ(lookup.error().message(),
              "reading '" + model_path(shard_name(17, 40)) +
                  "': safetensors header: data_offsets of 'x.weight' [10, 4] are reversed");
  }
}

TEST_F(WeightsLocatorTest, WeightsAreTensorBytesNotFileSizes) {
  // Data region of 4096 bytes holding two 2-byte tensors with gaps.
  const std::string json = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                           R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[100,102]}})";
  write_model_file("model.safetensors",
                   safetensors_length_prefix(json.size()) + json + std::string(4096, '\0'));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 4u);  // 2 + 2, not the 4096-byte region
}

TEST_F(WeightsLocatorTest, FolderWithoutWeightsIsNotFound) {
  write_model_file("config.json", "{}");
  write_model_file("README.md", "# model");
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_FALSE(lookup->found);
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
}

TEST_F(WeightsLocatorTest, OnlyRegularSafetensorsFilesCount) {
  write_shard("model.safetensors", {kNorm});
  write_model_file("model.safetensors.bak", "junk");
  write_model_file(".safetensors", "junk");  // the suffix alone is no name
  dir_.make_dir("m/sub.safetensors");
  std::filesystem::create_symlink(dir_.file_path("m/gone"),
                                  dir_.file_path("m/dangling.safetensors"));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 16384u);
  EXPECT_EQ(lookup->info.file_count, 1u);
}

TEST_F(WeightsLocatorTest, SymlinkedShardsAreFollowed) {
  // The Hugging Face cache layout: snapshots/<rev>/x.safetensors -> blobs/<hash>.
  const std::string blob = dir_.file_path("blob");
  write_safetensors_file(blob, {kMatrix});
  dir_.make_dir("m");
  std::filesystem::create_symlink(blob, model_path("model.safetensors"));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8388608u);
}

TEST_F(WeightsLocatorTest, HeaderErrorInAShardNamesTheShard) {
  write_shard(shard_name(1, 4), {kNorm});
  write_shard(shard_name(2, 4), {kNorm});
  const std::string json = R"({"x.weight":{"dtype":"U8","shape":[6],"data_offsets":[10,4]}})";
  const std::string bad = write_model_file(
      shard_name(3, 4), safetensors_length_prefix(json.size()) + json + "0123456789");
  write_shard(shard_name(4, 4), {kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.error().message(),
            "reading '" + bad +
                "': safetensors header: data_offsets of 'x.weight' [10, 4] are "
                "reversed");
}

TEST_F(WeightsLocatorTest, MissingFolderIsAnError) {
  Result<WeightsLookup> lookup = find_folder_weights(fs_, dir_.file_path("absent"), warnings_);
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.error().message(),
            std::string("'") + dir_.file_path("absent") + "': No such file or directory");
}

// --- Numbered shard sets beside other files (no index) -----------------------

TEST_F(WeightsLocatorTest, CompleteShardSetWinsOverAStrayConsolidatedFile) {
  const std::string a = write_shard(shard_name(1, 2), {kMatrix});
  const std::string b = write_shard(shard_name(2, 2), {kNorm});
  write_shard("model.safetensors", {kMatrix, kNorm});  // the same weights, consolidated
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8404992u);  // 8388608 + 16384, not twice that
  EXPECT_EQ(lookup->info.file_count, 2u);
  EXPECT_EQ(lookup->info.tensor_count, 2u);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "sized the complete shard set 'model-00001-of-00002.safetensors' .. "
                           "'model-00002-of-00002.safetensors' (2 files) and skipped "
                           "'model.safetensors', so that no weight is counted twice"});
  // The skipped file's header is not even read.
  EXPECT_EQ(fs_.reads(), (std::vector<FileRead>{
                             {a, 0, 8},
                             {a, 8, safetensors_header_json({kMatrix}).size()},
                             {b, 0, 8},
                             {b, 8, safetensors_header_json({kNorm}).size()}}));
}

TEST_F(WeightsLocatorTest, ShardsNumberedFromZeroStayInTheirSet) {
  // gpt-oss ships model-00000-of-00002 beside 00001 and 00002.
  write_shard(shard_name(0, 2), {kNorm});
  write_shard(shard_name(1, 2), {kMatrix});
  write_shard(shard_name(2, 2), {kNorm});
  write_shard("model.safetensors", {kMatrix, kNorm, kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8421376u);  // 8388608 + 2 x 16384
  EXPECT_EQ(lookup->info.file_count, 3u);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0],
            "sized the complete shard set 'model-00000-of-00002.safetensors' .. "
            "'model-00002-of-00002.safetensors' (3 files) and skipped 'model.safetensors', so "
            "that no weight is counted twice");
}

TEST_F(WeightsLocatorTest, OfTwoCompleteShardSetsTheOneWithMoreShardsIsSized) {
  write_shard(shard_name(1, 2), {kMatrix});
  write_shard(shard_name(2, 2), {kMatrix});
  for (int i = 1; i <= 3; ++i) write_shard(shard_name(i, 3), {kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 49152u);  // 3 x 16384
  EXPECT_EQ(lookup->info.file_count, 3u);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "sized the complete shard set 'model-00001-of-00003.safetensors' .. "
                           "'model-00003-of-00003.safetensors' (3 files) and skipped the shard "
                           "set 'model-00001-of-00002.safetensors' .. "
                           "'model-00002-of-00002.safetensors' (2 files), so that no weight is "
                           "counted twice"});
}

TEST_F(WeightsLocatorTest, ConsolidatedFileWinsOverAnIncompleteShardSet) {
  // An interrupted download: 2 of 3 shards beside the whole consolidated copy.
  write_shard(shard_name(1, 3), {kMatrix});
  write_shard(shard_name(2, 3), {kMatrix});
  write_shard("consolidated.safetensors", {kMatrix, kMatrix, kMatrix, kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 25182208u);  // 3 x 8388608 + 16384
  EXPECT_EQ(lookup->info.file_count, 1u);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "skipped the incomplete shard set 'model-00001-of-00003.safetensors' "
                           ".. 'model-00002-of-00003.safetensors' (2 of its 3 shards) and sized "
                           "'consolidated.safetensors' instead, so that no weight is counted "
                           "twice"});
}

TEST_F(WeightsLocatorTest, SmallLooseFileBesideAnIncompleteShardSetIsAddedNotChosen) {
  // adapter.safetensors (16,384 B of data) is smaller than the 2 shards
  // already there, so it cannot be a whole copy: every file is summed.
  write_shard(shard_name(1, 3), {kMatrix});
  write_shard(shard_name(2, 3), {kMatrix});
  write_shard("adapter.safetensors", {kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 16793600u);  // 2 x 8388608 + 16384
  EXPECT_EQ(lookup->info.file_count, 3u);
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
}

TEST_F(WeightsLocatorTest, StaleIndexFallbackAlsoLeavesOutAStrayCopy) {
  write_model_file("model.safetensors.index.json",
                   index_naming({shard_name(1, 5), shard_name(5, 5)}, 999));
  write_shard(shard_name(1, 2), {kMatrix});
  write_shard(shard_name(2, 2), {kNorm});
  write_shard("model.safetensors", {kMatrix, kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8404992u);  // 8388608 + 16384
  EXPECT_EQ(warnings_, (std::vector<std::string>{
                           "model.safetensors.index.json is stale: 2 of its 2 shards are "
                           "missing; sized the 2 *.safetensors files in the folder from their "
                           "headers instead",
                           "sized the complete shard set 'model-00001-of-00002.safetensors' .. "
                           "'model-00002-of-00002.safetensors' (2 files) and skipped "
                           "'model.safetensors', so that no weight is counted twice"}));
}

// --- Keeping the tensor list --------------------------------------------------

TEST_F(WeightsLocatorTest, KeptTensorsComeFromTheSameSinglePass) {
  const std::string a = write_shard(shard_name(1, 2), {kMatrix, kNorm});
  const std::string b = write_shard(shard_name(2, 2), {kMatrix});
  Result<WeightsLookup> lookup = find_folder_weights(fs_, model_dir(), warnings_, {true});
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 16793600u);  // (8388608 + 16384) + 8388608
  ASSERT_EQ(lookup->tensors.size(), 3u);      // file-name order, header order within
  EXPECT_EQ(lookup->tensors[0].name, kMatrix.name);
  EXPECT_EQ(lookup->tensors[1].name, kNorm.name);
  EXPECT_EQ(lookup->tensors[1].data_bytes, 16384u);
  EXPECT_EQ(lookup->tensors[2].shape, (std::vector<uint64_t>{1024, 4096}));
  EXPECT_EQ(fs_.reads(), (std::vector<FileRead>{
                             {a, 0, 8},
                             {a, 8, safetensors_header_json({kMatrix, kNorm}).size()},
                             {b, 0, 8},
                             {b, 8, safetensors_header_json({kMatrix}).size()}}));
}

TEST_F(WeightsLocatorTest, KeptTensorsOfManyShardsAreInFileOrderWhateverTheThreadsDo) {
  for (int i = 1; i <= 40; ++i) {
    write_shard(shard_name(i, 40), {{"layers." + std::to_string(i) + ".norm.weight", "F32",
                                     {4096}, {}}});
  }
  Result<WeightsLookup> lookup = find_folder_weights(fs_, model_dir(), warnings_, {true});
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 655360u);  // 40 x 16384
  ASSERT_EQ(lookup->tensors.size(), 40u);
  for (int i = 1; i <= 40; ++i) {
    EXPECT_EQ(lookup->tensors[i - 1].name, "layers." + std::to_string(i) + ".norm.weight");
  }
  EXPECT_EQ(fs_.reads().size(), 80u);  // a prefix and a header per shard, once each
}

TEST_F(WeightsLocatorTest, TrustedIndexIsCheckedAgainstItsShardsWhenTensorsAreKept) {
  const std::string a = write_shard(shard_name(1, 2), {kMatrix});
  const std::string b = write_shard(shard_name(2, 2), {kNorm});
  write_shard("stray.safetensors", {kMatrix});  // not in the index: not read
  const std::string index = index_json({{"layers.0.mlp.up_proj.weight", shard_name(1, 2)},
                                        {"layers.0.norm.weight", shard_name(2, 2)}},
                                       123456789);
  const std::string index_path = write_model_file("model.safetensors.index.json", index);
  Result<WeightsLookup> lookup = find_folder_weights(fs_, model_dir(), warnings_, {true});
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8404992u);  // the headers: 8388608 + 16384
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsHeader);
  EXPECT_TRUE(lookup->info.verified);
  EXPECT_EQ(lookup->info.file_count, 2u);
  EXPECT_EQ(lookup->info.tensor_count, 2u);
  EXPECT_EQ(lookup->tensors.size(), 2u);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json: total_size 123456789 bytes differs "
                           "from the 8404992 bytes its shards' headers hold; the headers' sum is "
                           "used"});
  EXPECT_EQ(fs_.reads(), (std::vector<FileRead>{
                             {index_path, 0, index.size()},
                             {a, 0, 8},
                             {a, 8, safetensors_header_json({kMatrix}).size()},
                             {b, 0, 8},
                             {b, 8, safetensors_header_json({kNorm}).size()}}));
}

TEST_F(WeightsLocatorTest, IndexAloneKeepsNoTensors) {
  write_model_file("model.safetensors.index.json", index_naming({shard_name(1, 1)}, 777));
  Result<WeightsLookup> lookup = find_folder_weights(fs_, model_dir(), warnings_, {true});
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 777u);
  EXPECT_FALSE(lookup->info.verified);
  EXPECT_TRUE(lookup->tensors.empty());
}

TEST_F(WeightsLocatorTest, SingleFileKeepsItsTensors) {
  const std::string path = write_shard("model.safetensors", {kMatrix, kNorm});
  Result<WeightsLookup> lookup = read_single_file_weights(fs_, path, {true});
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8404992u);
  ASSERT_EQ(lookup->tensors.size(), 2u);
  EXPECT_EQ(lookup->tensors[1].name, kNorm.name);
}

// --- A folder with an index ---------------------------------------------------

TEST_F(WeightsLocatorTest, ValidatedIndexIsTrustedWithoutReadingHeaders) {
  write_shard(shard_name(1, 2), {kMatrix});
  write_shard(shard_name(2, 2), {kNorm});
  // total_size differs from the headers (8404992) on purpose: it is trusted as is.
  const std::string index = index_json({{"layers.0.mlp.up_proj.weight", shard_name(1, 2)},
                                        {"layers.0.norm.weight", shard_name(2, 2)},
                                        {"layers.1.norm.weight", shard_name(2, 2)}},
                                       123456789);
  const std::string index_path = write_model_file("model.safetensors.index.json", index);
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_TRUE(lookup->found);
  EXPECT_EQ(lookup->info.bytes, 123456789u);
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsIndex);
  EXPECT_EQ(lookup->info.file_count, 2u);  // distinct shards
  EXPECT_EQ(lookup->info.tensor_count, 0u);
  EXPECT_TRUE(lookup->info.verified);
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
  EXPECT_EQ(fs_.reads(), (std::vector<FileRead>{{index_path, 0, index.size()}}));
}

// The real file system reads the index into a padded buffer
// (FileSystem::read_file_padded), whatever its length against the page size:
// here it fills its page exactly.
TEST_F(WeightsLocatorTest, IndexFillingItsLastPageIsParsedFromThePaddedBuffer) {
  write_shard(shard_name(1, 2), {kMatrix});
  write_shard(shard_name(2, 2), {kNorm});
  std::string index = index_json({{"layers.0.mlp.up_proj.weight", shard_name(1, 2)},
                                  {"layers.0.norm.weight", shard_name(2, 2)}},
                                 8404992);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_LT(index.size(), page);
  index.append(page - index.size(), ' ');  // JSON allows trailing whitespace
  write_model_file("model.safetensors.index.json", index);
  Result<WeightsLookup> lookup = find_folder_weights(*real_fs_, model_dir(), warnings_);
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 8404992u);
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsIndex);
  EXPECT_EQ(lookup->info.file_count, 2u);
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
}

TEST_F(WeightsLocatorTest, IndexNamingShardsThatAreNotSafetensorsFilesIsTrustedWhenTheyExist) {
  write_model_file("weights.bin", "data");
  write_model_file("model.safetensors.index.json", index_naming({"weights.bin"}, 4));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsIndex);
  EXPECT_EQ(lookup->info.bytes, 4u);
}

TEST_F(WeightsLocatorTest, StaleIndexFallsBackToTheFolderHeaders) {
  // The real case: a quantized repo kept its source's index naming 46
  // shards; the folder holds 12 others.
  std::vector<std::string> indexed;
  for (int i = 1; i <= 46; ++i) indexed.push_back(shard_name(i, 46));
  write_model_file("model.safetensors.index.json", index_naming(indexed, 140'000'000'000));
  for (int i = 1; i <= 12; ++i) write_shard(shard_name(i, 12), {kMatrix});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 100663296u);  // 12 x 8388608
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(lookup->info.file_count, 12u);
  EXPECT_TRUE(lookup->info.verified);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json is stale: 46 of its 46 shards are "
                           "missing; sized the 12 *.safetensors files in the folder from their "
                           "headers instead"});
}

TEST_F(WeightsLocatorTest, IndexMissingOneShardFallsBackToTheFolderHeaders) {
  write_model_file("model.safetensors.index.json",
                   index_naming({shard_name(1, 3), shard_name(2, 3), shard_name(3, 3)}, 999));
  write_shard(shard_name(1, 3), {kNorm});
  write_shard(shard_name(3, 3), {kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 32768u);  // 2 x 16384
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json is stale: 1 of its 3 shards is "
                           "missing; sized the 2 *.safetensors files in the folder from their "
                           "headers instead"});
}

TEST_F(WeightsLocatorTest, IndexAloneGivesAnUnverifiedTotal) {
  write_model_file("config.json", "{}");
  write_model_file(
      "model.safetensors.index.json",
      index_naming({shard_name(1, 4), shard_name(2, 4), shard_name(3, 4), shard_name(4, 4)},
                   16060522496));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_TRUE(lookup->found);
  EXPECT_EQ(lookup->info.bytes, 16060522496u);
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsIndex);
  EXPECT_EQ(lookup->info.file_count, 4u);  // the shards it names
  EXPECT_FALSE(lookup->info.verified);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json: total_size 16060522496 bytes is "
                           "unverified: no *.safetensors file is in the folder"});
}

TEST_F(WeightsLocatorTest, ShardNamesThatAreNotPlainFileNamesAreNeverTrusted) {
  // Each name's target exists where it could be reached, yet the index is
  // not trusted: the one local file's header is read instead.
  dir_.write_file("x.safetensors", "outside the folder");
  dir_.write_file("m/sub/dir.safetensors", "in a sub-folder");
  for (const std::string& unsafe :
       {std::string("../x.safetensors"), dir_.file_path("x.safetensors"),
        std::string("sub/dir.safetensors"), std::string("sub\\dir.safetensors"), std::string(".."),
        std::string("."), std::string(""), std::string("C:x.safetensors"),
        std::string("a\0b.safetensors", 15)}) {
    SCOPED_TRACE(unsafe);
    warnings_.clear();
    write_model_file("model.safetensors.index.json",
                     index_naming({"model.safetensors", unsafe}, 777));
    write_shard("model.safetensors", {kNorm});
    Result<WeightsLookup> lookup = find();
    ASSERT_TRUE(lookup.ok()) << lookup.error().message();
    EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsHeader);
    EXPECT_EQ(lookup->info.bytes, 16384u);
    ASSERT_EQ(warnings_.size(), 1u);
    EXPECT_TRUE(
        warnings_[0].starts_with("model.safetensors.index.json is not trusted: "
                                 "shard name '"));
    EXPECT_TRUE(
        warnings_[0].ends_with("' is not a plain file name; sized the 1 *.safetensors file in "
                               "the folder from its header instead"));
  }
}

TEST_F(WeightsLocatorTest, UntrustedNameWarningQuotesTheName) {
  write_model_file("model.safetensors.index.json", index_naming({"../x.safetensors"}, 777));
  write_shard("model.safetensors", {kNorm});
  ASSERT_TRUE(find().ok());
  EXPECT_EQ(warnings_,
            std::vector<std::string>{"model.safetensors.index.json is not trusted: shard name "
                                     "'../x.safetensors' is not a plain file name; sized the 1 "
                                     "*.safetensors file in the folder from its header instead"});
}

TEST_F(WeightsLocatorTest, UntrustedIndexWithoutLocalShardsGivesAnUnverifiedTotal) {
  dir_.write_file("x.safetensors", "outside the folder");
  write_model_file("model.safetensors.index.json", index_naming({"../x.safetensors"}, 777));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 777u);
  EXPECT_FALSE(lookup->info.verified);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json: total_size 777 bytes is unverified: "
                           "no *.safetensors file is in the folder"});
}

TEST_F(WeightsLocatorTest, UnusableIndexBesideShardsFallsBackWithAWarning) {
  write_shard("model.safetensors", {kNorm});
  write_model_file("model.safetensors.index.json", R"({"weight_map":{"a":"model.safetensors"}})");
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 16384u);
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json is unusable (safetensors index: no "
                           "metadata.total_size); sized the 1 *.safetensors file in the folder "
                           "from its header instead"});
}

TEST_F(WeightsLocatorTest, IndexThatIsNotJsonBesideShardsFallsBackWithAWarning) {
  write_shard("model.safetensors", {kNorm});
  write_model_file("model.safetensors.index.json", "<html>rate limited</html>");
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 16384u);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0],
            "model.safetensors.index.json is unusable (safetensors index: invalid JSON: the text "
            "does not start with a JSON value); sized the 1 *.safetensors file in the folder from "
            "its header instead");
}

TEST_F(WeightsLocatorTest, UnusableIndexAloneIsAnErrorNamingIt) {
  const std::string index_path = write_model_file(
      "model.safetensors.index.json", R"({"metadata":{"total_size":-5},"weight_map":{"a":"b"}})");
  Result<WeightsLookup> lookup = find();
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.error().message(),
            "reading '" + index_path +
                "': safetensors index: metadata.total_size is not a non-negative integer");
}

TEST_F(WeightsLocatorTest, OversizedIndexIsNotRead) {
  const std::string index_path = write_model_file("model.safetensors.index.json", "{");
  std::filesystem::resize_file(index_path, kMaxSafetensorsIndexBytes + 1);  // sparse
  Result<WeightsLookup> lookup = find();
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.error().message(),
            "reading '" + index_path +
                "': safetensors index: file is 67108865 bytes, over the 67108864-byte (64 MiB) "
                "limit");
  EXPECT_TRUE(fs_.reads().empty());
}

// --- Real checkpoints -----------------------------------------------------------

TEST_F(WeightsLocatorTest, RealSingleShardIndexIsTrusted) {
  // Qwen3-1.7B-MLX-bf16: one shard, "model.safetensors", total 3441149952.
  write_model_file(
      "model.safetensors.index.json",
      read_text(kCorpusDir + "/qwen3/Qwen3-1.7B-MLX-bf16/model.safetensors.index.json"));
  write_shard("model.safetensors", {kNorm});
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 3441149952u);
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsIndex);
  EXPECT_EQ(lookup->info.file_count, 1u);
}

TEST_F(WeightsLocatorTest, RealIndexWithoutShardsGivesItsUnverifiedTotal) {
  write_model_file(
      "model.safetensors.index.json",
      read_text(kCorpusDir + "/llama3/Llama-3.1-8B-ft-bnb-int8/model.safetensors.index.json"));
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 11188584672u);
  EXPECT_EQ(lookup->info.file_count, 6u);
  EXPECT_FALSE(lookup->info.verified);
}

TEST_F(WeightsLocatorTest, RealPerTensorShardsAreSizedFromHeadersWhenMostAreMissing) {
  // Llama-3.2-3B saved one tensor per shard: the index names 254 shards.
  // The corpus keeps the parsed headers and file sizes of 11 small ones
  // (BF16 [3072] norms, 3072 x 2 = 6144 bytes each); rebuilt here with the
  // reference writer's layout, each must come out at its recorded size.
  const std::string corpus = kCorpusDir + "/llama3/Llama-3.2-3B-pertensor-shards";
  write_model_file("model.safetensors.index.json",
                   read_text(corpus + "/model.safetensors.index.json"));
  const auto headers =
      nlohmann::ordered_json::parse(read_text(corpus + "/small_safetensors_headers.json"));
  for (const auto& [name, shard] : headers.items()) {
    std::string json = shard["header"].dump();
    json.append((8 - json.size() % 8) % 8, ' ');
    const std::string path = write_model_file(name, safetensors_length_prefix(json.size()) + json);
    std::filesystem::resize_file(path, 8 + json.size() + 6144);
    EXPECT_EQ(std::filesystem::file_size(path), shard["file_size"].get<uint64_t>()) << name;
  }
  Result<WeightsLookup> lookup = find();
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.bytes, 67584u);  // 11 x 6144
  EXPECT_EQ(lookup->info.tensor_count, 11u);
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "model.safetensors.index.json is stale: 243 of its 254 shards are "
                           "missing; sized the 11 *.safetensors files in the folder from their "
                           "headers instead"});
}

// --- parse_safetensors_index ----------------------------------------------------

std::string index_error(std::string_view json) {
  Result<SafetensorsIndex> index = parse_safetensors_index(json);
  return index.ok() ? "ok" : index.error().message();
}

TEST(SafetensorsIndex, ListsDistinctShardsSorted) {
  Result<SafetensorsIndex> index = parse_safetensors_index(
      R"({"metadata":{"format":"pt","total_size":1000},"weight_map":{)"
      R"("c":"b.safetensors","a":"a.safetensors","d":"b.safetensors","e":"a.safetensors"}})");
  ASSERT_TRUE(index.ok()) << index.error().message();
  EXPECT_EQ(index->shard_names, (std::vector<std::string>{"a.safetensors", "b.safetensors"}));
  EXPECT_EQ(index->total_bytes, 1000u);
  EXPECT_EQ(index->tensor_count, 4u);
}

// Shard names are compared as written while a run lasts; a name spelt
// another way (an escape, a space before the '}') is unescaped and is still
// the same shard.
TEST(SafetensorsIndex, ShardNamesAreDistinctOnceUnescaped) {
  Result<SafetensorsIndex> index = parse_safetensors_index(
      R"({"metadata":{"total_size":1},"weight_map":{"a":"x.safetensors","b":"x.safetensors",)"
      R"("c":"x\u002esafetensors","d":"y\"z","e":"y\u0022z" , "f":"x.safetensors" }})");
  ASSERT_TRUE(index.ok()) << index.error().message();
  EXPECT_EQ(index->shard_names, (std::vector<std::string>{"x.safetensors", "y\"z"}));
  EXPECT_EQ(index->tensor_count, 6u);
}

TEST(SafetensorsIndex, ValueAfterARunOfOneShardMustStillBeAString) {
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1},"weight_map":{"a":"x","b":"x","c":3}})"),
            "safetensors index: weight_map value of 'c' is not a string");
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1},"weight_map":{"a":"x","b":"x","c":"x)"),
            "safetensors index: invalid JSON: A string is opened, but never closed.");
}

TEST(SafetensorsIndex, IntegralFloatTotalSizeIsAccepted) {
  Result<SafetensorsIndex> index = parse_safetensors_index(
      R"({"metadata":{"total_size":16060522496.0},"weight_map":{"a":"x"}})");
  ASSERT_TRUE(index.ok()) << index.error().message();
  EXPECT_EQ(index->total_bytes, 16060522496u);
}

TEST(SafetensorsIndex, MalformedIndexesAreRejected) {
  EXPECT_EQ(index_error("[]"), "safetensors index: JSON is not an object");
  EXPECT_EQ(index_error("{"),
            "safetensors index: invalid JSON: JSON document ended early in the middle of an "
            "object or array.");
  EXPECT_EQ(index_error("<html>"),
            "safetensors index: invalid JSON: the text does not start with a JSON value");
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1}})"), "safetensors index: no weight_map");
  EXPECT_EQ(index_error(R"({"weight_map":{"a":"x"}})"),
            "safetensors index: no metadata.total_size");
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1},"weight_map":[]})"),
            "safetensors index: weight_map is not an object");
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1},"weight_map":{}})"),
            "safetensors index: weight_map is empty");
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1},"weight_map":{"a\n":3}})"),
            "safetensors index: weight_map value of 'a\\n' is not a string");
  EXPECT_EQ(index_error(R"({"metadata":[],"weight_map":{"a":"x"}})"),
            "safetensors index: metadata is not an object");
  for (const char* total : {"-1", "1.5", "\"100\"", "null", "18446744073709551616", "1e300"}) {
    EXPECT_EQ(index_error(std::string(R"({"metadata":{"total_size":)") + total +
                          R"(},"weight_map":{"a":"x"}})"),
              "safetensors index: metadata.total_size is not a non-negative integer")
        << total;
  }
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":1},"weight_map":{"a":"x"}} {})"),
            "safetensors index: unexpected text after the JSON object");
}

}  // namespace
}  // namespace memfit
