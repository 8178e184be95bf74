// A GGUF quant repo as the Hub holds it, for tests that read one from the
// fake Hub (support/fake_hub.h): three quants of Qwen3-8B's geometry, one
// split in two, a projector and a README. Each GGUF file is its header and
// a size counting its (never fetched) tensor data.
#ifndef MEMFIT_TESTS_SUPPORT_GGUF_HUB_REPO_H_
#define MEMFIT_TESTS_SUPPORT_GGUF_HUB_REPO_H_

#include <cstdint>
#include <string>

#include "support/fake_hub.h"

namespace memfit {

// Files (sizes are header + data; every tensor a multiple of 32 B):
//   Qwen3-8B-Q4_K_M.gguf   small_ggufs.h's qwen3_8b_gguf(): 689,799,168 B of data
//   Qwen3-8B-Q8_0.gguf     a Q8_0 embedding [4096, 151936] (128 blocks of
//                          34 B = 4,352 B a row: 661,225,472 B) and 36
//                          Q8_0 [4096, 4096] (17,825,792 B each,
//                          641,728,512 B): 1,302,953,984 B of data
//   Q2_K/Qwen3-8B-Q2_K-00001-of-00002.gguf  the keys and a Q2_K embedding
//                          [4096, 151936]: 16 blocks x 84 B = 1,344 B a
//                          row, 204,201,984 B
//   Q2_K/Qwen3-8B-Q2_K-00002-of-00002.gguf  36 Q2_K [4096, 4096]: 1,344 B
//                          x 4,096 rows = 5,505,024 B each, 198,180,864 B
//   mmproj-F16.gguf        a projector (the Q8_0 file's bytes), not a model
//   README.md
struct GgufHubRepo {
  FakeHubRepo repo;
  uint64_t q4_bytes = 0;     // the Q4_K_M file's size
  uint64_t q8_bytes = 0;     // the Q8_0 file's size
  uint64_t split_bytes = 0;  // both Q2_K parts' sizes, summed
};

GgufHubRepo gguf_hub_repo(const std::string& commit);

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_GGUF_HUB_REPO_H_
