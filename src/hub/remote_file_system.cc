// RemoteFileSystem (remote_file_system.h): a Hub repo's listing as folders,
// and each file's header read as one growing prefix.
#include "hub/remote_file_system.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "base/worker_threads.h"
#include "memfit/checked_math.h"
#include "memfit/gguf.h"
#include "memfit/safetensors.h"
#include "memfit/untrusted_text.h"
#include "memfit/weights.h"

namespace memfit {
namespace {

bool ends_with_no_case(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  text = text.substr(text.size() - suffix.size());
  return std::equal(text.begin(), text.end(), suffix.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

uint64_t little_endian_u64(std::string_view bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

uint64_t remote_first_block_bytes(std::string_view path, uint64_t file_size_bytes) {
  if (ends_with_no_case(path, ".safetensors")) return kSafetensorsFirstBlockBytes;
  if (ends_with_no_case(path, ".gguf")) return kGgufFirstBlockBytes;
  // config.json and the index are read whole: fetch them whole at once.
  if (ends_with_no_case(path, ".json")) return file_size_bytes;
  return 0;
}

uint64_t remote_header_budget_bytes(std::string_view path) {
  if (ends_with_no_case(path, ".safetensors")) return 8 + kMaxSafetensorsHeaderBytes;
  if (ends_with_no_case(path, ".gguf")) return kMaxGgufHeaderBytes;
  if (ends_with_no_case(path, ".json")) return kMaxSafetensorsIndexBytes;
  return kOtherFileBudgetBytes;
}

RemoteFileSystem::RemoteFileSystem(HubReader* reader, HeaderStore* store, std::string repo_id,
                                   std::string commit, std::string root,
                                   const std::vector<StoredListingEntry>& listing)
    : reader_(reader),
      store_(store),
      repo_id_(std::move(repo_id)),
      commit_(std::move(commit)),
      root_(std::move(root)) {
  for (const StoredListingEntry& entry : listing) {
    auto file = std::make_unique<File>();
    file->path = entry.path;
    file->size_bytes = entry.size_bytes;
    files_.emplace(entry.path, std::move(file));
  }
}

RemoteFileSystem::File* RemoteFileSystem::find(const std::string& path) {
  if (!path.starts_with(root_ + "/")) return nullptr;
  auto it = files_.find(std::string_view(path).substr(root_.size() + 1));
  return it == files_.end() ? nullptr : it->second.get();
}

Result<FileStat> RemoteFileSystem::stat(const std::string& path) {
  if (path == root_) return FileStat{FileKind::kDirectory, 0};
  if (!path.starts_with(root_ + "/")) return FileStat{};
  const std::string inside = path.substr(root_.size() + 1);
  if (auto it = files_.find(inside); it != files_.end()) {
    return FileStat{FileKind::kRegular, it->second->size_bytes};
  }
  // A folder: some file's path continues it with '/'.
  const std::string folder = inside + "/";
  auto next = files_.lower_bound(folder);
  if (next != files_.end() && next->first.starts_with(folder)) {
    return FileStat{FileKind::kDirectory, 0};
  }
  return FileStat{};
}

Result<std::vector<std::string>> RemoteFileSystem::list_dir(const std::string& path) {
  Result<FileStat> st = stat(path);
  if (!st) return st.error();
  if (st->kind != FileKind::kDirectory) {
    return Error(fmt::format("{}: not a folder", quote_untrusted(path)));
  }
  const std::string folder = path == root_ ? "" : path.substr(root_.size() + 1) + "/";
  std::set<std::string> names;
  for (auto it = files_.lower_bound(folder); it != files_.end() && it->first.starts_with(folder);
       ++it) {
    const std::string_view rest = std::string_view(it->first).substr(folder.size());
    names.emplace(rest.substr(0, rest.find('/')));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

Status RemoteFileSystem::fill(File& file, uint64_t end) {
  if (!file.store_read) {
    file.store_read = true;
    if (store_) {
      std::optional<StoredPrefix> stored = store_->load_prefix(repo_id_, commit_, file.path);
      if (stored && stored->file_size_bytes == file.size_bytes &&
          stored->bytes.size() <= file.size_bytes && stored->bytes.size() > file.prefix.size()) {
        file.prefix = std::move(stored->bytes);
      }
    }
  }
  if (end <= file.prefix.size()) return {};
  const uint64_t budget = remote_header_budget_bytes(file.path);
  const std::string what = fmt::format("{} in {}", quote_untrusted(file.path),
                                       quote_untrusted(repo_id_));
  if (end > budget) {
    return Error(fmt::format("{}: reading {} bytes, past the {}-byte header budget: refused", what,
                             end, budget));
  }
  if (!reader_) {
    return Error(fmt::format("{}: offline, and the header cache holds only {} of the {} bytes "
                             "needed",
                             what, file.prefix.size(), end));
  }
  // At first a whole first block; later exactly what is missing (the GGUF
  // reader doubles its own window; a safetensors header's end is known).
  const uint64_t have = file.prefix.size();
  uint64_t want =
      std::max(end, have == 0 ? remote_first_block_bytes(file.path, file.size_bytes) : 0);
  want = std::min({want, file.size_bytes, budget});
  Result<std::string> bytes = reader_->read_range(commit_, file.path, file.size_bytes, have, want - 1);
  if (!bytes) return bytes.error();
  file.prefix += *bytes;
  if (store_) store_->store_prefix(repo_id_, commit_, file.path, {file.size_bytes, file.prefix});
  return {};
}

Status RemoteFileSystem::read_range_into(const std::string& path, uint64_t offset_bytes,
                                         uint64_t length_bytes, char* destination) {
  File* file = find(path);
  if (!file) return Error(fmt::format("{}: no such file", quote_untrusted(path)));
  const CheckedBytes end = CheckedBytes(offset_bytes) + length_bytes;
  if (end.overflowed() || end.saturated() > file->size_bytes) {
    return Error(fmt::format("{}: reading past the end of the {}-byte file",
                             quote_untrusted(path), file->size_bytes));
  }
  if (length_bytes == 0) return {};
  std::lock_guard lock(file->mutex);
  if (Status filled = fill(*file, end.saturated()); !filled) return filled;
  std::memcpy(destination, file->prefix.data() + offset_bytes, length_bytes);
  return {};
}

Result<std::string> RemoteFileSystem::read_range(const std::string& path, uint64_t offset_bytes,
                                                 uint64_t length_bytes) {
  // Bounded before the allocation: a read can never pass the file's
  // budget, whatever length is asked.
  File* file = find(path);
  if (file && length_bytes > remote_header_budget_bytes(file->path)) {
    return Error(fmt::format("{}: reading {} bytes, past the header budget: refused",
                             quote_untrusted(path), length_bytes));
  }
  std::string bytes(length_bytes, '\0');
  if (Status read = read_range_into(path, offset_bytes, length_bytes, bytes.data()); !read) {
    return read.error();
  }
  return bytes;
}

Status RemoteFileSystem::prefetch(const std::vector<std::string>& paths, unsigned concurrency,
                                  const std::function<void(size_t, size_t)>& progress) {
  std::vector<Status> results(paths.size());
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      File* file = find(paths[i]);
      if (!file || file->size_bytes == 0) continue;
      std::lock_guard lock(file->mutex);
      Status status = fill(*file, 1);
      // A safetensors file's first 8 bytes give its header's length: the
      // rest of a header larger than the first block is fetched now, in
      // parallel with the others, not later one file at a time.
      if (status && file->size_bytes >= 8 && file->prefix.size() >= 8 &&
          ends_with_no_case(file->path, ".safetensors")) {
        const CheckedBytes end = CheckedBytes(8) + little_endian_u64(file->prefix);
        if (!end.overflowed() && end.saturated() <= file->size_bytes &&
            end.saturated() <= remote_header_budget_bytes(file->path)) {
          status = fill(*file, end.saturated());
        }
      }
      results[i] = std::move(status);
      if (progress) {
        std::lock_guard progress_lock(progress_mutex);
        progress(++done, paths.size());
      }
    }
  };
  const unsigned threads =
      static_cast<unsigned>(std::min<size_t>(std::max(1u, concurrency), paths.size()));
  run_on_threads(threads, work);
  for (Status& status : results) {
    if (!status) return status;
  }
  return {};
}

}  // namespace memfit
