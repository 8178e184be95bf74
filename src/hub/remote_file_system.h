// RemoteFileSystem: a repo of the Hugging Face Hub at one commit, read
// through the FileSystem interface, so the model loader reads it as it
// reads a local folder: config.json whole, weight files by header ranges.
//
// Paths are "<root>/<file in the repo>", root being the repo id
// ("Qwen/Qwen3-8B/config.json"); the folders are those the listing
// implies. Each file keeps the bytes read so far as one prefix: a read
// past it fetches what is missing with one Range request (at first a
// whole first block, remote_first_block_bytes, so most headers take one). No file is read past its header budget
// (header_budget_bytes): tensor data is never fetched.
//
// With a HeaderStore, a file's stored prefix is used before anything is
// fetched, and each fetched prefix is stored. Offline, nothing is fetched:
// a read past the stored prefix fails.
//
// Thread-safe (allows_concurrent_calls): files are read in parallel, each
// one's fetches in order under its own lock.
#ifndef MEMFIT_HUB_REMOTE_FILE_SYSTEM_H_
#define MEMFIT_HUB_REMOTE_FILE_SYSTEM_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "hub/hub_reader.h"
#include "memfit/file_system.h"
#include "memfit/header_store.h"

namespace memfit {

// The first bytes fetched of a file before anything else is known, by its
// kind: most safetensors headers and most GGUF metadata fit.
inline constexpr uint64_t kSafetensorsFirstBlockBytes = 256ull << 10;
inline constexpr uint64_t kGgufFirstBlockBytes = 1ull << 20;
// How far any other file may be read (a README, tokenizer files): JSON
// documents are fetched whole up to the index's bound (weights.h).
inline constexpr uint64_t kOtherFileBudgetBytes = 16ull << 20;

// The first block and the budget for a file of the repo, by its name.
uint64_t remote_first_block_bytes(std::string_view path, uint64_t file_size_bytes);
uint64_t remote_header_budget_bytes(std::string_view path);

class RemoteFileSystem final : public FileSystem {
 public:
  // `reader` null: offline, only `store` is read (which must then be set).
  RemoteFileSystem(HubReader* reader, HeaderStore* store, std::string repo_id, std::string commit,
                   std::string root, const std::vector<StoredListingEntry>& listing);

  Result<FileStat> stat(const std::string& path) override;
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override;
  Status read_range_into(const std::string& path, uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override;
  Result<std::vector<std::string>> list_dir(const std::string& path) override;
  bool allows_concurrent_calls() const override { return true; }

  // Fetches the first block of each of `paths` (files of this file
  // system), at most `concurrency` at once; for a safetensors file, its
  // whole header, whose length the first 8 bytes give. `progress` (may be
  // empty) is called after each file with (files done, files in all),
  // under a lock. The first failure, in the order of `paths`, is returned.
  Status prefetch(const std::vector<std::string>& paths, unsigned concurrency,
                  const std::function<void(size_t, size_t)>& progress);

  const std::string& root() const { return root_; }

 private:
  struct File {
    std::string path;  // inside the repo
    uint64_t size_bytes = 0;
    std::mutex mutex;  // guards what follows
    bool store_read = false;
    std::string prefix;
  };

  // The file `path` names, or null. Directories are not files.
  File* find(const std::string& path);
  // Makes `file.prefix` hold at least `end` bytes (end <= its size); called
  // with file.mutex held.
  Status fill(File& file, uint64_t end);

  HubReader* reader_;
  HeaderStore* store_;
  std::string repo_id_;
  std::string commit_;
  std::string root_;
  std::map<std::string, std::unique_ptr<File>, std::less<>> files_;  // by path in the repo
};

}  // namespace memfit

#endif  // MEMFIT_HUB_REMOTE_FILE_SYSTEM_H_
