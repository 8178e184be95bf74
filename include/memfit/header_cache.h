// The header cache: a HeaderStore (header_store.h) that keeps each entry as
// one file under a cache folder, so a second run on the same Hub model
// reads its headers from disk.
//
//   <cache dir>/hub/prefix-<16 hex>     a file's first bytes (repo, commit, path)
//   <cache dir>/hub/listing-<16 hex>    a repo's file listing (repo, commit)
//   <cache dir>/hub/revision-<16 hex>   a revision's commit (repo, revision)
//
// The 16 hex digits are a 64-bit FNV-1a hash of the key, so no key, however
// hostile, names a path outside <cache dir>/hub; the key itself is written
// inside the file and compared on every load, so two keys with one hash
// cost a refetch, never a wrong answer.
//
// File layout (every integer little-endian):
//   magic     8 bytes  "MFHDRC\r\n"
//   version   u32      1
//   kind      u32      1 prefix, 2 listing, 3 revision
//   key       u32 length (<= kMaxCachedKeyBytes), then the key's parts,
//             each a u32 length and its bytes: repo id, commit (revision
//             for a revision file), path (prefix files only)
//   payload   prefix:   u64 file size, u64 prefix length
//                       (<= kMaxCachedPrefixBytes and <= the file size),
//                       then the prefix's bytes
//             listing:  u32 entry count (<= kMaxCachedListingEntries), then
//                       per entry u32 path length (1..kMaxCachedPathBytes),
//                       the path's bytes, u64 size
//             revision: u32 length (40), a commit's 40 lower-case hex digits
//   checksum  u64      FNV-1a 64 of every byte before it
// and nothing after it. A load checks all of it; any mismatch (a truncated
// or corrupted file, another version, another key) is an absence.
//
// Files are written to a temporary name in the same folder, then renamed
// over the final name: a reader sees the old file or the new, whole. A
// process that dies mid-write leaves a "*.tmp" file that no load reads.
#ifndef MEMFIT_HEADER_CACHE_H_
#define MEMFIT_HEADER_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/environment.h"
#include "memfit/header_store.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Bounds checked before anything is allocated, on load and on store.
inline constexpr uint64_t kMaxCachedPrefixBytes = uint64_t{64} << 20;  // 64 MiB
inline constexpr uint32_t kMaxCachedListingEntries = 100'000;
inline constexpr uint32_t kMaxCachedPathBytes = 4096;    // a listing entry's path
inline constexpr uint32_t kMaxCachedKeyBytes = 3 * 4096;  // the joined key
// A whole file: a largest prefix with its key and fields fits; a listing
// that would not fit is not stored.
inline constexpr uint64_t kMaxCachedFileBytes = kMaxCachedPrefixBytes + (uint64_t{64} << 10);

// The cache folder: MEMFIT_CACHE_DIR, else $XDG_CACHE_HOME/memfit, else
// $HOME/.cache/memfit (empty variables count as unset); nullopt with none
// of them (no cache: nothing is kept).
std::optional<std::string> header_cache_dir_from_environment(const Environment& env);

// The header cache in `cache_dir` (created, with its "hub" folder, on the
// first store). Thread-safe; several processes may share one folder (the
// last rename wins).
std::unique_ptr<HeaderStore> make_header_cache(std::string cache_dir);

// make_header_cache at header_cache_dir_from_environment(env); with no
// folder, a store that keeps nothing and loads nothing.
std::unique_ptr<HeaderStore> make_header_cache_from_environment(const Environment& env);

// The file format above, as bytes: what the cache writes and reads, and the
// entry point for tests and the fuzzer. Encoders return nullopt when the
// value breaks a bound (then nothing is stored); decoders return nullopt
// for anything but a whole, valid file of that kind and key.
std::optional<std::string> encode_cached_prefix(std::string_view repo_id, std::string_view commit,
                                                std::string_view path, const StoredPrefix& prefix);
std::optional<StoredPrefix> decode_cached_prefix(std::string_view file_bytes,
                                                 std::string_view repo_id, std::string_view commit,
                                                 std::string_view path);

std::optional<std::string> encode_cached_listing(std::string_view repo_id, std::string_view commit,
                                                 const std::vector<StoredListingEntry>& listing);
std::optional<std::vector<StoredListingEntry>> decode_cached_listing(std::string_view file_bytes,
                                                                     std::string_view repo_id,
                                                                     std::string_view commit);

std::optional<std::string> encode_cached_revision(std::string_view repo_id,
                                                  std::string_view revision,
                                                  std::string_view commit);
std::optional<std::string> decode_cached_revision(std::string_view file_bytes,
                                                  std::string_view repo_id,
                                                  std::string_view revision);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HEADER_CACHE_H_
