// FNV-1a, 64 bits: the header cache's checksum and its file-name hash.
// Not cryptographic: it catches torn and corrupted files, and a collision
// of names only costs a refetch (the key is checked inside the file).
#ifndef MEMFIT_HUB_HEADER_CACHE_HASH_H_
#define MEMFIT_HUB_HEADER_CACHE_HASH_H_

#include <cstdint>
#include <string_view>

namespace memfit {

inline uint64_t fnv1a_64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;  // the FNV offset basis
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;  // the FNV prime
  }
  return hash;
}

}  // namespace memfit

#endif  // MEMFIT_HUB_HEADER_CACHE_HASH_H_
