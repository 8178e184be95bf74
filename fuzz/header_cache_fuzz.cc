// libFuzzer target for the header cache's files (memfit/header_cache.h):
// the input is a cache file's bytes, decoded as each kind of record under
// a fixed key, as every load does. A decoded record must be canonical:
// encoding what was decoded gives back the input, byte for byte (so a load
// accepted nothing the format does not define), and it must hold its
// bounds (a prefix no longer than its file nor 64 MiB, a commit of 40 hex
// digits, listing paths 1..4096 bytes).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memfit/header_cache.h"
#include "memfit/hub_name.h"

namespace {

// The key every committed seed (tests/data/hostile/header_cache/) is
// written under.
constexpr std::string_view kRepo = "org/model";
constexpr std::string_view kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr std::string_view kPath = "model.gguf";
constexpr std::string_view kRevision = "main";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  if (std::optional<memfit::StoredPrefix> prefix =
          memfit::decode_cached_prefix(bytes, kRepo, kCommit, kPath)) {
    if (prefix->bytes.size() > prefix->file_size_bytes ||
        prefix->bytes.size() > memfit::kMaxCachedPrefixBytes) {
      __builtin_trap();
    }
    if (memfit::encode_cached_prefix(kRepo, kCommit, kPath, *prefix) != bytes) __builtin_trap();
  }

  if (std::optional<std::vector<memfit::StoredListingEntry>> listing =
          memfit::decode_cached_listing(bytes, kRepo, kCommit)) {
    if (listing->size() > memfit::kMaxCachedListingEntries) __builtin_trap();
    for (const memfit::StoredListingEntry& entry : *listing) {
      if (entry.path.empty() || entry.path.size() > memfit::kMaxCachedPathBytes) __builtin_trap();
    }
    if (memfit::encode_cached_listing(kRepo, kCommit, *listing) != bytes) __builtin_trap();
  }

  if (std::optional<std::string> commit = memfit::decode_cached_revision(bytes, kRepo, kRevision)) {
    if (!memfit::is_hub_commit(*commit)) __builtin_trap();
    if (memfit::encode_cached_revision(kRepo, kRevision, *commit) != bytes) __builtin_trap();
  }
  return 0;
}
