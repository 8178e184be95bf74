// Finding and sizing the safetensors weights of a folder or a single file.
// The rules are listed in include/memfit/weights.h, and docs/weights.md says
// why: the index is trusted only when it can be checked against the folder
// (every shard it names is a plain file name and exists beside it); a
// doubtful index loses to the folder's own headers whenever they are there;
// a lone index is used, labelled unverified; and of the folder's own files
// a complete numbered shard set wins over stray copies beside it
// (model/safetensors/shard_sets.h), so no weight counts twice.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "memfit/safetensors.h"
#include "memfit/weights.h"
#include "model/error_text.h"
#include "model/safetensors/header_sum.h"
#include "model/safetensors/shard_sets.h"
#include "model/safetensors/index.h"

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

// The regular *.safetensors files in `dir` (symlinks followed), sorted by
// name, with their sizes.
Result<std::vector<WeightFile>> list_safetensors_files(FileSystem& fs, const std::string& dir) {
  Result<std::vector<std::string>> names = fs.list_dir(dir);
  if (!names.ok()) return names.error();
  std::vector<WeightFile> files;
  for (std::string& name : *names) {
    if (!has_safetensors_suffix(name)) continue;
    Result<FileStat> stat = fs.stat(join_path(dir, name));
    if (!stat.ok()) return stat.error();
    if (stat->kind == FileKind::kRegular) files.push_back({std::move(name), stat->size_bytes});
  }
  return files;  // list_dir sorts
}

// Sums the tensor data bytes of the headers of `names` in `dir`, keeping
// their tensors when asked.
Result<WeightsLookup> size_from_headers(FileSystem& fs, const std::string& dir,
                                        const std::vector<std::string>& names,
                                        const WeightsLookupOptions& options) {
  std::vector<std::string> paths;
  paths.reserve(names.size());
  for (const std::string& name : names) paths.push_back(join_path(dir, name));
  Result<SafetensorsHeaderTotals> totals = sum_safetensors_headers(fs, paths, options.keep_tensors);
  if (!totals.ok()) return totals.error();
  return WeightsLookup{true,
                       WeightsInfo{totals->data_bytes, WeightsSource::kSafetensorsHeader,
                                   names.size(), totals->tensor_count, /*verified=*/true},
                       std::move(totals->tensors)};
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
  // Read once into a padded buffer and parsed there: no second copy. Not
  // mapped: another process truncating a mapped index would kill ours
  // (SIGBUS).
  Result<FileBytes> json =
      fs.read_file_padded(index_path, stat.size_bytes, kSafetensorsIndexPaddingBytes);
  if (!json.ok()) return json.error();
  Result<SafetensorsIndex> index = parse_padded_safetensors_index(json->view());
  if (!index.ok()) return IndexLoad{std::nullopt, index.error().message()};
  return IndexLoad{std::move(index).value(), ""};
}

// Why the index `index` cannot be trusted for `dir`, or "" when it can:
// every shard it names must be a plain file name and a regular file there.
// `local_files` are the folder's *.safetensors files, sorted by name.
Result<std::string> distrust_reason(FileSystem& fs, const std::string& dir,
                                    const SafetensorsIndex& index,
                                    const std::vector<WeightFile>& local_files) {
  auto by_name = [](const WeightFile& file, const std::string& name) { return file.name < name; };
  for (const std::string& shard : index.shard_names) {
    if (!is_plain_file_name(shard)) {
      return fmt::format("{} is not trusted: shard name {} is not a plain file name",
                         kSafetensorsIndexName, quote_untrusted(shard));
    }
  }
  uint64_t missing_count = 0;
  for (const std::string& shard : index.shard_names) {
    auto local = std::lower_bound(local_files.begin(), local_files.end(), shard, by_name);
    if (local != local_files.end() && local->name == shard) continue;
    Result<FileStat> stat = fs.stat(join_path(dir, shard));
    if (!stat.ok()) return stat.error();
    if (stat->kind != FileKind::kRegular) ++missing_count;
  }
  if (missing_count == 0) return std::string();
  return fmt::format("{} is stale: {} of its {} {} missing", kSafetensorsIndexName, missing_count,
                     count_noun(index.shard_names.size(), "shard", "shards"),
                     missing_count == 1 ? "is" : "are");
}

std::string headers_instead(const WeightFileChoice& choice) {
  if (choice.files.size() == 1) {
    return "sized the 1 *.safetensors file in the folder from its header instead";
  }
  return fmt::format("sized the {} *.safetensors files in the folder from their headers instead",
                     choice.files.size());
}

