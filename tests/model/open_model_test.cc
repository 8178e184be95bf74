// open_model on folders that hold a config and no weights, and the whole
// corpus: every real config opens with its KV cache sized.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "memfit/kv_cache.h"
#include "memfit/model.h"
#include "support/paths.h"
#include "support/recording_file_system.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

TEST(OpenModel, ConfigOnlyFolderIsSizedAnalytically) {
  // Llama-3.1-8B counts 8,030,261,248 parameters (tests/model/config/model_config_test.cc):
  // x 2 bytes = 16,060,522,496, unverified, with a warning.
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> m = open_model(*fs, std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/llama3/Meta-Llama-3.1-8B");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.source, WeightsSource::kAnalyticalConfig);
  EXPECT_EQ(m->weights.bytes, 16060522496u);
  EXPECT_FALSE(m->weights.verified);
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_NE(m->warnings[0].find("8030261248 parameters x 2 bytes"), std::string::npos);
}

// A llama folder with two shards and a trusted index.
struct IndexedLlama {
  TempDir dir;
  std::string a = dir.file_path("model-00001-of-00002.safetensors");
  std::string b = dir.file_path("model-00002-of-00002.safetensors");
  IndexedLlama() {
    dir.write_file("config.json", R"({"model_type":"llama","num_hidden_layers":2,
        "hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})");
    // 100 x 64 BF16 = 12,800; 64 x 64 BF16 = 8,192; 64 F32 = 256.
    write_safetensors_file(a, {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt}});
    write_safetensors_file(b, {{"model.layers.0.self_attn.q_proj.weight", "BF16", {64, 64},
                                std::nullopt},
                               {"model.norm.weight", "F32", {64}, std::nullopt}});
    nlohmann::json index;
    index["metadata"]["total_size"] = 21248;  // 12,800 + 8,192 + 256
    index["weight_map"] = {{"model.embed_tokens.weight", "model-00001-of-00002.safetensors"},
                           {"model.layers.0.self_attn.q_proj.weight",
                            "model-00002-of-00002.safetensors"},
                           {"model.norm.weight", "model-00002-of-00002.safetensors"}};
    dir.write_file("model.safetensors.index.json", index.dump());
  }
};

std::map<std::string, int> prefix_reads(const RecordingFileSystem& fs) {
  std::map<std::string, int> out;
  for (const FileRead& read : fs.reads()) {
    if (read.offset_bytes == 0 && read.length_bytes == 8) ++out[read.path];
  }
  return out;
}

TEST(OpenModel, KeepTensorsReadsEachHeaderOnceAndKeepsTheList) {
  IndexedLlama llama;
  std::unique_ptr<FileSystem> real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<Model> m = open_model(fs, llama.dir.path(), OpenModelOptions{.keep_tensors = true});
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 21248u);  // the headers' sum, equal to total_size
  EXPECT_EQ(m->weights.source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(m->weights.tensor_count, 3u);
  ASSERT_EQ(m->tensors.size(), 3u);
  EXPECT_EQ(m->tensors[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(m->tensors[2].data_bytes, 256u);
  EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
  EXPECT_EQ(prefix_reads(fs), (std::map<std::string, int>{{llama.a, 1}, {llama.b, 1}}));
}

TEST(OpenModel, WithoutKeepTensorsATrustedIndexIsNotCheckedAgainstHeaders) {
  IndexedLlama llama;
  std::unique_ptr<FileSystem> real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<Model> m = open_model(fs, llama.dir.path());
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 21248u);
  EXPECT_EQ(m->weights.source, WeightsSource::kSafetensorsIndex);
  EXPECT_TRUE(m->tensors.empty());
  EXPECT_TRUE(prefix_reads(fs).empty());
}

TEST(OpenModel, KeepTensorsOnASingleFile) {
  IndexedLlama llama;
  std::unique_ptr<FileSystem> real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<Model> m = open_model(fs, llama.b, OpenModelOptions{.keep_tensors = true});
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 8448u);  // 8,192 + 256
  ASSERT_EQ(m->tensors.size(), 2u);
  EXPECT_EQ(prefix_reads(fs), (std::map<std::string, int>{{llama.b, 1}}));
}

TEST(OpenModel, EveryCorpusConfigOpensWithItsCacheSized) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  int opened = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::string(MEMFIT_TEST_DATA_DIR) + "/corpus")) {
    if (entry.path().filename() != "config.json") continue;
    std::string dir = entry.path().parent_path().string();
    Result<Model> m = open_model(*fs, dir);
    ASSERT_TRUE(m.ok()) << dir << ": " << m.error().message();
    Result<KvCacheEstimate> kv = estimate_kv_cache(m->spec, 8192, 1, KvElement::kFp16);
    ASSERT_TRUE(kv.ok()) << dir;
    EXPECT_TRUE(kv->available) << dir;
    EXPECT_GT(kv->total_bytes, 0u) << dir;
    EXPECT_EQ(kv->detail.find("unavailable"), std::string::npos) << dir;
    ++opened;
  }
  EXPECT_EQ(opened, 50);
}

}  // namespace
}  // namespace memfit
