// The header cache: where it lives, its file format (every truncation and
// every flipped byte is an absence), and the store on disk (round trips,
// the longer prefix kept, names that no key can steer, atomic writes).
#include "memfit/header_cache.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "hub/header_cache_hash.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

const std::string kRepo = "Qwen/Qwen3-8B";
const std::string kCommit(40, 'a');

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void overwrite(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(HeaderCacheDir, MemfitCacheDirThenXdgThenHome) {
  EXPECT_EQ(header_cache_dir_from_environment(
                MapEnvironment{{"MEMFIT_CACHE_DIR", "/m"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}),
            "/m");
  EXPECT_EQ(header_cache_dir_from_environment(
                MapEnvironment{{"MEMFIT_CACHE_DIR", ""}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}),
            "/x/memfit");
  EXPECT_EQ(header_cache_dir_from_environment(MapEnvironment{{"HOME", "/h"}}), "/h/.cache/memfit");
  EXPECT_EQ(header_cache_dir_from_environment(MapEnvironment{}), std::nullopt);
}

TEST(HeaderCacheDir, NoFolderKeepsNothing) {
  std::unique_ptr<HeaderStore> store = make_header_cache_from_environment(MapEnvironment{});
  store->store_revision(kRepo, "main", kCommit);
  EXPECT_EQ(store->load_revision(kRepo, "main"), std::nullopt);
}

TEST(HeaderCacheFormat, RevisionRecordLayout) {
  std::optional<std::string> record = encode_cached_revision("a/b", "main", kCommit);
  ASSERT_TRUE(record);
  // magic 8 + version 4 + kind 4 + key length 4 + key (4 + 3 "a/b", 4 + 4
  // "main" = 15) + commit length 4 + commit 40 + checksum 8 = 87 bytes.
  ASSERT_EQ(record->size(), 87u);
  EXPECT_EQ(record->substr(0, 8), std::string("MFHDRC\r\n", 8));
  EXPECT_EQ(record->substr(8, 4), std::string("\x01\0\0\0", 4));   // version 1
  EXPECT_EQ(record->substr(12, 4), std::string("\x03\0\0\0", 4));  // a revision
  EXPECT_EQ(record->substr(16, 4), std::string("\x0f\0\0\0", 4));  // key: 15 bytes
  EXPECT_EQ(record->substr(20, 7), std::string("\x03\0\0\0a/b", 7));
  EXPECT_EQ(decode_cached_revision(*record, "a/b", "main"), kCommit);
}

TEST(HeaderCacheFormat, PrefixRoundTripsAndIsCanonical) {
  const StoredPrefix prefix{1'000'000, std::string("GGUF\0\0\x03", 7)};
  std::optional<std::string> record = encode_cached_prefix(kRepo, kCommit, "m.gguf", prefix);
  ASSERT_TRUE(record);
  std::optional<StoredPrefix> back = decode_cached_prefix(*record, kRepo, kCommit, "m.gguf");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->file_size_bytes, 1'000'000u);
  EXPECT_EQ(back->bytes, prefix.bytes);
  EXPECT_EQ(encode_cached_prefix(kRepo, kCommit, "m.gguf", *back), record);
}

TEST(HeaderCacheFormat, EveryTruncationAndEveryFlippedByteIsAbsence) {
  std::optional<std::string> record =
      encode_cached_listing(kRepo, kCommit, {{"config.json", 700}, {"model.safetensors", 16}});
  ASSERT_TRUE(record);
  ASSERT_TRUE(decode_cached_listing(*record, kRepo, kCommit));
  for (size_t length = 0; length < record->size(); ++length) {
    EXPECT_EQ(decode_cached_listing(record->substr(0, length), kRepo, kCommit), std::nullopt)
        << length;
  }
  for (size_t i = 0; i < record->size(); ++i) {
    std::string flipped = *record;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    EXPECT_EQ(decode_cached_listing(flipped, kRepo, kCommit), std::nullopt) << i;
  }
  EXPECT_EQ(decode_cached_listing(*record + "x", kRepo, kCommit), std::nullopt);
}

TEST(HeaderCacheFormat, AnotherKeyOrKindIsAbsence) {
  std::optional<std::string> record = encode_cached_revision(kRepo, "main", kCommit);
  ASSERT_TRUE(record);
  EXPECT_EQ(decode_cached_revision(*record, kRepo, "v1.0"), std::nullopt);
  EXPECT_EQ(decode_cached_revision(*record, "Qwen/Qwen3-4B", "main"), std::nullopt);
  EXPECT_EQ(decode_cached_listing(*record, kRepo, "main"), std::nullopt);
  // The key's parts carry their lengths: "a/b" + "c" is not "a" + "/bc".
  std::optional<std::string> split = encode_cached_revision("a/b", "c", kCommit);
  ASSERT_TRUE(split);
  EXPECT_EQ(decode_cached_revision(*split, "a", "/bc"), std::nullopt);
}

TEST(HeaderCacheFormat, BoundsAreCheckedBeforeAllocating) {
  // A prefix longer than its file, or than 64 MiB, is never written.
  EXPECT_EQ(encode_cached_prefix(kRepo, kCommit, "f", StoredPrefix{3, "four"}), std::nullopt);
  EXPECT_EQ(encode_cached_revision(kRepo, "main", "not-a-commit"), std::nullopt);
  // A checksummed listing record that claims 100,001 entries: absence,
  // whatever follows (nothing is sized from the count).
  std::optional<std::string> record = encode_cached_listing(kRepo, kCommit, {});
  ASSERT_TRUE(record);
  std::string body = record->substr(0, record->size() - 8);
  body.replace(body.size() - 4, 4, std::string("\xa1\x86\x01\x00", 4));  // 100,001
  std::string forged = body;
  const uint64_t checksum = fnv1a_64(body);
  for (int i = 0; i < 8; ++i) forged.push_back(static_cast<char>((checksum >> (8 * i)) & 0xff));
  EXPECT_EQ(decode_cached_listing(forged, kRepo, kCommit), std::nullopt);
  // The same forgery with the true count (0) decodes: the check above is
  // the bound's, not the checksum's.
  EXPECT_TRUE(decode_cached_listing(*record, kRepo, kCommit));
}

TEST(HeaderCache, RoundTripsEachKindThroughTheDisk) {
  TempDir dir;
  std::unique_ptr<HeaderStore> store = make_header_cache(dir.path());
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "config.json"), std::nullopt);
  store->store_prefix(kRepo, kCommit, "config.json", StoredPrefix{5, "{\"a\"}"});
  store->store_listing(kRepo, kCommit, {{"config.json", 5}});
  store->store_revision(kRepo, "main", kCommit);

  // A second instance (a second run) reads what the first kept.
  std::unique_ptr<HeaderStore> again = make_header_cache(dir.path());
  std::optional<StoredPrefix> prefix = again->load_prefix(kRepo, kCommit, "config.json");
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->bytes, "{\"a\"}");
  std::optional<std::vector<StoredListingEntry>> listing = again->load_listing(kRepo, kCommit);
  ASSERT_TRUE(listing);
  ASSERT_EQ(listing->size(), 1u);
  EXPECT_EQ((*listing)[0].path, "config.json");
  EXPECT_EQ((*listing)[0].size_bytes, 5u);
  EXPECT_EQ(again->load_revision(kRepo, "main"), kCommit);
  EXPECT_EQ(again->load_revision(kRepo, "v1.0"), std::nullopt);
  // One file per entry, and no temporary file left behind.
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"hub"});
  const std::vector<std::string> names = files_in(dir.path() + "/hub");
  ASSERT_EQ(names.size(), 3u);
  for (const std::string& name : names) EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
}

