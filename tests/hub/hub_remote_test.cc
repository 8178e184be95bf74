// Reading models from the Hugging Face Hub (open_model_by_name, step 3)
// against a fake Hub on loopback (support/fake_hub.h): the requests made,
// their byte ranges, where the token goes, and each failure's one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hub/hub_reader.h"
#include "memfit/environment.h"
#include "memfit/gguf_repo.h"
#include "memfit/header_store.h"
#include "memfit/model_by_name.h"
#include "support/fake_hub.h"
#include "support/gguf_hub_repo.h"
#include "support/safetensors_writer.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr char kCommitHubRemote[] = "0123456789abcdef0123456789abcdef01234567";
constexpr char kLlamaConfigHubRemote[] = R"({"model_type":"llama","num_hidden_layers":2,
    "hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})";

// A safetensors file as the Hub holds it: its header bytes, and a size
// that counts the (never fetched) tensor data.
FakeHubFile safetensors_file(const std::vector<TensorSpec>& tensors) {
  const std::string json = safetensors_header_json(tensors);
  FakeHubFile file;
  file.bytes = safetensors_length_prefix(json.size()) + json;
  file.size_bytes = file.bytes.size() + safetensors_data_bytes(tensors);
  return file;
}

FakeHubFile text_file(std::string text) {
  FakeHubFile file;
  file.size_bytes = text.size();
  file.bytes = std::move(text);
  return file;
}

// org/llama: config.json and one model.safetensors whose header names a
// BF16 embedding [151936, 4096] = 1,244,659,712 B and an F32 norm [64] =
// 256 B: 1,244,659,968 B of weights, none of them fetched.
FakeHubRepo llama_repo() {
  FakeHubRepo repo;
  repo.commit = kCommitHubRemote;
  repo.files["config.json"] = text_file(kLlamaConfigHubRemote);
  repo.files["model.safetensors"] =
      safetensors_file({{"model.embed_tokens.weight", "BF16", {151936, 4096}, std::nullopt},
                        {"model.norm.weight", "F32", {64}, std::nullopt}});
  repo.files["README.md"] = text_file("# llama");
  return repo;
}

// An in-memory HeaderStore, counting what is stored.
class MemoryHeaderStore : public HeaderStore {
 public:
  std::optional<StoredPrefix> load_prefix(const std::string& repo, const std::string& commit,
                                          const std::string& path) override {
    std::lock_guard lock(mutex_);
    auto it = prefixes_.find(repo + "@" + commit + "/" + path);
    if (it == prefixes_.end()) return std::nullopt;
    return it->second;
  }
  void store_prefix(const std::string& repo, const std::string& commit, const std::string& path,
                    const StoredPrefix& prefix) override {
    std::lock_guard lock(mutex_);
    StoredPrefix& kept = prefixes_[repo + "@" + commit + "/" + path];
    if (prefix.bytes.size() >= kept.bytes.size()) kept = prefix;
  }
  std::optional<std::vector<StoredListingEntry>> load_listing(const std::string& repo,
                                                              const std::string& commit) override {
    std::lock_guard lock(mutex_);
    auto it = listings_.find(repo + "@" + commit);
    if (it == listings_.end()) return std::nullopt;
    return it->second;
  }
  void store_listing(const std::string& repo, const std::string& commit,
                     const std::vector<StoredListingEntry>& listing) override {
    std::lock_guard lock(mutex_);
    listings_[repo + "@" + commit] = listing;
  }
  std::optional<std::string> load_revision(const std::string& repo,
                                           const std::string& revision) override {
    std::lock_guard lock(mutex_);
    auto it = revisions_.find(repo + "@" + revision);
    if (it == revisions_.end()) return std::nullopt;
    return it->second;
  }
  void store_revision(const std::string& repo, const std::string& revision,
                      const std::string& commit) override {
    std::lock_guard lock(mutex_);
    revisions_[repo + "@" + revision] = commit;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, StoredPrefix> prefixes_;
  std::map<std::string, std::vector<StoredListingEntry>> listings_;
  std::map<std::string, std::string> revisions_;
};

class HubRemote : public ::testing::Test {
 protected:
  void SetUp() override {
    hub_.add_repo("org/llama", llama_repo());
    options_.hf_cache.hub_cache_dir = cache_dir_.path();  // empty: every name goes to the Hub
    options_.hub.endpoint = hub_.endpoint();
    options_.hub.token = "hf_secret";
    options_.hub.timeout_ms = 10'000;
  }

