// Finding and sizing the safetensors weights of a folder or a single file.
//
// Design note: the index is trusted only when it can be checked against the
// folder (every shard it names is a plain file name and exists beside it),
// because real repositories ship indexes that do not describe their files:
// a quantized community repo that kept the full-precision source's index
// names 46 shards while the folder holds 12 others. Whenever the folder's
// own *.safetensors files are there to be read, a doubtful index loses to
// their headers; a lone index (only config and index downloaded) is used,
// labelled unverified. The rules are listed in include/memfit/weights.h.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "memfit/safetensors.h"
#include "memfit/weights.h"
#include "model/error_text.h"
#include "model/safetensors_header_sum.h"
#include "model/safetensors_index.h"

namespace memfit {
namespace {

constexpr std::string_view kSafetensorsSuffix = ".safetensors";

bool has_safetensors_suffix(std::string_view name) {
  return name.size() > kSafetensorsSuffix.size() && name.ends_with(kSafetensorsSuffix);
}

// A shard name that may be opened beside the index: one path component,
// not "." or "..", no separator, drive letter (':') or NUL.
bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return name.find_first_of(std::string_view("/\\:\0", 4)) == std::string_view::npos;
}

// Names of the regular *.safetensors files in `dir` (symlinks followed),
// sorted.
Result<std::vector<std::string>> list_safetensors_files(FileSystem& fs, const std::string& dir) {
  Result<std::vector<std::string>> names = fs.list_dir(dir);
  if (!names.ok()) return names.error();
  std::vector<std::string> files;
  for (std::string& name : *names) {
    if (!has_safetensors_suffix(name)) continue;
    Result<FileStat> stat = fs.stat(join_path(dir, name));
    if (!stat.ok()) return stat.error();
    if (stat->kind == FileKind::kRegular) files.push_back(std::move(name));
  }
  return files;  // list_dir sorts
}

// Sums the tensor data bytes of the headers of `names` in `dir`.
Result<WeightsInfo> size_from_headers(FileSystem& fs, const std::string& dir,
                                      const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  paths.reserve(names.size());
  for (const std::string& name : names) paths.push_back(join_path(dir, name));
  Result<SafetensorsHeaderTotals> totals = sum_safetensors_headers(fs, paths);
  if (!totals.ok()) return totals.error();
  return WeightsInfo{totals->data_bytes, WeightsSource::kSafetensorsHeader, names.size(),
                     totals->tensor_count, /*verified=*/true};
}

Result<WeightsLookup> found(Result<WeightsInfo> info) {
  if (!info.ok()) return info.error();
  return WeightsLookup{true, *info};
}

// An index file read and parsed, or the reason it cannot be used. File
// system failures (other than its absence) are errors of their own.
struct IndexLoad {
  std::optional<SafetensorsIndex> index;
  std::string problem;  // set when !index: "safetensors index: <detail>"
};

Result<IndexLoad> load_index(FileSystem& fs, const std::string& index_path, const FileStat& stat) {
  if (stat.kind != FileKind::kRegular) {
    return IndexLoad{std::nullopt, "safetensors index: not a regular file"};
  }
  if (stat.size_bytes > kMaxSafetensorsIndexBytes) {
    return IndexLoad{std::nullopt,
                     fmt::format("safetensors index: file is {} bytes, over the {}-byte (64 MiB) "
                                 "limit",
                                 stat.size_bytes, kMaxSafetensorsIndexBytes)};
  }
  // Parsed where it lies: mapped by the real file system, so a ~13 MB
  // index is neither copied nor faulted into fresh memory page by page.
  Result<FileBytes> json =
      fs.read_file_padded(index_path, stat.size_bytes, kSafetensorsIndexPaddingBytes);
  if (!json.ok()) return json.error();
  Result<SafetensorsIndex> index = parse_padded_safetensors_index(json->view());
  if (!index.ok()) return IndexLoad{std::nullopt, index.error().message()};
  return IndexLoad{std::move(index).value(), ""};
}

// Why the index `index` cannot be trusted for `dir`, or "" when it can:
// every shard it names must be a plain file name and a regular file there.
// `local_files` are the folder's *.safetensors files, sorted.
Result<std::string> distrust_reason(FileSystem& fs, const std::string& dir,
                                    const SafetensorsIndex& index,
                                    const std::vector<std::string>& local_files) {
  for (const std::string& shard : index.shard_names) {
    if (!is_plain_file_name(shard)) {
      return fmt::format("{} is not trusted: shard name {} is not a plain file name",
                         kSafetensorsIndexName, quote_untrusted(shard));
    }
  }
  uint64_t missing_count = 0;
  for (const std::string& shard : index.shard_names) {
    if (std::binary_search(local_files.begin(), local_files.end(), shard)) continue;
    Result<FileStat> stat = fs.stat(join_path(dir, shard));
    if (!stat.ok()) return stat.error();
    if (stat->kind != FileKind::kRegular) ++missing_count;
  }
  if (missing_count == 0) return std::string();
  return fmt::format("{} is stale: {} of its {} {} missing", kSafetensorsIndexName, missing_count,
                     count_noun(index.shard_names.size(), "shard", "shards"),
                     missing_count == 1 ? "is" : "are");
}

std::string headers_instead(const std::vector<std::string>& local_files) {
  if (local_files.size() == 1) {
    return "sized the 1 *.safetensors file in the folder from its header instead";
  }
  return fmt::format("sized the {} *.safetensors files in the folder from their headers instead",
                     local_files.size());
}

}  // namespace

