// open_model_by_name on a generated Hugging Face cache: refs, snapshots
// whose files are relative links into blobs/, a safetensors repo with a
// pull-request ref, a GGUF repo with several quants and a split set; and
// every way a name is not found or refused.
#include "memfit/model_by_name.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "support/gguf_writer.h"
#include "support/small_ggufs.h"
#include "support/hf_cache_writer.h"
#include "support/recording_file_system.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr char kLlamaConfig[] = R"({"model_type":"llama","num_hidden_layers":2,
    "hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})";

// The cache every test reads:
//   org/llama   main -> commit a: config.json, model.safetensors.index.json
//               and two shards: embed BF16 [100, 64] = 12,800 B; q_proj
//               BF16 [64, 64] = 8,192 B and norm F32 [64] = 256 B; in all
//               21,248 B.
//               refs/pr/1 -> commit b: config.json and model.safetensors:
//               embed F32 [100, 64] = 25,600 B and norm F32 [64] = 256 B;
//               in all 25,856 B.
//   org/tiny-GGUF  main -> commit c:
//               tiny-Q4_K_M.gguf  Q4_K [256, 64]: 1 block of 144 B x 64 rows
//                                 = 9,216 B
//               tiny-Q8_0.gguf    Q8_0 [64, 100]: 2 blocks of 34 B x 100
//                                 rows = 6,800 B
//               Q2_K/tiny-Q2_K-00001-of-00002.gguf  F16 [64, 100] = 12,800 B
//               Q2_K/tiny-Q2_K-00002-of-00002.gguf  Q4_K [256, 64] = 9,216 B
//                                 (the set: 22,016 B)
//               mmproj-F16.gguf   a projector, not a model
class ModelByName : public ::testing::Test {
 protected:
  void SetUp() override {
    write_llama();
    write_tiny_gguf();
    options_.hf_cache.hub_cache_dir = dir_.path();
    // Nothing here reaches a network: a name the cache lacks goes to a
    // loopback port where nothing listens (discard, 9).
    options_.hub.endpoint = "http://127.0.0.1:9";
  }

  void write_llama() {
    const std::string a = fake_commit('a');
    cache_.add_file("org/llama", a, "config.json", kLlamaConfig);
    cache_.add_safetensors("org/llama", a, "model-00001-of-00002.safetensors",
                           {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt}});
    cache_.add_safetensors("org/llama", a, "model-00002-of-00002.safetensors",
                           {{"model.layers.0.self_attn.q_proj.weight", "BF16", {64, 64},
                             std::nullopt},
                            {"model.norm.weight", "F32", {64}, std::nullopt}});
    nlohmann::json index;
    index["metadata"]["total_size"] = 21248;  // 12,800 + 8,192 + 256
    index["weight_map"] = {{"model.embed_tokens.weight", "model-00001-of-00002.safetensors"},
                           {"model.layers.0.self_attn.q_proj.weight",
                            "model-00002-of-00002.safetensors"},
                           {"model.norm.weight", "model-00002-of-00002.safetensors"}};
    cache_.add_file("org/llama", a, "model.safetensors.index.json", index.dump());
    cache_.set_ref("org/llama", "main", a);

