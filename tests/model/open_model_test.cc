// open_model on folders that hold a config and no weights, and the whole
// corpus: every real config opens with its KV cache sized.
#include <gtest/gtest.h>

#include <filesystem>

#include "memfit/kv_cache.h"
#include "memfit/model.h"

namespace memfit {
namespace {

TEST(OpenModel, ConfigOnlyFolderIsSizedAnalytically) {
  // Llama-3.1-8B counts 8,030,261,248 parameters (tests/model/model_config_test.cc):
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
  EXPECT_EQ(opened, 49);
}

}  // namespace
}  // namespace memfit