  Result<Model> open(const std::string& name) {
    return open_model_by_name(*fs_, name, options_, OpenModelOptions{});
  }

  // "<host> <status> <range>" for each request, in order, the API call and
  // each file's (requests for different files may interleave: sorted).
  std::vector<std::string> summary() const {
    std::vector<std::string> lines;
    for (const FakeHubRequest& r : hub_.requests()) {
      lines.push_back(fmt::format("{} {} {} {}", r.host, r.path, r.status, r.range));
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  FakeHub hub_;
  TempDir cache_dir_;
  std::unique_ptr<FileSystem> fs_ = make_real_file_system();
  ModelNameOptions options_;
};

TEST_F(HubRemote, ReadsTheConfigWholeAndTheHeaderByRangeThroughTheStorageHost) {
  Result<Model> m = open("org/llama");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 1244659968u);  // 151,936 x 4,096 x 2 + 64 x 4
  EXPECT_EQ(m->weights.source, WeightsSource::kSafetensorsHeader);

  // One API call; each file asked of the Hub, redirected, and read from
  // the storage host: config.json whole (its size - 1 is the last byte),
  // the safetensors file's first 256 KiB block, which holds its header.
  const uint64_t config_last = std::string(kLlamaConfigHubRemote).size() - 1;
  const std::string files = "/org/llama/resolve/" + std::string(kCommitHubRemote);
  const std::string blobs = "/blob/org/llama/" + std::string(kCommitHubRemote);
  EXPECT_EQ(summary(),
            (std::vector<std::string>{
                "hub /api/models/org/llama/revision/main 200 ",
                fmt::format("hub {}/config.json 302 bytes=0-{}", files, config_last),
                fmt::format("hub {}/model.safetensors 302 bytes=0-262143", files),
                fmt::format("storage {}/config.json 206 bytes=0-{}", blobs, config_last),
                "storage " + blobs + "/model.safetensors 206 bytes=0-262143",
            }));
  uint64_t storage_bytes = 0;
  for (const FakeHubRequest& r : hub_.requests()) {
    // The token reaches the Hub, never the storage host.
    EXPECT_EQ(r.authorization, r.host == "hub" ? "Bearer hf_secret" : "") << r.path;
    if (r.host == "storage") storage_bytes += r.body_bytes;
  }
  EXPECT_EQ(storage_bytes, 262144 + config_last + 1);
}

TEST_F(HubRemote, AHeaderPastTheFirstBlockIsFetchedInASecondRange) {
  // 5,000 tensors of long names: a header of N > 256 KiB bytes; its first
  // 8 bytes give N, so the rest, [262144, 8 + N - 1], is one more request.
  std::vector<TensorSpec> tensors;
  for (int i = 0; i < 5000; ++i) {
    tensors.push_back({fmt::format("model.layers.{}.mlp.some_rather_long_projection_name.weight", i),
                       "BF16", {64, 64}, std::nullopt});
  }
  const uint64_t header_end = 8 + safetensors_header_json(tensors).size();
  ASSERT_GT(header_end, 262144u);
  FakeHubRepo repo;
  repo.commit = kCommitHubRemote;
  repo.files["config.json"] = text_file(kLlamaConfigHubRemote);
  repo.files["model.safetensors"] = safetensors_file(tensors);
  hub_.add_repo("org/wide", repo);
  hub_.set_redirects(false);

  Result<Model> m = open("org/wide");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 5000u * 64 * 64 * 2);
  const std::string files = "/org/wide/resolve/" + std::string(kCommitHubRemote);
  EXPECT_EQ(summary(), (std::vector<std::string>{
                           "hub /api/models/org/wide/revision/main 200 ",
                           fmt::format("hub {}/config.json 206 bytes=0-{}", files,
                                       std::string(kLlamaConfigHubRemote).size() - 1),
                           fmt::format("hub {}/model.safetensors 206 bytes=0-262143", files),
                           fmt::format("hub {}/model.safetensors 206 bytes=262144-{}", files,
                                       header_end - 1),
                       }));
}

TEST_F(HubRemote, AGgufQuantIsReadFromItsFirstMegabyte) {
  // tests/support/small_ggufs.h: 689,799,168 B of Qwen3-8B weights.
  const GgufWriter gguf = qwen3_8b_gguf();
  FakeHubRepo repo;
  repo.commit = kCommitHubRemote;
  repo.files["Qwen3-8B-Q4_K_M.gguf"] = FakeHubFile{gguf.header(), gguf.file_bytes()};
  repo.files["Qwen3-8B-Q8_0.gguf"] = FakeHubFile{gguf.header(), gguf.file_bytes()};
  hub_.add_repo("unsloth/Qwen3-8B-GGUF", repo);

  Result<Model> m = open("unsloth/Qwen3-8B-GGUF:Q4_K_M");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 689799168u);
  ASSERT_LT(gguf.header().size(), 1u << 20);
  const std::string blob =
      "storage /blob/unsloth/Qwen3-8B-GGUF/" + std::string(kCommitHubRemote) + "/Qwen3-8B-Q4_K_M.gguf";
  EXPECT_EQ(summary(), (std::vector<std::string>{
                           "hub /api/models/unsloth/Qwen3-8B-GGUF/revision/main 200 ",
                           "hub /unsloth/Qwen3-8B-GGUF/resolve/" + std::string(kCommitHubRemote) +
                               "/Qwen3-8B-Q4_K_M.gguf 302 bytes=0-1048575",
                           blob + " 206 bytes=0-1048575",
                       }));

