// CPU_REPACK's copies of a file no rebuilt list types (dump_rebuild.h,
// repack_of_every_assignment): the dump gives each type's count and the
// file size, the converter the tensors' names and shapes. Every way of
// typing the converter's roles that holds both is tried; the repacked
// bytes are priced when all of them give the same (q4_0 and q4_K, say,
// weigh 4.5 bits a weight alike and are both repacked on x86, so which
// roles hold which does not change the buffer). docs/check-log.md,
// "Rebuilt from llama.cpp's dump".
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/quantize_plan.h"
#include "logs/dump_rebuild.h"
#include "memfit/checked_math.h"
#include "memfit/ggml_types.h"
#include "memfit/llamacpp.h"

namespace memfit::logs {
namespace {

// Past this many steps the search gives up (nullopt): a list of tens of
// roles and a handful of types takes far fewer.
constexpr uint64_t kSearchBudget = 1'000'000;

// One role: the converter's tensors sharing a name less "blk.N." and a
// shape (ne[0] first), which a writer types alike.
struct Role {
  std::vector<size_t> members;  // indices into the converter's list
  std::vector<uint64_t> ne;
  // The converter's F32, which llama-quantize leaves F32: every 1-D
  // tensor, and the matrices it keeps float32 (a MoE router, which
  // llama_model_quantize_impl never quantizes: "ffn_gate_inp.weight";
  // ssm_conv1d).
  bool vector = false;
};

std::string role_name(const std::string& name) {
  if (!name.starts_with("blk.")) return name;
  const size_t dot = name.find('.', 4);
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::vector<Role> roles_of(const std::vector<llamacpp::ConvertedTensor>& tensors) {
  std::map<std::pair<std::string, std::vector<uint64_t>>, size_t> index;
  std::vector<Role> roles;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto key = std::make_pair(role_name(tensors[i].name), tensors[i].ne);
    auto [it, added] = index.emplace(key, roles.size());
    if (added) roles.push_back(Role{{}, tensors[i].ne, tensors[i].type == GgmlType::kF32});
    roles[it->second].members.push_back(i);
  }
  // The largest roles first: they settle the counts soonest.
  std::stable_sort(roles.begin(), roles.end(),
                   [](const Role& a, const Role& b) { return a.members.size() > b.members.size(); });
  return roles;
}

// The printed types as ggml's, with their counts; nullopt for a name ggml
// does not know.
std::optional<std::vector<std::pair<GgmlType, uint64_t>>> printed_types(const TypeCounts& printed) {
  std::vector<std::pair<GgmlType, uint64_t>> out;
  for (const auto& entry : printed) {
    const auto table = ggml_type_table();
    const std::string_view name = entry.first;  // a lambda captures no structured binding before clang 16
    const auto it = std::find_if(table.begin(), table.end(),
                                 [name](const GgmlTypeTraits& t) { return t.name == name; });
    if (it == table.end()) return std::nullopt;
    out.emplace_back(it->type, entry.second);
  }
  return out;
}

// A depth-first search over the roles' types, collecting the repacked
// bytes of each complete assignment that holds the counts and the size.
class Search {
 public:
  Search(const std::vector<llamacpp::ConvertedTensor>& tensors, std::vector<Role> roles,
         std::vector<std::pair<GgmlType, uint64_t>> types, const ScaledValue& size, uint64_t blocks,
         RepackKernels cpu, const RepackFallback* fallback)
      : tensors_(tensors), roles_(std::move(roles)), types_(std::move(types)), size_(size),
        blocks_(blocks), cpu_(cpu), fallback_(fallback), chosen_(roles_.size()) {
    bound_rest();
  }

  // false when the budget ran out.
  bool run() { return visit(0, 0); }
  const std::set<uint64_t>& repacked() const { return repacked_; }

 private:
  // For each suffix of the roles: the fewest and most bytes its roles can
  // weigh under the printed types (a 1-D role F32 only), and how many of
  // its tensors are 1-D. Saturating sums: a bound, never an allocation.
  void bound_rest() {
    least_.assign(roles_.size() + 1, 0);
    most_.assign(roles_.size() + 1, 0);
    vectors_.assign(roles_.size() + 1, 0);
    for (size_t r = roles_.size(); r-- > 0;) {
      const Role& role = roles_[r];
      uint64_t lo = UINT64_MAX;
      uint64_t hi = 0;
      for (const auto& [type, count] : types_) {
        if (role.vector && type != GgmlType::kF32) continue;
        Result<uint64_t> one = ggml_tensor_bytes(type, role.ne);
        if (!one) continue;
        const uint64_t all = (CheckedBytes(*one) * role.members.size()).saturated();
        lo = std::min(lo, all);
        hi = std::max(hi, all);
      }
      least_[r] = (CheckedBytes(lo == UINT64_MAX ? 0 : lo) + least_[r + 1]).saturated();
      most_[r] = (CheckedBytes(hi) + most_[r + 1]).saturated();
      vectors_[r] = vectors_[r + 1] + (role.vector ? role.members.size() : 0);
    }
  }

