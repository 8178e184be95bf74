// A folder of GGUF models priced file by file (memfit/gguf_repo.h): the
// models found (split sets summed, projectors aside), their exact sizes,
// the estimate each gets (the one inspect gives for the file alone), and
// the most precise model that fits.
#include "memfit/gguf_repo.h"

#include <gtest/gtest.h>

#include "hub/gguf_quant.h"
#include "support/gguf_writer.h"
#include "support/small_ggufs.h"
#include "support/hf_cache_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

// The folder every test prices:
//   tiny-Q4_K_M.gguf   Q4_K [256, 64]: 1 block of 144 B x 64 rows = 9,216 B
//   tiny-Q8_0.gguf     Q8_0 [64, 100]: 2 blocks of 34 B x 100 rows = 6,800 B
//                      (padded to 6,816 B in the file: 213 x 32)
//   Q2_K/tiny-Q2_K-00001-of-00002.gguf  F16 [64, 100] = 12,800 B
//   Q2_K/tiny-Q2_K-00002-of-00002.gguf  Q4_K [256, 64] = 9,216 B
//   mmproj-F16.gguf    a projector, not a model
// Each file is its header, then its tensor data padded to 32 B: a file's
// size is header + padded data.
class GgufRepo : public ::testing::Test {
 protected:
  void SetUp() override {
    GgufWriter q4 = tiny_qwen3_gguf();
    q4.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
    q4.write(dir_.file_path("tiny-Q4_K_M.gguf"));
    q4_bytes_ = q4.header().size() + 9'216;
    GgufWriter q8 = tiny_qwen3_gguf();
    q8.add_tensor("token_embd.weight", GgmlType::kQ8_0, {64, 100});
    q8.write(dir_.file_path("tiny-Q8_0.gguf"));
    q8_bytes_ = q8.header().size() + 6'816;
    q8.write(dir_.file_path("mmproj-F16.gguf"));
    dir_.make_dir("Q2_K");
    GgufWriter first = tiny_qwen3_gguf();
    first.add_u16("split.no", 0).add_u16("split.count", 2).add_i32("split.tensors.count", 2);
    first.add_tensor("token_embd.weight", GgmlType::kF16, {64, 100});
    first.write(dir_.file_path("Q2_K/tiny-Q2_K-00001-of-00002.gguf"));
    GgufWriter second;
    second.add_u16("split.no", 1).add_u16("split.count", 2).add_i32("split.tensors.count", 2);
    second.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
    second.write(dir_.file_path("Q2_K/tiny-Q2_K-00002-of-00002.gguf"));
    split_bytes_ = first.header().size() + 12'800 + second.header().size() + 9'216;
    request_.llamacpp.repack = RepackCpu::kNone;
    request_.llamacpp.ctx_size = 1024;
  }

  Result<GgufRepoPricing> price(uint64_t limit_bytes) {
    request_.memory_limit_bytes = limit_bytes;
    return price_gguf_repo(*fs_, dir_.path(), request_, context_);
  }

  TempDir dir_;
  uint64_t q4_bytes_ = 0;
  uint64_t q8_bytes_ = 0;
  uint64_t split_bytes_ = 0;
  EstimateRequest request_;
  std::unique_ptr<FileSystem> fs_ = make_real_file_system();
  LocalRequestContext context_{MapEnvironment{}};
};