    const std::string b = fake_commit('b');
    cache_.add_file("org/llama", b, "config.json", kLlamaConfig);
    cache_.add_safetensors("org/llama", b, "model.safetensors",
                           {{"model.embed_tokens.weight", "F32", {100, 64}, std::nullopt},
                            {"model.norm.weight", "F32", {64}, std::nullopt}});
    cache_.set_ref("org/llama", "refs/pr/1", b);
  }

  void write_tiny_gguf() {
    const std::string c = fake_commit('c');
    GgufWriter q4 = tiny_qwen3_gguf();
    q4.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
    cache_.add_gguf("org/tiny-GGUF", c, "tiny-Q4_K_M.gguf", q4);
    GgufWriter q8 = tiny_qwen3_gguf();
    q8.add_tensor("token_embd.weight", GgmlType::kQ8_0, {64, 100});
    cache_.add_gguf("org/tiny-GGUF", c, "tiny-Q8_0.gguf", q8);
    GgufWriter first = tiny_qwen3_gguf();
    first.add_u16("split.no", 0).add_u16("split.count", 2).add_i32("split.tensors.count", 2);
    first.add_tensor("token_embd.weight", GgmlType::kF16, {64, 100});
    cache_.add_gguf("org/tiny-GGUF", c, "Q2_K/tiny-Q2_K-00001-of-00002.gguf", first);
    GgufWriter second;
    second.add_u16("split.no", 1).add_u16("split.count", 2).add_i32("split.tensors.count", 2);
    second.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
    cache_.add_gguf("org/tiny-GGUF", c, "Q2_K/tiny-Q2_K-00002-of-00002.gguf", second);
    cache_.add_gguf("org/tiny-GGUF", c, "mmproj-F16.gguf", q8);
    cache_.set_ref("org/tiny-GGUF", "main", c);
  }

  std::string snapshot(std::string_view repo_folder, char commit) const {
    return dir_.path() + "/" + std::string(repo_folder) + "/snapshots/" + fake_commit(commit);
  }

  Result<Model> open(const std::string& name, OpenModelOptions open_options = {}) {
    return open_model_by_name(*fs_, name, options_, open_options);
  }

  TempDir dir_;
  HfCacheWriter cache_{dir_.path()};
  ModelNameOptions options_;
  std::unique_ptr<FileSystem> fs_ = make_real_file_system();
};

TEST_F(ModelByName, TheMainSnapshotIsReadThroughItsBlobLinks) {
  // With the tensor list asked for, each shard's header is read (through
  // its link) and checked against the index: 21,248 B.
  Result<Model> m = open("org/llama", OpenModelOptions{.keep_tensors = true});
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->path, snapshot("models--org--llama", 'a'));
  EXPECT_TRUE(m->has_config);
  EXPECT_EQ(m->spec.model_type, "llama");
  EXPECT_EQ(m->weights.bytes, 21248u);
  EXPECT_EQ(m->weights.source, WeightsSource::kSafetensorsHeader);
  EXPECT_EQ(m->weights.tensor_count, 3u);
  ASSERT_EQ(m->tensors.size(), 3u);
  EXPECT_EQ(m->tensors[0].data_bytes, 12800u);

  // Without it, the index's total, as for any local folder.
  Result<Model> lean = open("org/llama");
  ASSERT_TRUE(lean.ok()) << lean.error().message();
  EXPECT_EQ(lean->weights.bytes, 21248u);
  EXPECT_EQ(lean->weights.source, WeightsSource::kSafetensorsIndex);
}

TEST_F(ModelByName, APullRequestRefOrACommitPicksItsSnapshot) {
  Result<Model> pr = open("org/llama@refs/pr/1");
  ASSERT_TRUE(pr.ok()) << pr.error().message();
  EXPECT_EQ(pr->path, snapshot("models--org--llama", 'b'));
  EXPECT_EQ(pr->weights.bytes, 25856u);  // 25,600 + 256, from the one header
  EXPECT_EQ(pr->weights.source, WeightsSource::kSafetensorsHeader);

  Result<Model> by_commit = open("org/llama@" + fake_commit('a'));
  ASSERT_TRUE(by_commit.ok()) << by_commit.error().message();
  EXPECT_EQ(by_commit->weights.bytes, 21248u);
}

