// The local Hugging Face cache: where it is (huggingface_hub's variables,
// in its order), and which snapshot a revision names, on a cache laid out
// as huggingface_hub lays it out (support/hf_cache_writer.h).
#include "memfit/hf_cache.h"

#include <gtest/gtest.h>

#include "support/hf_cache_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

TEST(HfCacheOptions, HubCacheThenHfHomeThenXdgThenHome) {
  EXPECT_EQ(hf_cache_options_from_environment(MapEnvironment{{"HF_HUB_CACHE", "/c"},
                                                             {"HF_HOME", "/h"},
                                                             {"XDG_CACHE_HOME", "/x"},
                                                             {"HOME", "/home/u"}})
                .hub_cache_dir,
            "/c");
  EXPECT_EQ(hf_cache_options_from_environment(
                MapEnvironment{{"HF_HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/home/u"}})
                .hub_cache_dir,
            "/h/hub");
  EXPECT_EQ(hf_cache_options_from_environment(
                MapEnvironment{{"XDG_CACHE_HOME", "/x"}, {"HOME", "/home/u"}})
                .hub_cache_dir,
            "/x/huggingface/hub");
  EXPECT_EQ(hf_cache_options_from_environment(MapEnvironment{{"HOME", "/home/u"}}).hub_cache_dir,
            "/home/u/.cache/huggingface/hub");
  // huggingface_hub's older name, under the new one.
  EXPECT_EQ(hf_cache_options_from_environment(
                MapEnvironment{{"HUGGINGFACE_HUB_CACHE", "/old"}, {"HF_HOME", "/h"}})
                .hub_cache_dir,
            "/old");
  // An empty variable is unset; "~" is the home folder, as expanduser has it.
  EXPECT_EQ(hf_cache_options_from_environment(
                MapEnvironment{{"HF_HUB_CACHE", ""}, {"HF_HOME", "~/hf"}, {"HOME", "/home/u"}})
                .hub_cache_dir,
            "/home/u/hf/hub");
  EXPECT_EQ(hf_cache_options_from_environment(MapEnvironment{}).hub_cache_dir,
            ".cache/huggingface/hub");
}

TEST(HfCacheOptions, OfflineIsHuggingfaceHubsTrueValues) {
  for (const char* yes : {"1", "ON", "yes", "True"}) {
    EXPECT_TRUE(hf_cache_options_from_environment(MapEnvironment{{"HF_HUB_OFFLINE", yes}}).offline)
        << yes;
  }
  for (const char* no : {"0", "off", "", "2"}) {
    EXPECT_FALSE(hf_cache_options_from_environment(MapEnvironment{{"HF_HUB_OFFLINE", no}}).offline)
        << no;
  }
  EXPECT_FALSE(hf_cache_options_from_environment(MapEnvironment{}).offline);
}

TEST(HfCache, RepoFolderName) {
  EXPECT_EQ(hf_cache_repo_folder("Qwen/Qwen3-8B"), "models--Qwen--Qwen3-8B");
}

class HfCacheLookupTest : public ::testing::Test {
 protected:
  HubModelRef ref(std::string revision = "main") const {
    HubModelRef r;
    r.repo_id = "org/name";
    r.revision = std::move(revision);
    return r;
  }
  Result<HfCacheLookup> find(const HubModelRef& r) { return find_in_hf_cache(*fs_, dir_.path(), r); }

  TempDir dir_;
  HfCacheWriter cache_{dir_.path()};
  std::unique_ptr<FileSystem> fs_ = make_real_file_system();
};

TEST_F(HfCacheLookupTest, BranchesAndPullRequestRefsNameTheirSnapshots) {
  cache_.add_file("org/name", fake_commit('a'), "config.json", "{}");
  cache_.add_file("org/name", fake_commit('b'), "config.json", "{}");
  cache_.set_ref("org/name", "main", fake_commit('a'));
  cache_.set_ref("org/name", "refs/pr/1", fake_commit('b'));

  Result<HfCacheLookup> main = find(ref());
  ASSERT_TRUE(main.ok()) << main.error().message();
  ASSERT_TRUE(main->snapshot.has_value()) << main->missing;
  EXPECT_EQ(main->snapshot->commit, fake_commit('a'));
  EXPECT_EQ(main->snapshot->repo_dir, dir_.path() + "/models--org--name");
  EXPECT_EQ(main->snapshot->snapshot_dir,
            dir_.path() + "/models--org--name/snapshots/" + fake_commit('a'));

  Result<HfCacheLookup> pr = find(ref("refs/pr/1"));
  ASSERT_TRUE(pr.ok() && pr->snapshot.has_value());
  EXPECT_EQ(pr->snapshot->commit, fake_commit('b'));

  // A commit is the snapshot's name: no ref is read.
  Result<HfCacheLookup> commit = find(ref(fake_commit('b')));
  ASSERT_TRUE(commit.ok() && commit->snapshot.has_value());
  EXPECT_EQ(commit->snapshot->snapshot_dir,
            dir_.path() + "/models--org--name/snapshots/" + fake_commit('b'));
}

TEST_F(HfCacheLookupTest, WhatTheCacheLacksIsAnOutcome) {
  Result<HfCacheLookup> none = find(ref());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->snapshot.has_value());
  EXPECT_EQ(none->missing, "no folder 'models--org--name'");

  cache_.add_file("org/name", fake_commit('a'), "config.json", "{}");
  cache_.set_ref("org/name", "main", fake_commit('a'));
  Result<HfCacheLookup> no_ref = find(ref("v2"));
  ASSERT_TRUE(no_ref.ok());
  EXPECT_EQ(no_ref->missing, "no ref 'v2' in 'models--org--name'");

  Result<HfCacheLookup> no_snapshot = find(ref(fake_commit('c')));
  ASSERT_TRUE(no_snapshot.ok());
  EXPECT_EQ(no_snapshot->missing, "no snapshot " + fake_commit('c') + " in 'models--org--name'");

  // A ref whose snapshot was deleted.
  cache_.set_ref("org/name", "stale", fake_commit('d'));
  Result<HfCacheLookup> stale = find(ref("stale"));
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(stale->missing, "no snapshot " + fake_commit('d') + " in 'models--org--name'");
}

TEST_F(HfCacheLookupTest, ARefThatIsNotACommitIsAnError) {
  cache_.add_file("org/name", fake_commit('a'), "config.json", "{}");
  // huggingface_hub writes no newline; one written by hand is accepted.
  cache_.set_ref("org/name", "main", fake_commit('a') + "\n");
  Result<HfCacheLookup> trimmed = find(ref());
  ASSERT_TRUE(trimmed.ok() && trimmed->snapshot.has_value());
  EXPECT_EQ(trimmed->snapshot->commit, fake_commit('a'));

  const std::string ref_path = dir_.path() + "/models--org--name/refs/main";
  cache_.set_ref("org/name", "main", "../../etc\x1b[31m");
  Result<HfCacheLookup> bad = find(ref());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(bad.error().message(),
            "'" + ref_path + "': '../../etc\\x1b[31m' is not a commit (40 hex digits)");

  // 1,025 bytes: past the 1 KiB a ref may hold.
  cache_.set_ref("org/name", "main", std::string(1025, 'a'));
  Result<HfCacheLookup> big = find(ref());
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message(),
            "'" + ref_path + "': 1025 bytes is not a ref (a commit is 40 hex digits)");
}

}  // namespace
}  // namespace memfit
