// Split GGUF models: one model in several files, as llama.cpp's gguf-split
// writes it.
//
// The files are "<prefix>-<i>-of-<n>.gguf" for i = 1..n (gguf-split writes
// five digits: "model-00001-of-00003.gguf"), in one folder. Each is a whole
// GGUF file holding its own tensors; the first also holds the model's
// metadata. gguf-split writes three keys into each: split.no (u16, the
// file's index counted from 0), split.count (u16, n) and
// split.tensors.count (i32, the tensors of all n files).
#ifndef MEMFIT_GGUF_SPLIT_H_
#define MEMFIT_GGUF_SPLIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/gguf.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// llama.cpp's split counts are u16.
inline constexpr uint64_t kMaxGgufSplits = 65535;

struct GgufSplitName {
  std::string prefix;   // "model"
  uint64_t number = 0;  // i, from 1
  uint64_t count = 0;   // n, at least 1
  // The widths of i and n as written ("00001": 5), so that siblings are
  // named the same way.
  size_t number_digits = 0;
  size_t count_digits = 0;
};

// nullopt when `file_name` (a name, not a path) is not "<prefix>-<i>-of-<n>.gguf"
// with i and n decimal (at most 9 digits each), n >= 1 and a non-empty prefix.
// i may be 0 or past n: the caller decides.
std::optional<GgufSplitName> parse_gguf_split_name(std::string_view file_name);

// The name of split `number` of the set `name` belongs to:
// ("model", 1 of 3, widths 5) and 2 -> "model-00002-of-00003.gguf".
std::string gguf_split_file_name(const GgufSplitName& name, uint64_t number);

struct GgufFileTotals {
  std::string path;
  uint64_t file_bytes = 0;
  uint64_t tensor_count = 0;
  uint64_t tensor_bytes = 0;  // the exact bytes of its tensors, summed
};

struct GgufModelFiles {
  // The header of the first file (split 1, or the only file): the model's
  // metadata, and the tensors of that file only.
  GgufHeader first;
  std::vector<GgufFileTotals> files;  // in split order; one when not split
  uint64_t tensor_count = 0;          // over every file
  uint64_t tensor_bytes = 0;          // over every file: the model's weights
  // With GgufReadOptions::keep_tensors: every file's tensor infos, in split
  // order (the first file's are also in first.tensors). Empty otherwise.
  std::vector<GgufTensorInfo> tensors;
};

struct GgufReadOptions {
  bool keep_tensors = false;
};

// Reads the model that `path` belongs to. A split name finds the other
// splits beside it (whichever split `path` is), each of which must exist
// and be read, split 1 first; split.count and split.no, where present,
// must agree with the names; split.tensors.count, where the first file has
// it, with the tensors found; and no tensor name may appear in two files.
// A file with another name is a whole model, unless its split.count says
// it is one of several. Only headers are read (read_gguf_header), never
// tensor data. Errors name the file: read_gguf_header's, or
// "gguf split set of '<path>': <detail>".
Result<GgufModelFiles> read_gguf_model_files(FileSystem& fs, const std::string& path,
                                             const GgufReadOptions& options = {});

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_GGUF_SPLIT_H_