TEST_F(GgufRepo, ListsEachModelWithItsExactSizeAndTag) {
  Result<GgufRepoPricing> p = price(uint64_t{64} << 30);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->models.size(), 3u);
  EXPECT_EQ(p->models[0].path, "Q2_K/tiny-Q2_K-00001-of-00002.gguf");
  EXPECT_EQ(p->models[0].quant, "Q2_K");
  EXPECT_EQ(p->models[0].file_count, 2u);
  EXPECT_EQ(p->models[0].size_bytes, split_bytes_);
  EXPECT_EQ(p->models[0].main_type, "f16");  // 12,800 B of f16 against 9,216 B of q4_K
  EXPECT_EQ(p->models[0].estimate.mapped_bytes, 22'016u);
  EXPECT_EQ(p->models[1].path, "tiny-Q4_K_M.gguf");
  EXPECT_EQ(p->models[1].quant, "Q4_K_M");
  EXPECT_EQ(p->models[1].main_type, "q4_K");
  EXPECT_EQ(p->models[1].size_bytes, q4_bytes_);
  EXPECT_EQ(p->models[1].estimate.mapped_bytes, 9'216u);
  EXPECT_EQ(p->models[2].path, "tiny-Q8_0.gguf");
  EXPECT_EQ(p->models[2].quant, "Q8_0");
  EXPECT_EQ(p->models[2].size_bytes, q8_bytes_);
  EXPECT_EQ(p->models[2].estimate.mapped_bytes, 6'800u);
  // Everything fits 64 GiB: the largest file is the most precise.
  EXPECT_EQ(p->recommended, 0u);
  EXPECT_EQ(p->models[0].estimate.context.n_ctx, 1024u);
}

TEST_F(GgufRepo, EachEstimateIsInspectsForTheFileAlone) {
  Result<GgufRepoPricing> p = price(uint64_t{64} << 30);
  ASSERT_TRUE(p.ok()) << p.error().message();
  for (const GgufRepoModel& m : p->models) {
    EstimateRequest alone = request_;
    alone.model = dir_.file_path(m.path);
    Result<EstimateRun> run = memfit::run(alone, context_);
    ASSERT_TRUE(run.ok()) << run.error().message();
    EXPECT_EQ(m.estimate.total_bytes, run->llamacpp->total_bytes) << m.path;
  }
}

TEST_F(GgufRepo, RecommendsTheLargestThatFits) {
  Result<GgufRepoPricing> all = price(uint64_t{64} << 30);
  ASSERT_TRUE(all.ok()) << all.error().message();
  const uint64_t split_total = all->models[0].estimate.total_bytes;
  const uint64_t q4_total = all->models[1].estimate.total_bytes;
  ASSERT_LT(q4_total, split_total);
  // A budget between the two: the split set no longer fits, Q4_K_M (the
  // larger of the two left) is chosen.
  Result<GgufRepoPricing> p = price((q4_total + split_total) / 2);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_FALSE(p->models[0].estimate.fits);
  EXPECT_TRUE(p->models[1].estimate.fits);
  ASSERT_TRUE(p->recommended);
  EXPECT_EQ(p->models[*p->recommended].path, "tiny-Q4_K_M.gguf");
  // Nothing fits one byte.
  p = price(1);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->recommended, std::nullopt);
}

TEST(GgufRepoTies, EqualSizesGoToTheHigherPrecisionType) {
  // Q8_0 [64, 100] is 6,800 B (8.5 bits a weight); F16 [68, 50] is 3,400
  // elements x 2 B = 6,800 B (16 bits): equal headers, equal files.
  TempDir dir;
  GgufWriter q8 = tiny_qwen3_gguf();
  q8.add_tensor("token_embd.weight", GgmlType::kQ8_0, {64, 100});
  q8.write(dir.file_path("a-Q8_0.gguf"));
  GgufWriter f16 = tiny_qwen3_gguf();
  f16.add_tensor("token_embd.weight", GgmlType::kF16, {68, 50});
  f16.write(dir.file_path("z-F16.gguf"));
  ASSERT_EQ(q8.file_bytes(), f16.file_bytes());
  EstimateRequest request;
  request.llamacpp.repack = RepackCpu::kNone;
  request.memory_limit_bytes = uint64_t{64} << 30;
  LocalRequestContext context{MapEnvironment{}};
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<GgufRepoPricing> p = price_gguf_repo(*fs, dir.path(), request, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->models.size(), 2u);
  ASSERT_TRUE(p->recommended);
  EXPECT_EQ(p->models[*p->recommended].path, "z-F16.gguf");
}

TEST(GgufQuantTag, TheEndOfTheFileNameWhenSpelledAsAGgmlType) {
  EXPECT_EQ(gguf_model_quant_tag("Qwen3-8B-Q4_K_M.gguf"), "Q4_K_M");
  EXPECT_EQ(gguf_model_quant_tag("Q4_K_M/Qwen3-8B-UD-Q4_K_XL-00001-of-00002.gguf"), "Q4_K_XL");
  EXPECT_EQ(gguf_model_quant_tag("llama.iq2_xxs.gguf"), "iq2_xxs");
  EXPECT_EQ(gguf_model_quant_tag("model-BF16.gguf"), "BF16");
  EXPECT_EQ(gguf_model_quant_tag("gpt-oss-MXFP4.gguf"), "MXFP4");
  EXPECT_EQ(gguf_model_quant_tag("Qwen3-8B.gguf"), "");  // "8B" is no type
  EXPECT_EQ(gguf_model_quant_tag("model.gguf"), "");
  EXPECT_EQ(gguf_model_quant_tag("Qwen3-8B-instruct.gguf"), "");
  EXPECT_TRUE(gguf_model_has_quant("Qwen3-8B-UD-Q4_K_XL-00001-of-00002.gguf", "Q4_K_XL"));
}

TEST(GgufRepoErrors, AnotherEngineOrNoModelIsRefused) {
  TempDir dir;
  EstimateRequest request;
  request.memory_limit_bytes = uint64_t{1} << 30;
  LocalRequestContext context{MapEnvironment{}};
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<GgufRepoPricing> p = price_gguf_repo(*fs, dir.path(), request, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "'" + dir.path() + "': no GGUF model in it");
  request.engine = "mlxcel";
  p = price_gguf_repo(*fs, dir.path(), request, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(p.error().field(), "engine");
}

TEST(GgufRepoFolderByName, ALocalFolderOrACachedRepoOfGgufModels) {
  TempDir dir;
  HfCacheWriter cache(dir.make_dir("hub"));
  GgufWriter q4 = tiny_qwen3_gguf();
  q4.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
  const std::string c = fake_commit('c');
  cache.add_gguf("org/tiny-GGUF", c, "tiny-Q4_K_M.gguf", q4);
  cache.set_ref("org/tiny-GGUF", "main", c);
  dir.make_dir("local");
  q4.write(dir.file_path("local/tiny-Q4_K_M.gguf"));
  dir.write_file("checkpoint/model.safetensors", "x");
  dir.write_file("checkpoint/tiny-Q4_K_M.gguf", "x");

  ModelNameOptions names;
  names.hf_cache.hub_cache_dir = dir.file_path("hub");
  names.hf_cache.offline = true;  // a name the cache lacks is not asked of the Hub
  std::shared_ptr<FileSystem> fs = make_real_file_system();
  Result<std::optional<GgufRepoFolder>> cached = find_gguf_repo_folder(fs, "org/tiny-GGUF", names);
  ASSERT_TRUE(cached.ok()) << cached.error().message();
  ASSERT_TRUE(*cached);
  EXPECT_EQ((*cached)->root, dir.file_path("hub") + "/models--org--tiny-GGUF/snapshots/" + c);
  Result<std::optional<GgufRepoFolder>> local = find_gguf_repo_folder(fs, dir.file_path("local"), names);
  ASSERT_TRUE(local.ok() && *local);
  EXPECT_EQ((*local)->root, dir.file_path("local"));
  // Not a folder of GGUF models: a file, a quant, a checkpoint, a name the cache lacks.
  for (const std::string& name :
       {dir.file_path("local/tiny-Q4_K_M.gguf"), std::string("org/tiny-GGUF:Q4_K_M"),
        dir.file_path("checkpoint"), std::string("org/absent")}) {
    Result<std::optional<GgufRepoFolder>> none = find_gguf_repo_folder(fs, name, names);
    ASSERT_TRUE(none.ok()) << name << ": " << none.error().message();
    EXPECT_FALSE(*none) << name;
  }
}

}  // namespace
}  // namespace memfit
