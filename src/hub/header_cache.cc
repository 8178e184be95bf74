// The header cache (memfit/header_cache.h): one file per entry under
// <cache dir>/hub, named by a hash of its kind and key.
//
// Loads take no lock: a file is only ever replaced whole (rename), so a
// load reads an old file or a new one, and checks it either way. Stores
// hold one mutex, so that "keep the longer prefix" compares against what
// this process last wrote; between processes the last rename wins.
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "hub/header_cache_hash.h"
#include "memfit/header_cache.h"

namespace memfit {
namespace {

namespace fs = std::filesystem;

// The file's bytes; nullopt when it is missing, unreadable, or larger than
// any record (checked before the buffer is sized).
std::optional<std::string> read_record_file(const fs::path& path) {
  std::error_code error;
  const uintmax_t size = fs::file_size(path, error);
  if (error || size > kMaxCachedFileBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size)) return std::nullopt;
  // A file that grew since file_size() is not the record we sized for.
  if (in.peek() != std::ifstream::traits_type::eof()) return std::nullopt;
  return bytes;
}

class NullHeaderStore final : public HeaderStore {
 public:
  std::optional<StoredPrefix> load_prefix(const std::string&, const std::string&,
                                          const std::string&) override {
    return std::nullopt;
  }
  void store_prefix(const std::string&, const std::string&, const std::string&,
                    const StoredPrefix&) override {}
  std::optional<std::vector<StoredListingEntry>> load_listing(const std::string&,
                                                              const std::string&) override {
    return std::nullopt;
  }
  void store_listing(const std::string&, const std::string&,
                     const std::vector<StoredListingEntry>&) override {}
  std::optional<std::string> load_revision(const std::string&, const std::string&) override {
    return std::nullopt;
  }
  void store_revision(const std::string&, const std::string&, const std::string&) override {}
};

class FileHeaderCache final : public HeaderStore {
 public:
  explicit FileHeaderCache(std::string cache_dir)
      : dir_(fs::path(std::move(cache_dir)) / "hub"), nonce_(std::random_device{}()) {}

  std::optional<StoredPrefix> load_prefix(const std::string& repo_id, const std::string& commit,
                                          const std::string& path) override {
    std::optional<std::string> bytes = read_record_file(file_for("prefix", {repo_id, commit, path}));
    if (!bytes) return std::nullopt;
    return decode_cached_prefix(*bytes, repo_id, commit, path);
  }

  void store_prefix(const std::string& repo_id, const std::string& commit,
                    const std::string& path, const StoredPrefix& prefix) override {
    std::optional<std::string> record = encode_cached_prefix(repo_id, commit, path, prefix);
    if (!record) return;
    std::lock_guard<std::mutex> lock(mutex_);
    // A longer prefix kept before stays: it answers every read this one
    // would, and more.
    if (std::optional<StoredPrefix> kept = load_prefix(repo_id, commit, path);
        kept && kept->bytes.size() >= prefix.bytes.size()) {
      return;
    }
    write_atomically(file_for("prefix", {repo_id, commit, path}), *record);
  }

  std::optional<std::vector<StoredListingEntry>> load_listing(const std::string& repo_id,
                                                              const std::string& commit) override {
    std::optional<std::string> bytes = read_record_file(file_for("listing", {repo_id, commit}));
    if (!bytes) return std::nullopt;
    return decode_cached_listing(*bytes, repo_id, commit);
  }

  void store_listing(const std::string& repo_id, const std::string& commit,
                     const std::vector<StoredListingEntry>& listing) override {
    std::optional<std::string> record = encode_cached_listing(repo_id, commit, listing);
    if (!record) return;
    std::lock_guard<std::mutex> lock(mutex_);
    write_atomically(file_for("listing", {repo_id, commit}), *record);
  }

  std::optional<std::string> load_revision(const std::string& repo_id,
                                           const std::string& revision) override {
    std::optional<std::string> bytes = read_record_file(file_for("revision", {repo_id, revision}));
    if (!bytes) return std::nullopt;
    return decode_cached_revision(*bytes, repo_id, revision);
  }

  void store_revision(const std::string& repo_id, const std::string& revision,
                      const std::string& commit) override {
    std::optional<std::string> record = encode_cached_revision(repo_id, revision, commit);
    if (!record) return;
    std::lock_guard<std::mutex> lock(mutex_);
    write_atomically(file_for("revision", {repo_id, revision}), *record);
  }

 private:
  // <dir>/<kind>-<16 hex>: the hash covers the kind and each part with its
  // length, so "a/b","c" and "a","b/c" differ; only [a-z0-9-] reach the name.
  fs::path file_for(std::string_view kind, std::initializer_list<std::string_view> parts) const {
    std::string key(kind);
    for (std::string_view part : parts) key += fmt::format("\n{}:{}", part.size(), part);
    return dir_ / fmt::format("{}-{:016x}", kind, fnv1a_64(key));
  }

  // Writes `bytes` to a fresh temporary file in the same folder, then
  // renames it over `path`. Any failure leaves `path` as it was and is
  // swallowed (a cache can be refetched). Called with mutex_ held.
  void write_atomically(const fs::path& path, const std::string& bytes) {
    std::error_code error;
    fs::create_directories(dir_, error);
    if (error) return;
    // Unique among this process's writes (the counter) and, with high
    // probability, among processes sharing the folder (the nonce).
    const fs::path temp =
        dir_ / fmt::format("{}.{:016x}.{}.tmp", path.filename().string(), nonce_, ++writes_);
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.close();
      if (!out) {
        fs::remove(temp, error);
        return;
      }
    }
    fs::rename(temp, path, error);
    if (error) fs::remove(temp, error);
  }

  const fs::path dir_;
  const uint64_t nonce_;
  std::mutex mutex_;
  uint64_t writes_ = 0;  // guarded by mutex_
};

// The variable's value; nullopt when unset or empty.
std::optional<std::string> non_empty(const Environment& env, const std::string& name) {
  std::optional<std::string> value = env.get(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> header_cache_dir_from_environment(const Environment& env) {
  if (std::optional<std::string> dir = non_empty(env, "MEMFIT_CACHE_DIR")) return dir;
  if (std::optional<std::string> xdg = non_empty(env, "XDG_CACHE_HOME")) return *xdg + "/memfit";
  if (std::optional<std::string> home = non_empty(env, "HOME")) return *home + "/.cache/memfit";
  return std::nullopt;
}

std::unique_ptr<HeaderStore> make_header_cache(std::string cache_dir) {
  return std::make_unique<FileHeaderCache>(std::move(cache_dir));
}

std::unique_ptr<HeaderStore> make_header_cache_from_environment(const Environment& env) {
  std::optional<std::string> dir = header_cache_dir_from_environment(env);
  if (!dir) return std::make_unique<NullHeaderStore>();
  return make_header_cache(std::move(*dir));
}

}  // namespace memfit
