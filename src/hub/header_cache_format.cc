// The header cache's file format (memfit/header_cache.h has the layout):
// encoding, and decoding that trusts nothing. Every length read is checked
// against its bound and against the bytes left before anything is
// allocated; the checksum is checked first, then every field, then that
// nothing follows the last one.
#include <cstring>

#include "hub/header_cache_hash.h"
#include "memfit/header_cache.h"
#include "memfit/hub_name.h"

namespace memfit {
namespace {

constexpr std::string_view kMagic{"MFHDRC\r\n", 8};
constexpr uint32_t kVersion = 1;
constexpr size_t kChecksumBytes = 8;

enum class RecordKind : uint32_t { kPrefix = 1, kListing = 2, kRevision = 3 };

void put_u32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void put_u64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// Appends `bytes` after its u32 length; false when it does not fit a u32.
bool put_bytes(std::string& out, std::string_view bytes) {
  if (bytes.size() > UINT32_MAX) return false;
  put_u32(out, static_cast<uint32_t>(bytes.size()));
  out.append(bytes);
  return true;
}

// The key field's content: each part's u32 length and bytes. nullopt past
// kMaxCachedKeyBytes.
std::optional<std::string> encode_key(std::initializer_list<std::string_view> parts) {
  std::string key;
  for (std::string_view part : parts) {
    if (part.size() > kMaxCachedKeyBytes) return std::nullopt;
    put_bytes(key, part);
  }
  if (key.size() > kMaxCachedKeyBytes) return std::nullopt;
  return key;
}

std::string start_record(RecordKind kind, const std::string& key) {
  std::string out(kMagic);
  put_u32(out, kVersion);
  put_u32(out, static_cast<uint32_t>(kind));
  put_bytes(out, key);
  return out;
}

std::optional<std::string> finish_record(std::string out) {
  if (out.size() + kChecksumBytes > kMaxCachedFileBytes) return std::nullopt;
  put_u64(out, fnv1a_64(out));
  return out;
}

// A view over a record that advances as fields are taken; every take
// checks the bytes left first.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool take_u32(uint32_t& value) {
    if (bytes_.size() < 4) return false;
    value = 0;
    for (int i = 0; i < 4; ++i) value |= uint32_t{static_cast<unsigned char>(bytes_[i])} << (8 * i);
    bytes_.remove_prefix(4);
    return true;
  }
  bool take_u64(uint64_t& value) {
    if (bytes_.size() < 8) return false;
    value = 0;
    for (int i = 0; i < 8; ++i) value |= uint64_t{static_cast<unsigned char>(bytes_[i])} << (8 * i);
    bytes_.remove_prefix(8);
    return true;
  }
  // `length` bytes, as a view into the record (nothing allocated).
  bool take_view(uint64_t length, std::string_view& view) {
    if (length > bytes_.size()) return false;
    view = bytes_.substr(0, static_cast<size_t>(length));
    bytes_.remove_prefix(static_cast<size_t>(length));
    return true;
  }
  bool empty() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

// The payload of a whole, checksummed record of `kind` and `key`; nullopt
// for anything else.
std::optional<std::string_view> open_record(std::string_view file_bytes, RecordKind kind,
                                            const std::optional<std::string>& key) {
  if (!key) return std::nullopt;
  if (file_bytes.size() < kMagic.size() + kChecksumBytes) return std::nullopt;
  if (file_bytes.size() > kMaxCachedFileBytes) return std::nullopt;
  const std::string_view body = file_bytes.substr(0, file_bytes.size() - kChecksumBytes);
  Reader trailer(file_bytes.substr(body.size()));
  uint64_t checksum = 0;
  if (!trailer.take_u64(checksum) || checksum != fnv1a_64(body)) return std::nullopt;

  Reader reader(body);
  std::string_view magic;
  uint32_t version = 0;
  uint32_t record_kind = 0;
  uint32_t key_bytes = 0;
  std::string_view stored_key;
  if (!reader.take_view(kMagic.size(), magic) || magic != kMagic) return std::nullopt;
  if (!reader.take_u32(version) || version != kVersion) return std::nullopt;
  if (!reader.take_u32(record_kind) || record_kind != static_cast<uint32_t>(kind)) {
    return std::nullopt;
  }
  if (!reader.take_u32(key_bytes) || key_bytes > kMaxCachedKeyBytes) return std::nullopt;
  if (!reader.take_view(key_bytes, stored_key) || stored_key != *key) return std::nullopt;
  return body.substr(kMagic.size() + 4 + 4 + 4 + key_bytes);
}

}  // namespace