// The folder's own files, once any that would count the weights twice are
// left out. `index_problem`: why the index was not used, when there is one;
// its warning comes first.
Result<WeightsLookup> size_folder_files(FileSystem& fs, const std::string& dir,
                                        const std::vector<WeightFile>& local_files,
                                        const WeightsLookupOptions& options,
                                        std::optional<std::string_view> index_problem,
                                        std::vector<std::string>& warnings) {
  WeightFileChoice choice = choose_weight_files(local_files);
  if (index_problem) {
    warnings.push_back(fmt::format("{}; {}", *index_problem, headers_instead(choice)));
  }
  if (!choice.warning.empty()) warnings.push_back(std::move(choice.warning));
  return size_from_headers(fs, dir, choice.files, options);
}

// A trusted index whose shards' headers are read anyway (the caller wants
// their tensors): the headers' sum is the weights.
Result<WeightsLookup> size_indexed_shards(FileSystem& fs, const std::string& dir,
                                          const SafetensorsIndex& index,
                                          const WeightsLookupOptions& options,
                                          std::vector<std::string>& warnings) {
  Result<WeightsLookup> lookup = size_from_headers(fs, dir, index.shard_names, options);
  if (!lookup.ok()) return lookup.error();
  if (lookup->info.bytes != index.total_bytes) {
    warnings.push_back(fmt::format(
        "{}: total_size {} bytes differs from the {} bytes its shards' headers hold; the "
        "headers' sum is used",
        kSafetensorsIndexName, index.total_bytes, lookup->info.bytes));
  }
  return lookup;
}

}  // namespace

Result<WeightsLookup> find_folder_weights(FileSystem& fs, const std::string& dir,
                                          std::vector<std::string>& warnings,
                                          const WeightsLookupOptions& options) {
  Result<std::vector<WeightFile>> local_files = list_safetensors_files(fs, dir);
  if (!local_files.ok()) return local_files.error();
  const std::string index_path = join_path(dir, std::string(kSafetensorsIndexName));
  Result<FileStat> index_stat = fs.stat(index_path);
  if (!index_stat.ok()) return index_stat.error();

  if (index_stat->kind == FileKind::kMissing) {
    if (local_files->empty()) return WeightsLookup{};  // no weights: found == false
    return size_folder_files(fs, dir, *local_files, options, std::nullopt, warnings);
  }

  Result<IndexLoad> load = load_index(fs, index_path, *index_stat);
  if (!load.ok()) return load.error();
  if (!load->index) {
    if (local_files->empty()) {
      return Error(fmt::format("reading {}: {}", quote_untrusted(index_path), load->problem));
    }
    const std::string problem =
        fmt::format("{} is unusable ({})", kSafetensorsIndexName, load->problem);
    return size_folder_files(fs, dir, *local_files, options, problem, warnings);
  }

  const SafetensorsIndex& index = *load->index;
  Result<std::string> reason = distrust_reason(fs, dir, index, *local_files);
  if (!reason.ok()) return reason.error();
  if (reason->empty()) {
    if (options.keep_tensors) return size_indexed_shards(fs, dir, index, options, warnings);
    return WeightsLookup{true, WeightsInfo{index.total_bytes, WeightsSource::kSafetensorsIndex,
                                           index.shard_names.size(), 0, /*verified=*/true},
                         {}};
  }
  if (local_files->empty()) {
    warnings.push_back(
        fmt::format("{}: total_size {} bytes is unverified: no *.safetensors file "
                    "is in the folder",
                    kSafetensorsIndexName, index.total_bytes));
    return WeightsLookup{true, WeightsInfo{index.total_bytes, WeightsSource::kSafetensorsIndex,
                                           index.shard_names.size(), 0, /*verified=*/false},
                         {}};
  }
  return size_folder_files(fs, dir, *local_files, options, *reason, warnings);
}

Result<WeightsLookup> read_single_file_weights(FileSystem& fs, const std::string& path,
                                               const WeightsLookupOptions& options) {
  SafetensorsHeaderReader reader;
  if (!options.keep_tensors) {
    Result<SafetensorsSummary> summary = reader.read_summary(fs, path);
    if (!summary.ok()) return summary.error();
    return WeightsLookup{true, WeightsInfo{summary->data_bytes, WeightsSource::kSafetensorsHeader,
                                           1, summary->tensor_count, /*verified=*/true},
                         {}};
  }
  Result<SafetensorsHeader> header = reader.read(fs, path);
  if (!header.ok()) return header.error();
  return WeightsLookup{true,
                       WeightsInfo{header->data_bytes, WeightsSource::kSafetensorsHeader, 1,
                                   header->tensors.size(), /*verified=*/true},
                       std::move(header->tensors)};
}

Result<WeightsInfo> read_single_file_weights(FileSystem& fs, const std::string& path) {
  Result<WeightsLookup> lookup = read_single_file_weights(fs, path, WeightsLookupOptions{});
  if (!lookup.ok()) return lookup.error();
  return lookup->info;
}

}  // namespace memfit