  // Whether roles r.. can still complete an assignment from `bytes`: their
  // bytes can reach the printed size's band, and the F32 tensors left
  // cover their 1-D tensors.
  bool reachable(size_t r, uint64_t bytes) const {
    const uint64_t low = (CheckedBytes(bytes) + least_[r]).saturated();
    const uint64_t high = (CheckedBytes(bytes) + most_[r] + size_.band).saturated();
    if (low > size_.value + size_.band || high < size_.value) return false;
    for (const auto& [type, left] : types_) {
      if (type == GgmlType::kF32) return left >= vectors_[r];
    }
    return vectors_[r] == 0;
  }

  bool visit(size_t r, uint64_t bytes) {
    if (++steps_ > kSearchBudget) return false;
    if (!reachable(r, bytes)) return true;
    if (r == roles_.size()) return settle(bytes);
    const Role& role = roles_[r];
    for (size_t t = 0; t < types_.size(); ++t) {
      auto& [type, left] = types_[t];
      if (left < role.members.size() || (role.vector && type != GgmlType::kF32)) continue;
      Result<uint64_t> one = ggml_tensor_bytes(type, role.ne);
      if (!one) continue;  // a row the type's blocks do not divide
      const CheckedBytes all = CheckedBytes(*one) * role.members.size() + bytes;
      if (!all.value()) continue;
      left -= role.members.size();
      chosen_[r] = type;
      const bool within = visit(r + 1, *all.value());
      left += role.members.size();
      if (!within) return false;
    }
    return true;
  }

  bool settle(uint64_t bytes) {
    const uint64_t off = bytes > size_.value ? bytes - size_.value : size_.value - bytes;
    if (off > size_.band) return true;
    if (std::any_of(types_.begin(), types_.end(), [](const auto& t) { return t.second != 0; })) return true;
    std::vector<SafetensorsTensor> typed(tensors_.size());
    for (size_t r = 0; r < roles_.size(); ++r) {
      const std::string name(ggml_type_traits(chosen_[r]).name);
      for (size_t i : roles_[r].members) {
        const llamacpp::ConvertedTensor& t = tensors_[i];
        typed[i] = SafetensorsTensor{t.name, name, std::vector<uint64_t>(t.ne.rbegin(), t.ne.rend()),
                                     *ggml_tensor_bytes(chosen_[r], t.ne)};
      }
    }
    if (fallback_ != nullptr) {
      const RepackCounts counts = llamacpp_repack_counts(typed, blocks_, cpu_);
      if (counts.loaded - counts.repacked != fallback_->count) return true;
      const auto named = std::find_if(typed.begin(), typed.end(),
                                      [&](const SafetensorsTensor& t) { return t.name == fallback_->tensor; });
      if (named != typed.end() && named->dtype != fallback_->type) return true;
    }
    if (Result<uint64_t> repack = llamacpp_repack_bytes(typed, blocks_, cpu_)) repacked_.insert(*repack);
    return true;
  }

  const std::vector<llamacpp::ConvertedTensor>& tensors_;
  std::vector<Role> roles_;
  std::vector<std::pair<GgmlType, uint64_t>> types_;
  ScaledValue size_;
  uint64_t blocks_;
  RepackKernels cpu_;
  const RepackFallback* fallback_;
  std::vector<GgmlType> chosen_;
  std::vector<uint64_t> least_;    // bound_rest
  std::vector<uint64_t> most_;     // bound_rest
  std::vector<uint64_t> vectors_;  // bound_rest
  std::set<uint64_t> repacked_;
  uint64_t steps_ = 0;
};

}  // namespace

std::optional<uint64_t> repack_of_every_assignment(const Model& rebuilt, const LogModel& dump, RepackKernels cpu,
                                                   const RepackFallback* fallback, std::set<uint64_t>* candidates) {
  if (!dump.file_bytes || dump.tensor_types.empty()) return std::nullopt;
  Result<ConvertedFrom> from = converted_from(dump);
  if (!from) return std::nullopt;
  TypeCounts printed;
  uint64_t total = 0;
  for (const auto& [name, n] : dump.tensor_types) {
    printed[name] += n;
    total += n;
  }
  std::optional<std::vector<std::pair<GgmlType, uint64_t>>> types = printed_types(printed);
  if (!types) return std::nullopt;
  std::set<uint64_t> repacked;
  std::set<std::vector<std::string>> tried;  // lists already searched, by name
  for (const Attempt& a : attempts_for(rebuilt, *from)) {
    const Candidate c = candidate_of(rebuilt, *from, a.variant);
    Result<std::vector<llamacpp::ConvertedTensor>> tensors =
        llamacpp::converted_tensors(c.model.spec, from->widths(), &c.hints);
    if (!tensors || tensors->size() != total) continue;
    std::vector<std::string> names;
    for (const auto& t : *tensors) names.push_back(t.name);
    if (!tried.insert(names).second) continue;
    Search search(*tensors, roles_of(*tensors), *types, *dump.file_bytes, c.model.spec.layers.size(), cpu,
                  fallback);
    if (!search.run()) return std::nullopt;
    repacked.insert(search.repacked().begin(), search.repacked().end());
  }
  if (candidates != nullptr) *candidates = repacked;
  if (repacked.size() != 1) return std::nullopt;
  return *repacked.begin();
}

}  // namespace memfit::logs
