// Numbered shard sets: which of a folder's *.safetensors files hold one
// copy of the weights when no trusted index says so.
//
// A shard name is "<prefix>-<i>-of-<N>.safetensors", i and N decimal (any
// width: DeepSeek-V3 writes "model-00001-of-000163"). Files with the same
// prefix and N form one set; the set is complete when every i from 1 to N
// is present. Members numbered 0 or past N stay with their set (gpt-oss
// ships model-00000-of-00002 beside 00001 and 00002). Any other
// *.safetensors file is a loose file (a consolidated "model.safetensors",
// "consolidated.safetensors", ...).
#ifndef MEMFIT_MODEL_SAFETENSORS_SHARD_SETS_H_
#define MEMFIT_MODEL_SAFETENSORS_SHARD_SETS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memfit {

struct ShardName {
  std::string prefix;   // "model"
  uint64_t number = 0;  // i
  uint64_t count = 0;   // N, at least 1
};

// nullopt when `file_name` is not a numbered shard name (or a number has
// more than 9 digits).
std::optional<ShardName> parse_shard_name(std::string_view file_name);

struct WeightFile {
  std::string name;
  uint64_t size_bytes = 0;  // the whole file's size on disk
};

struct WeightFileChoice {
  std::vector<std::string> files;    // to size, sorted
  std::vector<std::string> skipped;  // left out, sorted; empty when none
  std::string warning;               // "" when nothing was skipped
};

// Picks the files that hold one copy of the weights from `files` (a
// folder's *.safetensors files, sorted by name):
//  1. Some set is complete: the complete set with the largest N wins (ties:
//     the prefix that sorts first); every other file is skipped.
//  2. No set is complete, and the loose files are together at least as
//     large on disk as the sets' files: the loose files win and every set
//     member is skipped. This is an interrupted download of shards beside a
//     whole consolidated copy; loose files smaller than the shards already
//     there cannot be a whole copy (an adapter, an extra head), so then
//     rule 3 applies, which over-counts rather than under-counts.
//  3. Otherwise (no set, no loose file, or loose files smaller than the
//     incomplete sets): all files.
// The warning names every skipped file (quoted, as untrusted text; a set as
// its first and last names) and says which rule applied.
WeightFileChoice choose_weight_files(const std::vector<WeightFile>& files);

}  // namespace memfit

#endif  // MEMFIT_MODEL_SAFETENSORS_SHARD_SETS_H_
