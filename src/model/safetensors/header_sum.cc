// sum_safetensors_headers (model/safetensors/header_sum.h): a checkpoint's
// shard headers parsed on several threads, since parsing them is almost all
// of the time sizing a 163-shard checkpoint (~18 MB of header JSON) takes
// (docs/performance.md). Reads overlap too when the FileSystem allows
// concurrent calls (the real one does); any other is called one thread at a
// time. Each thread takes the next unclaimed file and keeps its own reader
// (parser and buffers); results land in a slot per file, so the error
// reported is the first in path order, as in a serial run.
#include "model/safetensors/header_sum.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "base/worker_threads.h"
#include "memfit/checked_math.h"
#include "memfit/safetensors.h"

namespace memfit {
namespace {

// Forwards to another FileSystem, one call at a time.
class SerializedFileSystem : public FileSystem {
 public:
  explicit SerializedFileSystem(FileSystem& inner) : inner_(inner) {}

  Result<FileStat> stat(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.stat(path);
  }
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.read_range(path, offset_bytes, length_bytes);
  }
  Status read_range_into(const std::string& path, uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.read_range_into(path, offset_bytes, length_bytes, destination);
  }
  Result<std::vector<std::string>> list_dir(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.list_dir(path);
  }

 private:
  FileSystem& inner_;
  std::mutex mutex_;
};

unsigned thread_count_for(size_t file_count) {
  if (file_count < kMinFilesForThreads) return 1;
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(
      std::min<size_t>({hardware, kMaxHeaderThreads, file_count / (kMinFilesForThreads / 2)}));
}

// One file's header: its totals, and its tensors when they are kept.
struct FileHeader {
  Status status;
  SafetensorsSummary summary;
  std::vector<SafetensorsTensor> tensors;
};

FileHeader read_file(SafetensorsHeaderReader& reader, FileSystem& fs, const std::string& path,
                     bool keep_tensors) {
  FileHeader out;
  if (!keep_tensors) {
    Result<SafetensorsSummary> summary = reader.read_summary(fs, path);
    if (!summary.ok()) {
      out.status = summary.error();
    } else {
      out.summary = *summary;
    }
    return out;
  }
  Result<SafetensorsHeader> header = reader.read(fs, path);
  if (!header.ok()) {
    out.status = header.error();
    return out;
  }
  out.summary = {header->data_bytes, header->tensors.size()};
  out.tensors = std::move(header->tensors);
  return out;
}

}  // namespace

Result<SafetensorsHeaderTotals> sum_safetensors_headers(FileSystem& fs,
                                                        const std::vector<std::string>& paths,
                                                        bool keep_tensors) {
  std::vector<std::optional<FileHeader>> results(paths.size());
  const unsigned threads = thread_count_for(paths.size());

  if (threads <= 1) {
    SafetensorsHeaderReader reader;
    for (size_t i = 0; i < paths.size(); ++i) {
      results[i].emplace(read_file(reader, fs, paths[i], keep_tensors));
      if (!results[i]->status.ok()) break;  // later files cannot change the outcome
    }
  } else {
    SerializedFileSystem serialized_fs(fs);
    FileSystem& shared_fs = fs.allows_concurrent_calls() ? fs : serialized_fs;
    std::atomic<size_t> next_file{0};
    std::atomic<bool> failed{false};
    // A claimed file is always read, so when any file has failed, every
    // file before it in `paths` has been read too (claims go in order).
    auto work = [&] {
      SafetensorsHeaderReader reader;
      while (!failed) {
        const size_t i = next_file++;
        if (i >= paths.size()) break;
        results[i].emplace(read_file(reader, shared_fs, paths[i], keep_tensors));
        if (!results[i]->status.ok()) failed = true;
      }
    };
    run_on_threads(threads, work);
  }

  SafetensorsHeaderTotals totals;
  CheckedBytes data_bytes;
  for (size_t i = 0; i < paths.size(); ++i) {
    // Slots left empty come after a failure, which the scan meets first.
    if (!results[i]) continue;
    if (!results[i]->status.ok()) return results[i]->status.error();
    data_bytes += results[i]->summary.data_bytes;
    totals.tensor_count += results[i]->summary.tensor_count;
  }
  if (data_bytes.overflowed()) return Error("tensor bytes of the headers add up to more than 2^64");
  totals.data_bytes = *data_bytes.value();
  if (keep_tensors) {
    // tensor_count is bounded by the headers already parsed into memory.
    totals.tensors.reserve(totals.tensor_count);
    for (std::optional<FileHeader>& file : results) {
      for (SafetensorsTensor& t : file->tensors) totals.tensors.push_back(std::move(t));
    }
  }
  return totals;
}

}  // namespace memfit
