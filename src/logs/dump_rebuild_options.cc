// A dump's rebuild under llama-quantize's options (logs/dump_rebuild.h,
// rebuilt_with_options; the search: engines/llamacpp/quantize_options.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engines/llamacpp/quantize_options.h"
#include "logs/dump_rebuild.h"
#include "memfit/ggml_types.h"
#include "memfit/untrusted_text.h"

namespace memfit::logs {
namespace {

// What fixes a list's bytes on each device whatever the split: per block
// ("blk.N"), and per tensor outside the blocks, the tensors' types and
// bytes (as a multiset: two roles of one shape that trade types leave
// every device's bytes, CPU_REPACK's copies included, as they were).
using PlacementKey = std::map<std::string, std::vector<std::pair<std::string, uint64_t>>>;

PlacementKey placement_key(const Model& m) {
  PlacementKey key;
  for (const SafetensorsTensor& t : m.tensors) {
    std::string group = t.name;
    if (group.starts_with("blk.")) group = group.substr(0, group.find('.', 4));
    key[group].emplace_back(t.dtype, t.data_bytes);
  }
  for (auto& [group, list] : key) std::sort(list.begin(), list.end());
  return key;
}

// The printed counts as ggml types; nullopt when the log names a type
// memfit does not know.
std::optional<llamacpp::QuantizedFileTotals> file_totals(const TypeCounts& printed, const LogModel& dump) {
  llamacpp::QuantizedFileTotals totals;
  for (const auto& [name, n] : printed) {
    const GgmlTypeTraits* traits = nullptr;
    for (const GgmlTypeTraits& t : ggml_type_table()) {
      if (t.name == name) traits = &t;
    }
    if (traits == nullptr) return std::nullopt;
    totals.counts.emplace_back(traits->type, n);
  }
  totals.bytes = dump.file_bytes->value;
  totals.band_bytes = dump.file_bytes->band;
  return totals;
}

// Where the rules alone, with (at least) the converter's quantized tensors kept
// (quantize_options.h, is_kept_as_converted), hold the counts and size,
// that assignment is taken over those that need llama-quantize's flags
// to give them too (e.g. gpt-oss: --token-embedding-type and
// --output-tensor-type swapping the two same-shaped matrices' types):
// no flag is the run the counts need least. Others only where none is.
template <typename Found>
void prefer_rules_alone(std::vector<Found>& found) {
  std::vector<Found> alone;
  for (const Found& f : found) {
    const auto kept = [](const std::string& o) { return llamacpp::is_kept_as_converted(o); };
    if (!f.options.empty() && std::all_of(f.options.begin(), f.options.end(), kept)) {
      alone.push_back(f);
    }
  }
  if (!alone.empty() && alone.size() < found.size()) found = std::move(alone);
}

}  // namespace

Result<Model> rebuilt_with_options(const Model& rebuilt, const LogModel& dump, const ConvertedFrom& from,
                                   const llamacpp::GgufFileType& type, const TypeCounts& printed) {
  const std::optional<llamacpp::QuantizedFileTotals> totals = file_totals(printed, dump);
  if (!totals) return Error("the log names a tensor type memfit does not know");
  struct Found {
    Model model;
    Variant variant;
    llamacpp::QuantizeRules rules;
    std::vector<std::string> options;
  };
  std::vector<Found> found;
  for (const auto& [rules, v] : attempts_for(rebuilt, from)) {
    Candidate c = candidate_of(rebuilt, from, v);
    Result<std::vector<llamacpp::ConvertedTensor>> tensors =
        llamacpp::converted_tensors(c.model.spec, from.widths(), &c.hints);
    if (!tensors) continue;
    std::vector<llamacpp::TypeChoice> choices;
    Result<std::vector<GgmlType>> types = llamacpp::quantized_types(c.model.spec, *tensors, type, rules, &choices);
    if (!types) continue;
    llamacpp::QuantizeRules effective = rules;
    if (llamacpp::needs_importance_matrix(type)) effective.imatrix = true;
    const llamacpp::RulesRebuild rebuild{*tensors, *types, choices, type.default_type, effective};
    Result<std::vector<llamacpp::OptionsAssignment>> assignments = llamacpp::search_quantize_options(rebuild, *totals);
    if (!assignments) return Error(fmt::format("no release's rules give the log's counts, and {}",
                                               assignments.error().detail()));
    for (const llamacpp::OptionsAssignment& a : *assignments) {
      Result<Model> m = llamacpp::gguf_model_of_types(c.model, *tensors, a.types, rules);
      if (!m) continue;
      found.push_back(Found{std::move(*m), v, rules, a.options});
    }
  }
  if (found.empty()) return Error("");
  prefer_rules_alone(found);
  const PlacementKey key = placement_key(found.front().model);
  for (const Found& f : found) {
    if (placement_key(f.model) != key) {
      return Error(fmt::format(
          "{} assignments of llama-quantize's options hold the log's counts and size but give the "
          "devices different bytes (e.g. {} and {})",
          found.size(), fmt::join(found.front().options, " "), fmt::join(f.options, " ")));
    }
  }
  Found& f = found.front();
  const uint64_t sum = f.model.weights.bytes;
  const size_t n = f.model.tensors.size();
  std::string note = fmt::format(
      "weights: the {} GGUF llama-quantize writes from the dump's hyperparameters with {}, {} tensors "
      "({}), {} bytes: the log's tensor counts by type and its file size, {}, agree",
      type.name, fmt::join(f.options, " "), n, describe(printed), sum,
      escape_untrusted(dump.file_size_text));
  note += rules_note(f.rules);
  if (found.size() > 1) {
    note += fmt::format("; {} assignments of the options hold them, all with the same bytes on every device",
                        found.size());
  }
  return accepted(std::move(f.model), rebuilt, f.variant, std::move(note));
}

}  // namespace memfit::logs