TEST_F(ModelByName, OnlyTheConfigAndTheHeaderAreReadThroughTheLinks) {
  // The ref (40 bytes), config.json whole, then model.safetensors's 8-byte
  // prefix and its JSON header; never a byte of tensor data (25,856 B).
  RecordingFileSystem recording(*fs_);
  Result<Model> m = open_model_by_name(recording, "org/llama@refs/pr/1", options_, {});
  ASSERT_TRUE(m.ok()) << m.error().message();
  const std::string dir = snapshot("models--org--llama", 'b');
  const uint64_t header_bytes =
      safetensors_header_json({{"model.embed_tokens.weight", "F32", {100, 64}, std::nullopt},
                               {"model.norm.weight", "F32", {64}, std::nullopt}})
          .size();
  EXPECT_EQ(recording.reads(),
            (std::vector<FileRead>{{dir_.path() + "/models--org--llama/refs/refs/pr/1", 0, 40},
                                   {dir + "/config.json", 0, sizeof(kLlamaConfig) - 1},
                                   {dir + "/model.safetensors", 0, 8},
                                   {dir + "/model.safetensors", 8, header_bytes}}));
}

TEST_F(ModelByName, AQuantTagPicksItsGgufFileWithoutCase) {
  Result<Model> q4 = open("org/tiny-GGUF:q4_k_m");
  ASSERT_TRUE(q4.ok()) << q4.error().message();
  EXPECT_EQ(q4->path, snapshot("models--org--tiny-GGUF", 'c') + "/tiny-Q4_K_M.gguf");
  EXPECT_EQ(q4->weights.bytes, 9216u);
  EXPECT_EQ(q4->weights.source, WeightsSource::kGgufHeader);

  Result<Model> q8 = open("org/tiny-GGUF@main:Q8_0");
  ASSERT_TRUE(q8.ok()) << q8.error().message();
  EXPECT_EQ(q8->weights.bytes, 6800u);

  // A split set in a folder, from its first file: 12,800 + 9,216.
  Result<Model> q2 = open("org/tiny-GGUF:Q2_K");
  ASSERT_TRUE(q2.ok()) << q2.error().message();
  EXPECT_EQ(q2->path,
            snapshot("models--org--tiny-GGUF", 'c') + "/Q2_K/tiny-Q2_K-00001-of-00002.gguf");
  EXPECT_EQ(q2->weights.bytes, 22016u);
  EXPECT_EQ(q2->weights.file_count, 2u);
}

TEST_F(ModelByName, AQuantNoFileHasListsTheRepoGgufModels) {
  Result<Model> m = open("org/tiny-GGUF:Q5_K_M");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(m.error().field(), "model");
  EXPECT_EQ(m.error().message(),
            "model: no GGUF file of quant 'Q5_K_M' in 'org/tiny-GGUF@main' at cccccccccccc; its "
            "GGUF models: 'Q2_K/tiny-Q2_K-00001-of-00002.gguf', 'tiny-Q4_K_M.gguf', "
            "'tiny-Q8_0.gguf'");
  // "K_M" is not a quant of its own: the tag must follow '-' or '.'.
  EXPECT_FALSE(open("org/tiny-GGUF:K_M").ok());
  // A safetensors repo holds no GGUF model.
  Result<Model> none = open("org/llama:Q4_K_M");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(),
            "model: no GGUF file of quant 'Q4_K_M' in 'org/llama@main' at aaaaaaaaaaaa; its GGUF "
            "models: none");
}

TEST_F(ModelByName, AQuantSeveralFilesHaveIsAmbiguous) {
  GgufWriter w = tiny_qwen3_gguf();
  w.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});
  cache_.add_gguf("org/tiny-GGUF", fake_commit('c'), "tiny.imatrix.Q4_K_M.gguf", w);
  Result<Model> m = open("org/tiny-GGUF:Q4_K_M");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(m.error().message(),
            "model: 2 GGUF models of quant 'Q4_K_M' in 'org/tiny-GGUF@main' at cccccccccccc: "
            "'tiny-Q4_K_M.gguf', 'tiny.imatrix.Q4_K_M.gguf'; a longer tag, the end of one's file "
            "name, picks it");
  // As it says: "imatrix.Q4_K_M" ends only the second name, "tiny-Q4_K_M"
  // is the whole of the first.
  Result<Model> longer = open("org/tiny-GGUF:imatrix.Q4_K_M");
  ASSERT_TRUE(longer.ok()) << longer.error().message();
  EXPECT_EQ(longer->path, snapshot("models--org--tiny-GGUF", 'c') + "/tiny.imatrix.Q4_K_M.gguf");
  Result<Model> whole = open("org/tiny-GGUF:TINY-q4_k_m");
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  EXPECT_EQ(whole->path, snapshot("models--org--tiny-GGUF", 'c') + "/tiny-Q4_K_M.gguf");
}

