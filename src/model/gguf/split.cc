// Split GGUF models (include/memfit/gguf_split.h): the files of a set are
// found by name, as llama.cpp finds them, not by listing the folder.
#include "memfit/gguf_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/exception_boundary.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"
#include "model/numbered_file_name.h"

namespace memfit {
namespace {

constexpr std::string_view kSuffix = ".gguf";
// The folder part of `path` with its trailing '/', "" for a bare name.
std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// `key` of `header` (read from `file`) as an unsigned integer, or nullopt
// when absent.
Result<std::optional<uint64_t>> optional_count(const GgufHeader& header, std::string_view key,
                                               const std::string& file) {
  if (header.find(key) == nullptr) return std::optional<uint64_t>();
  Result<uint64_t> value = header.get_uint64(key);
  if (!value.ok()) return value.error().within(fmt::format("reading {}", quote_untrusted(file)));
  return std::optional<uint64_t>(*value);
}

GgufFileTotals totals_of(const std::string& path, const GgufHeader& header) {
  return GgufFileTotals{path, header.file_bytes, header.tensors.size(), header.tensor_bytes};
}

class SetReader {
 public:
  SetReader(FileSystem& fs, const std::string& path, const GgufReadOptions& options)
      : fs_(fs), path_(path), options_(options) {}

  Result<GgufModelFiles> read_one() {
    Result<GgufHeader> header = read_gguf_header(fs_, path_);
    if (!header.ok()) return header.error();
    Result<std::optional<uint64_t>> count = optional_count(*header, "split.count", path_);
    if (!count.ok()) return count.error();
    if (count->value_or(1) > 1) {
      return set_error(
          fmt::format("split.count is {}, but the name is not "
                      "'<prefix>-<i>-of-<n>.gguf', by which llama.cpp finds the "
                      "other splits",
                      **count));
    }
    GgufModelFiles model;
    model.files.push_back(totals_of(path_, *header));
    model.tensor_count = header->tensors.size();
    model.tensor_bytes = header->tensor_bytes;
    if (options_.keep_tensors) model.tensors = header->tensors;
    model.first = std::move(*header);
    return model;
  }

  Result<GgufModelFiles> read_set(const GgufSplitName& split) {
    if (split.number == 0 || split.number > split.count) {
      return set_error(
          fmt::format("the name numbers it {}, outside 1..{}", split.number, split.count));
    }
    if (split.count > kMaxGgufSplits) {
      return set_error(fmt::format("the name says {} splits, more than llama.cpp's {}", split.count,
                                   kMaxGgufSplits));
    }
    // Every file is looked for before any is read: a missing split is the
    // common failure (an interrupted download), and is named at once.
    std::vector<std::string> paths;
    for (uint64_t i = 1; i <= split.count; ++i) {
      paths.push_back(folder_of(path_) + gguf_split_file_name(split, i));
      Result<FileStat> stat = fs_.stat(paths.back());
      if (!stat.ok()) return stat.error();
      if (stat->kind == FileKind::kRegular) continue;
      return set_error(
          fmt::format("split {} of {}, {}, {}", i, split.count, quote_untrusted(paths.back()),
                      stat->kind == FileKind::kMissing ? "is missing" : "is not a regular file"));
    }
    GgufModelFiles model;
    CheckedBytes tensor_bytes = 0;
    std::vector<std::pair<std::string, uint64_t>> names;  // tensor, split index
    for (uint64_t i = 0; i < split.count; ++i) {
      const std::string& file = paths[i];
      Result<GgufHeader> header = read_gguf_header(fs_, file);
      if (!header.ok()) return header.error();
      if (Status agrees = check_split_keys(*header, file, i, split.count); !agrees.ok()) {
        return agrees.error();
      }
      model.files.push_back(totals_of(file, *header));
      model.tensor_count += header->tensors.size();
      tensor_bytes += header->tensor_bytes;
      if (options_.keep_tensors) {
        model.tensors.insert(model.tensors.end(), header->tensors.begin(), header->tensors.end());
      }
      for (GgufTensorInfo& tensor : header->tensors) {
        names.emplace_back(i == 0 ? tensor.name : std::move(tensor.name), i);
      }
      if (i == 0) model.first = std::move(*header);
    }
    if (tensor_bytes.overflowed()) {
      return Error::overflow(
          fmt::format("gguf split set of {}: the tensors of its {} files are "
                      "more than 2^64 bytes",
                      quote_untrusted(path_), split.count));
    }
    model.tensor_bytes = *tensor_bytes.value();
    Result<std::optional<uint64_t>> expected =
        optional_count(model.first, "split.tensors.count", paths[0]);
    if (!expected.ok()) return expected.error();
    if (expected->has_value() && **expected != model.tensor_count) {
      return set_error(
          fmt::format("{} has split.tensors.count {}, but the {} files hold {} "
                      "tensors",
                      quote_untrusted(paths[0]), **expected, split.count, model.tensor_count));
    }
    std::sort(names.begin(), names.end());
    for (size_t i = 1; i < names.size(); ++i) {
      if (names[i - 1].first == names[i].first) {
        return set_error(fmt::format(
            "tensor {} is in both {} and {}", quote_untrusted(names[i].first),
            quote_untrusted(paths[names[i - 1].second]), quote_untrusted(paths[names[i].second])));
      }
    }
    return model;
  }

 private:
  Error set_error(std::string detail) const {
    return Error(fmt::format("gguf split set of {}: {}", quote_untrusted(path_), detail));
  }

  // split.count and split.no of the file at `index` (from 0), where present.
  Status check_split_keys(const GgufHeader& header, const std::string& file, uint64_t index,
                          uint64_t count) const {
    Result<std::optional<uint64_t>> stated_count = optional_count(header, "split.count", file);
    if (!stated_count.ok()) return stated_count.error();
    if (stated_count->has_value() && **stated_count != count) {
      return set_error(fmt::format("{} has split.count {}, but the names say {} files",
                                   quote_untrusted(file), **stated_count, count));
    }
    Result<std::optional<uint64_t>> stated_no = optional_count(header, "split.no", file);
    if (!stated_no.ok()) return stated_no.error();
    if (stated_no->has_value() && **stated_no != index) {
      return set_error(
          fmt::format("{} has split.no {}, but its name makes it split.no {} "
                      "(split.no counts from 0)",
                      quote_untrusted(file), **stated_no, index));
    }
    return Status::Ok();
  }

  FileSystem& fs_;
  const std::string& path_;
  const GgufReadOptions& options_;
};

}  // namespace

std::optional<GgufSplitName> parse_gguf_split_name(std::string_view name) {
  std::optional<NumberedFileName> parsed = parse_numbered_file_name(name, kSuffix);
  if (!parsed || parsed->prefix.empty()) return std::nullopt;
  return GgufSplitName{std::string(parsed->prefix), parsed->number, parsed->count,
                       parsed->number_digits, parsed->count_digits};
}

std::string gguf_split_file_name(const GgufSplitName& name, uint64_t number) {
  return fmt::format("{}-{:0{}}-of-{:0{}}.gguf", name.prefix, number, name.number_digits,
                     name.count, name.count_digits);
}

Result<GgufModelFiles> read_gguf_model_files(FileSystem& fs, const std::string& path,
                                             const GgufReadOptions& options) {
  return without_exceptions("read_gguf_model_files", [&]() -> Result<GgufModelFiles> {
    SetReader reader(fs, path, options);
    std::optional<GgufSplitName> split = parse_gguf_split_name(name_of(path));
    return split ? reader.read_set(*split) : reader.read_one();
  });
}

}  // namespace memfit
