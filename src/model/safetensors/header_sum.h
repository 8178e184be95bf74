// Summing the headers of many .safetensors files, in parallel.
#ifndef MEMFIT_MODEL_SAFETENSORS_HEADER_SUM_H_
#define MEMFIT_MODEL_SAFETENSORS_HEADER_SUM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

struct SafetensorsHeaderTotals {
  uint64_t data_bytes = 0;  // sum of every tensor's data bytes
  uint64_t tensor_count = 0;
  // With keep_tensors: every tensor, file by file in `paths` order and in
  // header order within a file. Empty otherwise.
  std::vector<SafetensorsTensor> tensors;
};

// Files at least this many get more than one parsing thread.
inline constexpr size_t kMinFilesForThreads = 8;
// Never more parsing threads than this.
inline constexpr unsigned kMaxHeaderThreads = 8;

// Reads and validates the header of every file in `paths` and sums them;
// with `keep_tensors`, also keeps their tensor lists (names, dtypes, shapes)
// from the same read. Without it no per-tensor memory is allocated.
// On failure returns the error of the first failing file in `paths` order
// (as SafetensorsHeaderReader words it), whatever order the threads ran in.
//
// With kMinFilesForThreads files or more, headers are parsed on up to
// min(hardware threads, kMaxHeaderThreads) threads. Calls into `fs` overlap
// only when fs.allows_concurrent_calls(); any other file system is called
// one thread at a time (behind a mutex), so it needs no thread safety of its
// own. Falls back to one thread when threads cannot be started.
Result<SafetensorsHeaderTotals> sum_safetensors_headers(FileSystem& fs,
                                                        const std::vector<std::string>& paths,
                                                        bool keep_tensors = false);

}  // namespace memfit

#endif  // MEMFIT_MODEL_SAFETENSORS_HEADER_SUM_H_
