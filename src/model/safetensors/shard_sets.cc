// choose_weight_files (model/safetensors/shard_sets.h): a folder's
// complete numbered shard sets and loose files, and which of them to sum.
#include "model/safetensors/shard_sets.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "memfit/checked_math.h"
#include "model/error_text.h"
#include "model/numbered_file_name.h"

namespace memfit {
namespace {

constexpr std::string_view kSuffix = ".safetensors";
// One numbered set: its members, sorted by name.
struct ShardSet {
  std::vector<std::string> files;
  std::set<uint64_t> numbers;  // distinct i in [1, N]; at most files.size() entries
  uint64_t count = 0;          // N
  bool complete() const { return numbers.size() == count; }
};

// "'a-1-of-2.safetensors' .. 'a-2-of-2.safetensors' (2 files)", or for an
// incomplete set "... (3 of its 4 shards)".
std::string describe(const ShardSet& set) {
  std::string note = set.complete() ? count_noun(set.files.size(), "file", "files")
                                    : fmt::format("{} of its {} shards", set.numbers.size(),
                                                  set.count);
  if (set.files.size() == 1) {
    return fmt::format("{} ({})", quote_untrusted(set.files.front()), note);
  }
  return fmt::format("{} .. {} ({})", quote_untrusted(set.files.front()),
                     quote_untrusted(set.files.back()), note);
}

std::string join_quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += ", ";
    out += quote_untrusted(name);
  }
  return out;
}

}  // namespace

std::optional<ShardName> parse_shard_name(std::string_view name) {
  std::optional<NumberedFileName> parsed = parse_numbered_file_name(name, kSuffix);
  if (!parsed) return std::nullopt;
  return ShardName{std::string(parsed->prefix), parsed->number, parsed->count};
}

WeightFileChoice choose_weight_files(const std::vector<WeightFile>& files) {
  // Keyed by (prefix, N): sets in a deterministic order.
  std::map<std::tuple<std::string, uint64_t>, ShardSet> sets;
  std::vector<std::string> names;
  std::vector<std::string> loose;
  CheckedBytes loose_bytes = 0;
  CheckedBytes set_bytes = 0;
  for (const WeightFile& file : files) {
    const std::string& name = file.name;
    names.push_back(name);
    std::optional<ShardName> shard = parse_shard_name(name);
    if (!shard) {
      loose.push_back(name);
      loose_bytes += file.size_bytes;
      continue;
    }
    set_bytes += file.size_bytes;
    ShardSet& set = sets[{shard->prefix, shard->count}];
    set.count = shard->count;
    set.files.push_back(name);
    if (shard->number >= 1 && shard->number <= shard->count) set.numbers.insert(shard->number);
  }

  const ShardSet* winner = nullptr;
  for (const auto& [key, set] : sets) {
    // Largest N wins; on a tie the first in map order (prefix sorted) stays.
    if (set.complete() && (winner == nullptr || set.count > winner->count)) winner = &set;
  }

  WeightFileChoice choice;
  if (winner != nullptr) {
    choice.files = winner->files;
    std::vector<std::string> skipped_parts;
    if (!loose.empty()) skipped_parts.push_back(join_quoted(loose));
    for (const auto& [key, set] : sets) {
      if (&set == winner) continue;
      skipped_parts.push_back("the shard set " + describe(set));
    }
    for (const std::string& name : names) {
      if (!std::binary_search(choice.files.begin(), choice.files.end(), name)) {
        choice.skipped.push_back(name);
      }
    }
    if (!choice.skipped.empty()) {
      std::string list;
      for (const std::string& part : skipped_parts) list += (list.empty() ? "" : ", ") + part;
      choice.warning = fmt::format(
          "sized the complete shard set {} and skipped {}, so that no weight is counted twice",
          describe(*winner), list);
    }
  } else if (!sets.empty() && !loose.empty() &&
             loose_bytes.saturated() >= set_bytes.saturated()) {
    choice.files = loose;
    std::string list;
    for (const auto& [key, set] : sets) {
      if (!list.empty()) list += ", ";
      list += describe(set);
    }
    for (const auto& [key, set] : sets) {
      choice.skipped.insert(choice.skipped.end(), set.files.begin(), set.files.end());
    }
    std::sort(choice.skipped.begin(), choice.skipped.end());
    choice.warning = fmt::format(
        "skipped the incomplete shard {} {} and sized {} instead, so that no weight is counted "
        "twice",
        sets.size() == 1 ? "set" : "sets", list, join_quoted(loose));
  } else {
    choice.files = names;
  }
  return choice;
}

}  // namespace memfit