  // --file names the same file.
  options_.file = "Qwen3-8B-Q8_0.gguf";
  Result<Model> by_file = open("unsloth/Qwen3-8B-GGUF");
  ASSERT_TRUE(by_file.ok()) << by_file.error().message();
  EXPECT_EQ(by_file->weights.bytes, 689799168u);
}

// recommend-quant -m org/name-GGUF over the Hub: the repo listed once,
// each GGUF model's files' first megabyte read once (mmproj and the README
// never), every size from the listing.
TEST_F(HubRemote, AGgufRepoIsPricedFromItsListingAndHeaders) {
  const GgufHubRepo quants = gguf_hub_repo(kCommitHubRemote);
  hub_.add_repo("unsloth/Qwen3-8B-GGUF", quants.repo);
  std::shared_ptr<FileSystem> fs = make_real_file_system();
  Result<std::optional<GgufRepoFolder>> folder =
      find_gguf_repo_folder(fs, "unsloth/Qwen3-8B-GGUF", options_);
  ASSERT_TRUE(folder.ok()) << folder.error().message();
  ASSERT_TRUE(*folder);
  EXPECT_EQ((*folder)->root, "unsloth/Qwen3-8B-GGUF");

  EstimateRequest request;
  request.llamacpp.ctx_size = 4096;
  request.llamacpp.repack = RepackCpu::kNone;
  request.memory_limit_bytes = 64ull << 30;
  LocalRequestContext context{MapEnvironment{}};
  Result<GgufRepoPricing> p = price_gguf_repo(*(*folder)->fs, (*folder)->root, request, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->models.size(), 3u);
  EXPECT_EQ(p->models[0].path, "Q2_K/Qwen3-8B-Q2_K-00001-of-00002.gguf");
  EXPECT_EQ(p->models[0].quant, "Q2_K");
  EXPECT_EQ(p->models[0].main_type, "q2_K");
  EXPECT_EQ(p->models[0].file_count, 2u);
  EXPECT_EQ(p->models[0].size_bytes, quants.split_bytes);
  EXPECT_EQ(p->models[0].estimate.model_bytes, 204201984u + 198180864u);
  EXPECT_EQ(p->models[1].path, "Qwen3-8B-Q4_K_M.gguf");
  EXPECT_EQ(p->models[1].size_bytes, quants.q4_bytes);
  EXPECT_EQ(p->models[1].estimate.model_bytes, 689799168u);
  EXPECT_EQ(p->models[2].path, "Qwen3-8B-Q8_0.gguf");
  EXPECT_EQ(p->models[2].main_type, "q8_0");
  EXPECT_EQ(p->models[2].size_bytes, quants.q8_bytes);
  EXPECT_EQ(p->models[2].estimate.model_bytes, 1302953984u);
  ASSERT_TRUE(p->recommended);
  EXPECT_EQ(*p->recommended, 2u);  // the largest that fits 64 GiB

  // Every GGUF file is over 1 MiB: one range of its first MiB each, through
  // the storage host; the API once; no byte of mmproj or README.md.
  const std::string resolve = "hub /unsloth/Qwen3-8B-GGUF/resolve/" + std::string(kCommitHubRemote) + "/";
  const std::string blob = "storage /blob/unsloth/Qwen3-8B-GGUF/" + std::string(kCommitHubRemote) + "/";
  std::vector<std::string> expected{"hub /api/models/unsloth/Qwen3-8B-GGUF/revision/main 200 "};
  for (const char* file : {"Q2_K/Qwen3-8B-Q2_K-00001-of-00002.gguf",
                           "Q2_K/Qwen3-8B-Q2_K-00002-of-00002.gguf", "Qwen3-8B-Q4_K_M.gguf",
                           "Qwen3-8B-Q8_0.gguf"}) {
    expected.push_back(resolve + file + " 302 bytes=0-1048575");
    expected.push_back(blob + file + " 206 bytes=0-1048575");
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(summary(), expected);
}

TEST_F(HubRemote, AGatedGgufRepoIsOneLine) {
  GgufHubRepo quants = gguf_hub_repo(kCommitHubRemote);
  quants.repo.token = "hf_granted";
  hub_.add_repo("org/gated-GGUF", quants.repo);
  Result<std::optional<GgufRepoFolder>> folder =
      find_gguf_repo_folder(make_real_file_system(), "org/gated-GGUF", options_);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(folder.error().message(),
            "'org/gated-GGUF': gated or private on the Hub (HTTP 401): accept its terms at " +
                hub_.endpoint() +
                "/org/gated-GGUF and set HF_TOKEN or --token to a token that may read it");
  // The API (which answers for a gated repo, as the Hub's does), then the
  // four GGUF models' first ranges, asked together and each refused (401);
  // nothing reaches the storage host.
  const std::vector<std::string> asked = summary();
  EXPECT_EQ(asked.size(), 5u);
  EXPECT_EQ(std::count_if(asked.begin(), asked.end(),
                          [](const std::string& r) { return r.find(" 401 bytes=0-1048575") != std::string::npos; }),
            4);
  EXPECT_EQ(std::count_if(asked.begin(), asked.end(),
                          [](const std::string& r) { return r.starts_with("storage "); }),
            0);
}

// A repo of safetensors is no folder of GGUF models: the caller opens it
// as a checkpoint.
TEST_F(HubRemote, ACheckpointOnTheHubIsNoGgufRepo) {
  Result<std::optional<GgufRepoFolder>> folder =
      find_gguf_repo_folder(make_real_file_system(), "org/llama", options_);
  ASSERT_TRUE(folder.ok()) << folder.error().message();
  EXPECT_FALSE(*folder);
}

TEST_F(HubRemote, ManyShardsAreReadAtMostEightAtOnce) {
  // 20 shards of one BF16 [64, 64] tensor each (8,192 B): every shard's
  // first block is fetched before the loader asks, 8 at a time at most
  // (each storage answer waits 20 ms, so the reads overlap).
  FakeHubRepo repo;
  repo.commit = kCommitHubRemote;
  repo.files["config.json"] = text_file(kLlamaConfigHubRemote);
  for (int i = 1; i <= 20; ++i) {
    repo.files[fmt::format("model-{:05}-of-00020.safetensors", i)] = safetensors_file(
        {{fmt::format("model.layers.{}.mlp.weight", i), "BF16", {64, 64}, std::nullopt}});
  }
  hub_.add_repo("org/sharded", repo);
  hub_.set_latency_ms(20);
  std::vector<size_t> progress;
  options_.progress = [&progress](size_t done, size_t total) {
    EXPECT_EQ(total, 21u);  // config.json and the 20 shards
    progress.push_back(done);
  };
  Result<Model> m = open("org/sharded");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 20u * 8192);
  EXPECT_EQ(hub_.requests().size(), 1u + 21 * 2);  // the API, then 21 files x (Hub + storage)
  EXPECT_LE(hub_.most_storage_requests_at_once(), 8);
  EXPECT_EQ(progress.size(), 21u);
  EXPECT_EQ(progress.back(), 21u);
}

