// HeaderStore: where header bytes read from the Hugging Face Hub are kept
// between runs, so that a second look at the same model asks the Hub only
// which commit its revision names.
//
// Keys are exact: a repo id ("Qwen/Qwen3-8B"), a commit (40 hex digits,
// never a branch name: a branch moves, a commit's files do not) and a path
// inside the repo. What is kept is a prefix of the file (its first bytes,
// as many as were read: a config.json whole, a safetensors or GGUF header)
// with the file's full size, and the repo's file listing at that commit.
// A revision's commit is kept too, for --offline runs only (online, the
// Hub is always asked: a branch moves).
//
// Implementations decide where the bytes live (header_cache.h: files under
// MEMFIT_CACHE_DIR). Every failure to load is an absence, never an error
// for the caller: a cache can always be refetched. Thread-safe: shard
// headers are stored from several threads at once.
#ifndef MEMFIT_HEADER_STORE_H_
#define MEMFIT_HEADER_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The first bytes of a file of the repo at a commit.
struct StoredPrefix {
  uint64_t file_size_bytes = 0;  // the whole file's size on the Hub
  std::string bytes;             // bytes [0, bytes.size()); size <= file_size_bytes
};

// One file of a repo's listing at a commit (the Hub's model API).
struct StoredListingEntry {
  std::string path;         // "model-00001-of-00004.safetensors"
  uint64_t size_bytes = 0;  // the file's size (for LFS files, the LFS size)
};

class HeaderStore {
 public:
  virtual ~HeaderStore() = default;

  virtual std::optional<StoredPrefix> load_prefix(const std::string& repo_id,
                                                  const std::string& commit,
                                                  const std::string& path) = 0;
  // Keeps `prefix`, replacing a shorter one kept before (never a longer
  // one). Failures are swallowed: the next run refetches.
  virtual void store_prefix(const std::string& repo_id, const std::string& commit,
                            const std::string& path, const StoredPrefix& prefix) = 0;

  virtual std::optional<std::vector<StoredListingEntry>> load_listing(
      const std::string& repo_id, const std::string& commit) = 0;
  virtual void store_listing(const std::string& repo_id, const std::string& commit,
                             const std::vector<StoredListingEntry>& listing) = 0;

  // The commit a revision ("main", "v1.0", "refs/pr/1") last resolved to,
  // for offline runs.
  virtual std::optional<std::string> load_revision(const std::string& repo_id,
                                                   const std::string& revision) = 0;
  virtual void store_revision(const std::string& repo_id, const std::string& revision,
                              const std::string& commit) = 0;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HEADER_STORE_H_