TEST(HeaderCache, ALongerPrefixIsNeverReplacedByAShorterOne) {
  TempDir dir;
  std::unique_ptr<HeaderStore> store = make_header_cache(dir.path());
  store->store_prefix(kRepo, kCommit, "m.gguf", StoredPrefix{100, "GGUF-long"});
  store->store_prefix(kRepo, kCommit, "m.gguf", StoredPrefix{100, "GGUF"});
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "m.gguf")->bytes, "GGUF-long");
  store->store_prefix(kRepo, kCommit, "m.gguf", StoredPrefix{100, "GGUF-longer"});
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "m.gguf")->bytes, "GGUF-longer");
}

TEST(HeaderCache, ConcurrentStoresKeepTheLongestPrefix) {
  TempDir dir;
  std::unique_ptr<HeaderStore> store = make_header_cache(dir.path());
  std::vector<std::thread> threads;
  for (size_t length = 1; length <= 8; ++length) {
    threads.emplace_back([&store, length] {
      store->store_prefix(kRepo, kCommit, "m.gguf", StoredPrefix{8, std::string(length, 'x')});
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "m.gguf")->bytes, std::string(8, 'x'));
  EXPECT_EQ(files_in(dir.path() + "/hub").size(), 1u);
}

TEST(HeaderCache, ACorruptedOrTruncatedFileIsAbsenceAndIsRewritten) {
  TempDir dir;
  std::unique_ptr<HeaderStore> store = make_header_cache(dir.path());
  store->store_prefix(kRepo, kCommit, "m.gguf", StoredPrefix{100, "GGUF-long"});
  const std::string file = dir.path() + "/hub/" + files_in(dir.path() + "/hub").at(0);
  overwrite(file, "MFHDRC\r\n\x01");
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "m.gguf"), std::nullopt);
  // A broken file is no longer prefix: a shorter one replaces it.
  store->store_prefix(kRepo, kCommit, "m.gguf", StoredPrefix{100, "GG"});
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "m.gguf")->bytes, "GG");
  overwrite(file, "");
  EXPECT_EQ(store->load_prefix(kRepo, kCommit, "m.gguf"), std::nullopt);
}