TEST_F(HubRemote, AGatedRepoSaysWhatToDo) {
  FakeHubRepo repo = llama_repo();
  repo.token = "hf_granted";
  hub_.add_repo("org/gated", repo);
  Result<Model> m = open("org/gated");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(m.error().message(),
            "'org/gated': gated or private on the Hub (HTTP 401): accept its terms at " +
                hub_.endpoint() + "/org/gated and set HF_TOKEN or --token to a token that may read it");

  options_.hub.token = "hf_granted";
  Result<Model> granted = open("org/gated");
  ASSERT_TRUE(granted.ok()) << granted.error().message();
  EXPECT_EQ(granted->weights.bytes, 1244659968u);
}

TEST_F(HubRemote, EachMissingThingIsOneLine) {
  Result<Model> repo = open("org/absent");
  ASSERT_FALSE(repo.ok());
  EXPECT_EQ(repo.error().message(),
            "'org/absent': no such model on the Hub at " + hub_.endpoint() + " (HTTP 404)");

  Result<Model> revision = open("org/llama@v9");
  ASSERT_FALSE(revision.ok());
  EXPECT_EQ(revision.error().message(),
            "'org/llama@v9': no revision 'v9' on the Hub (no such branch, tag or commit)");

  options_.file = "absent.gguf";
  Result<Model> file = open("org/llama");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message(),
            "'org/llama': no file 'absent.gguf' at revision 'main' (commit 0123456789ab) on the Hub");
  options_.file.clear();

  FakeHubRepo readme;
  readme.commit = kCommitHubRemote;
  readme.files["README.md"] = text_file("# nothing");
  hub_.add_repo("org/readme", readme);
  Result<Model> nothing = open("org/readme");
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.error().message(),
            "'org/readme': no config.json and no weight files (*.safetensors, *.gguf) at revision "
            "'main' (commit 0123456789ab) on the Hub");
}