TEST_F(ModelByName, AFileInsideTheRepo) {
  options_.file = "tiny-Q8_0.gguf";
  Result<Model> m = open("org/tiny-GGUF");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 6800u);

  options_.file = "tiny-Q6_K.gguf";
  Result<Model> missing = open("org/tiny-GGUF");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(missing.error().message(),
            "no file 'tiny-Q6_K.gguf' in 'org/tiny-GGUF@main' at cccccccccccc in the Hugging Face "
            "cache");

  options_.file = "../../models--org--llama/blobs/x";
  Result<Model> climbing = open("org/tiny-GGUF");
  ASSERT_FALSE(climbing.ok());
  EXPECT_EQ(climbing.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(climbing.error().field(), "file");

  options_.file = "tiny-Q8_0.gguf";
  Result<Model> with_quant = open("org/tiny-GGUF:Q8_0");
  ASSERT_FALSE(with_quant.ok());
  EXPECT_EQ(with_quant.error().message(), "file: and a :QUANT tag both choose the file: give one");
}

TEST_F(ModelByName, ANameTheCacheLacksIsOneLine) {
  const std::string at = "not a local path, and not in the Hugging Face cache at '" + dir_.path() + "' ";
  const std::string offline_only = "; offline (HF_HUB_OFFLINE or --offline): only the caches are read";
  options_.hf_cache.offline = true;
  Result<Model> absent = open("org/absent");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(absent.error().message(),
            "'org/absent': " + at +
                "(no folder 'models--org--absent')" + offline_only);

  Result<Model> no_revision = open("org/llama@v9");
  ASSERT_FALSE(no_revision.ok());
  EXPECT_EQ(no_revision.error().message(),
            "'org/llama@v9': " + at +
                "(no ref 'v9' in 'models--org--llama')" + offline_only);

  Result<Model> offline = open("org/absent:Q4_K_M");
  ASSERT_FALSE(offline.ok());
  EXPECT_EQ(offline.error().message(),
            "'org/absent:Q4_K_M': " + at + "(no folder 'models--org--absent')" + offline_only);
}

TEST_F(ModelByName, ASnapshotWithNothingToSizeIsNoModel) {
  const std::string d = fake_commit('d');
  cache_.add_file("org/readme-only", d, "README.md", "# nothing here");
  cache_.set_ref("org/readme-only", "main", d);
  Result<Model> m = open("org/readme-only");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(m.error().message(), "'org/readme-only': no config.json and no weight files in its "
                                 "snapshot dddddddddddd in the Hugging Face cache");

  // A config alone (hf download org/name config.json) is sized from it:
  // 2 layers of llama at width 64 and vocabulary 100, unverified.
  cache_.add_file("org/config-only", d, "config.json", kLlamaConfig);
  cache_.set_ref("org/config-only", "main", d);
  Result<Model> config_only = open("org/config-only");
  ASSERT_TRUE(config_only.ok()) << config_only.error().message();
  EXPECT_EQ(config_only->weights.source, WeightsSource::kAnalyticalConfig);
  EXPECT_FALSE(config_only->weights.verified);
}