TEST(HeaderCache, AFileMovedUnderAnotherKeysNameIsAbsence) {
  TempDir dir;
  std::unique_ptr<HeaderStore> store = make_header_cache(dir.path());
  store->store_revision(kRepo, "main", kCommit);
  store->store_revision(kRepo, "v1.0", std::string(40, 'b'));
  const std::vector<std::string> names = files_in(dir.path() + "/hub");
  ASSERT_EQ(names.size(), 2u);
  std::filesystem::copy_file(dir.path() + "/hub/" + names[0], dir.path() + "/hub/" + names[1],
                             std::filesystem::copy_options::overwrite_existing);
  // One of the two now holds the other's record: its key does not match.
  const bool main_kept = store->load_revision(kRepo, "main").has_value();
  const bool tag_kept = store->load_revision(kRepo, "v1.0").has_value();
  EXPECT_NE(main_kept, tag_kept);
}

TEST(HeaderCache, NoKeyNamesAFileOutsideTheCacheFolder) {
  TempDir dir;
  const std::string cache = dir.make_dir("cache");
  std::unique_ptr<HeaderStore> store = make_header_cache(cache);
  const std::string hostile = "../../../escape";
  store->store_prefix(hostile, "/" + hostile, "../" + hostile + "/\n\\x", StoredPrefix{1, "x"});
  store->store_listing(hostile, "..", {{"a", 1}});
  store->store_revision("..", "../..", kCommit);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"cache"});
  EXPECT_EQ(files_in(cache), std::vector<std::string>{"hub"});
  const std::vector<std::string> names = files_in(cache + "/hub");
  ASSERT_EQ(names.size(), 3u);
  for (const std::string& name : names) {
    EXPECT_TRUE(std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    })) << name;
  }
  EXPECT_EQ(store->load_revision("..", "../.."), kCommit);
}

TEST(HeaderCache, AFolderItCannotCreateKeepsNothing) {
  TempDir dir;
  const std::string blocker = dir.write_file("file", "not a folder");
  std::unique_ptr<HeaderStore> store = make_header_cache(blocker);
  store->store_revision(kRepo, "main", kCommit);
  EXPECT_EQ(store->load_revision(kRepo, "main"), std::nullopt);
}

}  // namespace
}  // namespace memfit