TEST_F(HubRemote, AServerThatIgnoresRangeIsRefusedNotDownloaded) {
  // An 8 MiB file sent whole: refused once the 256 KiB asked have come.
  FakeHubRepo repo;
  repo.commit = kCommitHubRemote;
  repo.files["model.safetensors"] = safetensors_file(
      {{"model.embed_tokens.weight", "BF16", {1024, 4096}, std::nullopt}});
  hub_.add_repo("org/big", repo);
  hub_.set_mode(FakeHubMode::kIgnoreRange);
  Result<Model> m = open("org/big");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(),
            "'org/big': the server ignores Range requests: refused the whole of "
            "'model.safetensors' after 262144 bytes (only its header is read)");
}

TEST_F(HubRemote, ASlowServerTimesOut) {
  hub_.set_mode(FakeHubMode::kSlow);  // file requests are never answered
  options_.hub.timeout_ms = 1000;
  Result<Model> m = open("org/llama");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "'org/llama': " + hub_.endpoint() +
                                     " gave no answer within 1 s reading 'config.json' (--timeout)");
}

TEST_F(HubRemote, ANetworkThatIsDownIsSaidSo) {
  options_.hub.endpoint = "http://127.0.0.1:9";  // discard: nothing listens
  Result<Model> m = open("org/llama");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(),
            "'org/llama': cannot reach http://127.0.0.1:9 (Couldn't connect to server): the network "
            "is down or the host is wrong (HF_ENDPOINT)");
}