std::optional<std::string> encode_cached_prefix(std::string_view repo_id, std::string_view commit,
                                                std::string_view path, const StoredPrefix& prefix) {
  std::optional<std::string> key = encode_key({repo_id, commit, path});
  if (!key || prefix.bytes.size() > kMaxCachedPrefixBytes ||
      prefix.bytes.size() > prefix.file_size_bytes) {
    return std::nullopt;
  }
  std::string out = start_record(RecordKind::kPrefix, *key);
  out.reserve(out.size() + 16 + prefix.bytes.size() + kChecksumBytes);
  put_u64(out, prefix.file_size_bytes);
  put_u64(out, prefix.bytes.size());
  out.append(prefix.bytes);
  return finish_record(std::move(out));
}

std::optional<StoredPrefix> decode_cached_prefix(std::string_view file_bytes,
                                                 std::string_view repo_id, std::string_view commit,
                                                 std::string_view path) {
  std::optional<std::string_view> payload =
      open_record(file_bytes, RecordKind::kPrefix, encode_key({repo_id, commit, path}));
  if (!payload) return std::nullopt;
  Reader reader(*payload);
  StoredPrefix prefix;
  uint64_t length = 0;
  std::string_view bytes;
  if (!reader.take_u64(prefix.file_size_bytes) || !reader.take_u64(length)) return std::nullopt;
  if (length > kMaxCachedPrefixBytes || length > prefix.file_size_bytes) return std::nullopt;
  if (!reader.take_view(length, bytes) || !reader.empty()) return std::nullopt;
  prefix.bytes.assign(bytes);
  return prefix;
}

std::optional<std::string> encode_cached_listing(std::string_view repo_id, std::string_view commit,
                                                 const std::vector<StoredListingEntry>& listing) {
  std::optional<std::string> key = encode_key({repo_id, commit});
  if (!key || listing.size() > kMaxCachedListingEntries) return std::nullopt;
  std::string out = start_record(RecordKind::kListing, *key);
  put_u32(out, static_cast<uint32_t>(listing.size()));
  for (const StoredListingEntry& entry : listing) {
    if (entry.path.empty() || entry.path.size() > kMaxCachedPathBytes) return std::nullopt;
    put_bytes(out, entry.path);
    put_u64(out, entry.size_bytes);
  }
  return finish_record(std::move(out));
}

std::optional<std::vector<StoredListingEntry>> decode_cached_listing(std::string_view file_bytes,
                                                                     std::string_view repo_id,
                                                                     std::string_view commit) {
  std::optional<std::string_view> payload =
      open_record(file_bytes, RecordKind::kListing, encode_key({repo_id, commit}));
  if (!payload) return std::nullopt;
  Reader reader(*payload);
  uint32_t count = 0;
  if (!reader.take_u32(count) || count > kMaxCachedListingEntries) return std::nullopt;
  // Each entry takes at least 4 + 1 + 8 bytes: a count the payload cannot
  // hold is refused before the vector is sized from it.
  if (uint64_t{count} * 13 > payload->size()) return std::nullopt;
  std::vector<StoredListingEntry> listing;
  listing.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t path_bytes = 0;
    std::string_view path;
    StoredListingEntry entry;
    if (!reader.take_u32(path_bytes) || path_bytes == 0 || path_bytes > kMaxCachedPathBytes) {
      return std::nullopt;
    }
    if (!reader.take_view(path_bytes, path) || !reader.take_u64(entry.size_bytes)) {
      return std::nullopt;
    }
    entry.path.assign(path);
    listing.push_back(std::move(entry));
  }
  if (!reader.empty()) return std::nullopt;
  return listing;
}

std::optional<std::string> encode_cached_revision(std::string_view repo_id,
                                                  std::string_view revision,
                                                  std::string_view commit) {
  std::optional<std::string> key = encode_key({repo_id, revision});
  if (!key || !is_hub_commit(commit)) return std::nullopt;
  std::string out = start_record(RecordKind::kRevision, *key);
  put_bytes(out, commit);
  return finish_record(std::move(out));
}

std::optional<std::string> decode_cached_revision(std::string_view file_bytes,
                                                  std::string_view repo_id,
                                                  std::string_view revision) {
  std::optional<std::string_view> payload =
      open_record(file_bytes, RecordKind::kRevision, encode_key({repo_id, revision}));
  if (!payload) return std::nullopt;
  Reader reader(*payload);
  uint32_t length = 0;
  std::string_view commit;
  if (!reader.take_u32(length) || length != 40) return std::nullopt;
  if (!reader.take_view(length, commit) || !reader.empty() || !is_hub_commit(commit)) {
    return std::nullopt;
  }
  return std::string(commit);
}

}  // namespace memfit