Result<WeightsLookup> find_folder_weights(FileSystem& fs, const std::string& dir,
                                          std::vector<std::string>& warnings) {
  Result<std::vector<std::string>> local_files = list_safetensors_files(fs, dir);
  if (!local_files.ok()) return local_files.error();
  const std::string index_path = join_path(dir, std::string(kSafetensorsIndexName));
  Result<FileStat> index_stat = fs.stat(index_path);
  if (!index_stat.ok()) return index_stat.error();

  if (index_stat->kind == FileKind::kMissing) {
    if (local_files->empty()) return WeightsLookup{};  // no weights: found == false
    return found(size_from_headers(fs, dir, *local_files));
  }

  Result<IndexLoad> load = load_index(fs, index_path, *index_stat);
  if (!load.ok()) return load.error();
  if (!load->index) {
    if (local_files->empty()) {
      return Error(fmt::format("reading {}: {}", quote_untrusted(index_path), load->problem));
    }
    warnings.push_back(fmt::format("{} is unusable ({}); {}", kSafetensorsIndexName, load->problem,
                                   headers_instead(*local_files)));
    return found(size_from_headers(fs, dir, *local_files));
  }

  const SafetensorsIndex& index = *load->index;
  Result<std::string> reason = distrust_reason(fs, dir, index, *local_files);
  if (!reason.ok()) return reason.error();
  if (reason->empty()) {
    return WeightsLookup{true, WeightsInfo{index.total_bytes, WeightsSource::kSafetensorsIndex,
                                           index.shard_names.size(), 0, /*verified=*/true}};
  }
  if (local_files->empty()) {
    warnings.push_back(
        fmt::format("{}: total_size {} bytes is unverified: no *.safetensors file "
                    "is in the folder",
                    kSafetensorsIndexName, index.total_bytes));
    return WeightsLookup{true, WeightsInfo{index.total_bytes, WeightsSource::kSafetensorsIndex,
                                           index.shard_names.size(), 0, /*verified=*/false}};
  }
  warnings.push_back(fmt::format("{}; {}", *reason, headers_instead(*local_files)));
  return found(size_from_headers(fs, dir, *local_files));
}

Result<WeightsInfo> read_single_file_weights(FileSystem& fs, const std::string& path) {
  SafetensorsHeaderReader reader;
  Result<SafetensorsSummary> summary = reader.read_summary(fs, path);
  if (!summary.ok()) return summary.error();
  return WeightsInfo{summary->data_bytes, WeightsSource::kSafetensorsHeader, 1,
                     summary->tensor_count, /*verified=*/true};
}

}  // namespace memfit