TEST_F(ModelByName, ALinkOutOfTheRepoFolderIsRefused) {
  // An absolute link to a file outside the cache, and a relative one into
  // another repo's blobs: neither was written by huggingface_hub.
  TempDir outside;
  const std::string secret = outside.write_file("config.json", kLlamaConfig);
  const std::string e = fake_commit('e');
  cache_.link("org/evil", e, "config.json", secret);
  cache_.set_ref("org/evil", "main", e);
  const std::string evil_snapshot = snapshot("models--org--evil", 'e');
  Result<Model> m = open("org/evil");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kInput);
  const std::string real_secret = std::filesystem::canonical(secret).string();
  EXPECT_EQ(m.error().message(), "'" + evil_snapshot + "/config.json': leads out of "
                                 "'models--org--evil' (to '" + real_secret + "'): refused");

  // A ref is read through the same check.
  std::filesystem::remove(cache_.repo_dir("org/evil") + "/refs/main");
  std::filesystem::create_symlink(secret, cache_.repo_dir("org/evil") + "/refs/main");
  Result<Model> by_ref = open("org/evil");
  ASSERT_FALSE(by_ref.ok());
  EXPECT_EQ(by_ref.error().message(), "'" + cache_.repo_dir("org/evil") + "/refs/main': leads "
                                      "out of 'models--org--evil' (to '" + real_secret +
                                      "'): refused");

  const std::string f = fake_commit('f');
  cache_.link("org/evil", f, "model.safetensors",
              "../../../models--org--llama/blobs/" + std::string(63, '0') + "2");
  Result<Model> sideways = open("org/evil@" + f);
  ASSERT_FALSE(sideways.ok());
  EXPECT_NE(sideways.error().message().find("/model.safetensors': leads out of "
                                            "'models--org--evil' (to '"),
            std::string::npos)
      << sideways.error().message();
}

// Runs the test body in a fresh working folder, restored after.
class InFolderModelByName {
 public:
  explicit InFolderModelByName(const std::string& dir) : previous_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InFolderModelByName() { std::filesystem::current_path(previous_); }

 private:
  std::filesystem::path previous_;
};

TEST_F(ModelByName, ALocalFolderOfTheSameNameWins) {
  // ./org/llama holds a one-file checkpoint: embed BF16 [100, 64] =
  // 12,800 B, not the cache's 21,248 B.
  TempDir work;
  work.write_file("org/llama/config.json", kLlamaConfig);
  write_safetensors_file(work.file_path("org/llama/model.safetensors"),
                         {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt}});
  InFolderModelByName in(work.path());
  Result<Model> m = open("org/llama");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->path, "org/llama");
  EXPECT_EQ(m->weights.bytes, 12800u);

  // --file is for repos only.
  options_.file = "model.safetensors";
  Result<Model> with_file = open("org/llama");
  ASSERT_FALSE(with_file.ok());
  EXPECT_EQ(with_file.error().field(), "file");
}

TEST_F(ModelByName, ANameThatIsNoRepoIdKeepsTheLocalError) {
  Result<Model> m = open(dir_.path() + "/nothing");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "'" + dir_.path() + "/nothing': no such file or folder");
  // A repo id with a bad revision was meant as a Hub name: its error says why.
  Result<Model> bad = open("org/llama@../x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(bad.error().field(), "model");
}

TEST_F(ModelByName, TheLocalRequestContextFindsTheCacheInItsEnvironment) {
  LocalRequestContext context(MapEnvironment{{"HF_HUB_CACHE", dir_.path()}});
  Result<std::shared_ptr<const Model>> m = context.open_model("org/llama@refs/pr/1", {});
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ((*m)->weights.bytes, 25856u);

  LocalRequestContext offline(
      MapEnvironment{{"HF_HUB_CACHE", dir_.path()}, {"HF_HUB_OFFLINE", "1"}});
  Result<std::shared_ptr<const Model>> absent = offline.open_model("org/absent", {});
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.error().message().find(
                "; offline (HF_HUB_OFFLINE or --offline): only the caches are read"),
            std::string::npos);
}

}  // namespace
}  // namespace memfit