TEST_F(HubRemote, AHeaderStoreLeavesOnlyTheRevisionCheck) {
  MemoryHeaderStore store;
  options_.header_store = &store;
  ASSERT_TRUE(open("org/llama").ok());
  EXPECT_EQ(hub_.requests().size(), 5u);  // API, 2 files x (hub + storage)

  // Again at main: the Hub is asked which commit main is, nothing else.
  hub_.clear_requests();
  Result<Model> again = open("org/llama");
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->weights.bytes, 1244659968u);
  EXPECT_EQ(summary(), std::vector<std::string>{"hub /api/models/org/llama/revision/main 200 "});

  // At the commit itself: no request at all.
  hub_.clear_requests();
  ASSERT_TRUE(open("org/llama@" + std::string(kCommitHubRemote)).ok());
  EXPECT_EQ(hub_.requests().size(), 0u);

  // Offline: the stored revision, listing and headers.
  options_.hf_cache.offline = true;
  Result<Model> offline = open("org/llama");
  ASSERT_TRUE(offline.ok()) << offline.error().message();
  EXPECT_EQ(offline->weights.bytes, 1244659968u);
  EXPECT_EQ(hub_.requests().size(), 0u);
  Result<Model> unknown = open("org/other");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(),
            "'org/other': not a local path, and revision 'main' is neither in the Hugging Face "
            "cache at '" + cache_dir_.path() + "' nor in memfit's header cache; offline "
            "(HF_HUB_OFFLINE or --offline): only the caches are read");
}

TEST_F(HubRemote, ARevisionFlagAndTheNamesRevisionMustAgree) {
  options_.revision = "v2";
  Result<Model> m = open("org/llama@v1");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(m.error().message(), "revision: and the name's @revision differ: give one");
}

TEST(HubListing, SizesComeFromLfsElseTheEntry) {
  Result<HubRevision> r = parse_hub_listing(R"({"sha":"0123456789abcdef0123456789abcdef01234567",
      "siblings":[{"rfilename":"b.safetensors","size":135,"lfs":{"size":16000000000}},
                  {"rfilename":"a.json","size":12},
                  {"rfilename":"no-size.txt"},
                  {"rfilename":"../escape","size":1}]})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->commit, "0123456789abcdef0123456789abcdef01234567");
  ASSERT_EQ(r->listing.size(), 2u);
  EXPECT_EQ(r->listing[0].path, "a.json");
  EXPECT_EQ(r->listing[0].size_bytes, 12u);
  EXPECT_EQ(r->listing[1].path, "b.safetensors");
  EXPECT_EQ(r->listing[1].size_bytes, 16000000000u);
  EXPECT_FALSE(parse_hub_listing("[]").ok());
  EXPECT_FALSE(parse_hub_listing(R"({"sha":"main"})").ok());
}

TEST(HubUrl, OriginsAndEncoding) {
  EXPECT_EQ(url_origin("https://HuggingFace.co/api/x?y"), "https://huggingface.co");
  EXPECT_EQ(url_origin("http://user:pw@127.0.0.1:8080/a"), "http://127.0.0.1:8080");
  EXPECT_EQ(url_origin("ftp://x/y"), "");
  EXPECT_EQ(percent_encode("refs/pr/1", false), "refs%2Fpr%2F1");
  EXPECT_EQ(percent_encode("sub dir/a+b.gguf", true), "sub%20dir/a%2Bb.gguf");
}

}  // namespace
}  // namespace memfit
