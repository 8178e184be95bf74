// The search for llama-quantize's options that give a file's counts
// (engines/llamacpp/quantize_options.h).
//
// Design: the tensors fall into roles (a tensor outside the blocks, or
// one name across the blocks); each role has a few options (its rules'
// types, or one override type the file holds). An option is a vector of
// tensors per type and a byte count, so an assignment holds the file's
// counts exactly when the chosen options' vectors sum to them. A
// depth-first walk over the roles, largest first, prunes any partial
// assignment that needs more tensors of a type than are left, or whose
// bytes can no longer land within the band (each remaining role's
// smallest and largest option bound what is still to come).
#include "engines/llamacpp/quantize_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

// Partial assignments the walk may visit before it gives up: a file whose
// counts leave this many open is not one the counts identify.
constexpr uint64_t kNodeBudget = 2'000'000;

// The role of a tensor: its name outside the blocks, the name after
// "blk.N." within one ("blk.7.attn_q.weight" -> "attn_q.weight").
std::string role_of(std::string_view name) {
  if (!name.starts_with("blk.")) return std::string(name);
  const size_t dot = name.find('.', 4);
  return std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
}

// One way to type a role's tensors: the flag that asks for it ("" for the
// rules' types), a type per tensor of the role, tensors per type (the
// index of QuantizedFileTotals::counts) and bytes.
struct Option {
  std::string flag;
  std::vector<GgmlType> types;
  std::vector<uint64_t> counts;
  uint64_t bytes = 0;
};

struct Role {
  std::string name;
  std::vector<size_t> tensors;  // indices into RulesRebuild::tensors
  std::vector<Option> options;
};

// Which position of QuantizedFileTotals::counts a type has; nullopt for a
// type the file does not hold.
class TypeIndex {
 public:
  explicit TypeIndex(const QuantizedFileTotals& totals) {
    for (size_t i = 0; i < totals.counts.size(); ++i) index_[totals.counts[i].first] = i;
  }
  std::optional<size_t> of(GgmlType t) const {
    auto it = index_.find(t);
    return it == index_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
  size_t size() const { return index_.size(); }

 private:
  std::map<GgmlType, size_t> index_;
};

// The option typing `role` as `base` does, but its quantizable tensors at
// `override_type` when given (leaving those whose rules fell back when
// `keep_fallbacks`); nullopt when a type is not in the file or a row is
// not whole blocks of its type (llama-quantize would refuse it).
std::optional<Option> option_of(const RulesRebuild& r, const Role& role, std::span<const GgmlType> base,
                                std::optional<GgmlType> override_type, bool keep_fallbacks,
                                const TypeIndex& index, std::string flag) {
  Option o;
  o.flag = std::move(flag);
  o.counts.assign(index.size(), 0);
  CheckedBytes bytes = 0;
  for (size_t i : role.tensors) {
    GgmlType t = base[i];
    const TypeChoice& c = r.choices[i];
    if (override_type && c.quantizable && !(keep_fallbacks && c.fell_back)) t = *override_type;
    const std::optional<size_t> at = index.of(t);
    if (!at) return std::nullopt;
    Result<uint64_t> b = quantized_tensor_bytes(t, r.tensors[i].ne, r.rules);
    if (!b) return std::nullopt;
    ++o.counts[*at];
    bytes += *b;
    o.types.push_back(t);
  }
  if (!bytes.value()) return std::nullopt;
  o.bytes = *bytes.value();
  return o;
}

constexpr std::string_view kKeptAsConverted = " as converted";

// The type the converter already wrote every tensor of `role` in, where
// it wrote them quantized (gpt-oss's MXFP4 experts: convert_hf_to_gguf.py,
// GptOssModel.repack_mxfp4, which adds them to the file as MXFP4 whatever
// --outtype says); nullopt otherwise.
std::optional<GgmlType> converted_quantized_type(const RulesRebuild& r, const Role& role) {
  if (role.tensors.empty()) return std::nullopt;
  const GgmlType first = r.tensors[role.tensors.front()].type;
  if (is_float_type(first)) return std::nullopt;
  const bool all = std::all_of(role.tensors.begin(), role.tensors.end(),
                               [&](size_t i) { return r.tensors[i].type == first; });
  return all ? std::optional<GgmlType>(first) : std::nullopt;
}

// A role the converter wrote quantized, kept in that type: the gpt-oss
// quants published under K-quant names keep every expert in MXFP4 ("All
// quants keep the feed forward networks at mxfp4", bartowski's
// openai_gpt-oss-20b-GGUF card, llama.cpp b6096; Unsloth's gpt-oss-20b-GGUF
// likewise), although llama-quantize's own rules (llama-quant.cpp,
// llama_tensor_get_type) give an expert of 2880 columns its fallback type
// (Q4_K -> Q5_0, Q6_K -> Q8_0) and --tensor-type does not override a
// fallback. Added after the role's other options unless one already types
// it so.
void add_kept_as_converted(const RulesRebuild& r, std::span<const GgmlType> base, const TypeIndex& index,
                           Role& role) {
  const std::optional<GgmlType> kept = converted_quantized_type(r, role);
  if (!kept) return;
  const std::string flag = fmt::format("{} kept {}{}",
                                       std::string_view(role.name).substr(0, role.name.rfind(".weight")),
                                       ggml_type_traits(*kept).name, kKeptAsConverted);
  std::optional<Option> o = option_of(r, role, base, *kept, false, index, flag);
  if (!o) return;
  const bool same = std::any_of(role.options.begin(), role.options.end(),
                                [&](const Option& other) { return other.types == o->types; });
  if (!same) role.options.push_back(std::move(*o));
}

// The roles of `r` typed from `base`, each with its options: the base
// itself, then one override per type the file holds where llama-quantize
// takes one (token_embd and output always; the others only by
// --tensor-type, when `tensor_type_applies`).
std::vector<Role> roles_of(const RulesRebuild& r, std::span<const GgmlType> base,
                           bool tensor_type_applies, const QuantizedFileTotals& totals,
                           const TypeIndex& index, bool& possible) {
  std::vector<Role> roles;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    const std::string name = role_of(r.tensors[i].name);
    auto [it, added] = by_name.try_emplace(name, roles.size());
    if (added) roles.push_back(Role{name, {}, {}});
    roles[it->second].tensors.push_back(i);
  }
  possible = true;
  for (Role& role : roles) {
    const bool quantizable = std::any_of(role.tensors.begin(), role.tensors.end(),
                                         [&](size_t i) { return r.choices[i].quantizable; });
    std::optional<Option> own = option_of(r, role, base, std::nullopt, false, index, "");
    if (own) role.options.push_back(std::move(*own));
    std::string flag;
    bool keep_fallbacks = false;
    if (role.name == "token_embd.weight") {
      flag = "--token-embedding-type";
    } else if (role.name == "output.weight") {
      flag = "--output-tensor-type";
    } else if (tensor_type_applies) {
      flag = "--tensor-type";
      keep_fallbacks = true;
    }
    if (quantizable && !flag.empty()) {
      for (const auto& [type, n] : totals.counts) {
        const std::string_view type_name = ggml_type_traits(type).name;
        const std::string option =
            flag == "--tensor-type"
                ? fmt::format("{} {}={}", flag, std::string_view(role.name).substr(0, role.name.rfind(".weight")),
                              type_name)
                : fmt::format("{} {}", flag, type_name);
        std::optional<Option> o = option_of(r, role, base, type, keep_fallbacks, index, option);
        if (!o) continue;
        // An override the base already gives is the base.
        const bool same = !role.options.empty() && role.options.front().types == o->types;
        if (!same) role.options.push_back(std::move(*o));
      }
    }
    if (quantizable) add_kept_as_converted(r, base, index, role);
    if (role.options.empty()) possible = false;
  }
  // Largest roles first: their counts prune most.
  std::stable_sort(roles.begin(), roles.end(),
                   [](const Role& a, const Role& b) { return a.tensors.size() > b.tensors.size(); });
  return roles;
}

// The depth-first walk over the roles' options.
class Walk {
 public:
  Walk(const std::vector<Role>& roles, std::vector<uint64_t> left, uint64_t lo, uint64_t hi)
      : roles_(roles), left_(std::move(left)), lo_(lo), hi_(hi), pick_(roles.size(), 0) {
    // Bytes the roles from k on add at least and at most (saturating).
    min_after_.assign(roles.size() + 1, 0);
    max_after_.assign(roles.size() + 1, 0);
    for (size_t k = roles.size(); k-- > 0;) {
      uint64_t lo_k = std::numeric_limits<uint64_t>::max(), hi_k = 0;
      for (const Option& o : roles[k].options) {
        lo_k = std::min(lo_k, o.bytes);
        hi_k = std::max(hi_k, o.bytes);
      }
      min_after_[k] = saturating_add(min_after_[k + 1], lo_k);
      max_after_[k] = saturating_add(max_after_[k + 1], hi_k);
    }
  }

  // False when the budget ran out or more than kMaxOptionsAssignments held.
  bool run() {
    step(0, 0);
    return !over_;
  }
  const std::vector<std::vector<size_t>>& found() const { return found_; }

 private:
  static uint64_t saturating_add(uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
  }

  void step(size_t k, uint64_t bytes) {
    if (over_) return;
    if (++nodes_ > kNodeBudget) {
      over_ = true;
      return;
    }
    if (saturating_add(bytes, min_after_[k]) > hi_ || saturating_add(bytes, max_after_[k]) < lo_) return;
    if (k == roles_.size()) {
      if (std::all_of(left_.begin(), left_.end(), [](uint64_t n) { return n == 0; })) {
        if (found_.size() == kMaxOptionsAssignments) {
          over_ = true;
          return;
        }
        found_.push_back(pick_);
      }
      return;
    }
    const std::vector<Option>& options = roles_[k].options;
    for (size_t j = 0; j < options.size(); ++j) {
      const Option& o = options[j];
      bool fits = true;
      for (size_t t = 0; t < left_.size() && fits; ++t) fits = o.counts[t] <= left_[t];
      if (!fits) continue;
      for (size_t t = 0; t < left_.size(); ++t) left_[t] -= o.counts[t];
      pick_[k] = j;
      step(k + 1, saturating_add(bytes, o.bytes));
      for (size_t t = 0; t < left_.size(); ++t) left_[t] += o.counts[t];
      if (over_) return;
    }
  }

  const std::vector<Role>& roles_;
  std::vector<uint64_t> left_;
  uint64_t lo_, hi_;
  std::vector<size_t> pick_;
  std::vector<uint64_t> min_after_, max_after_;
  std::vector<std::vector<size_t>> found_;
  uint64_t nodes_ = 0;
  bool over_ = false;
};

// The assignments one base (the rules' types, or --pure's) gives.
Status search_from(const RulesRebuild& r, std::span<const GgmlType> base, bool pure,
                   const QuantizedFileTotals& totals, std::vector<OptionsAssignment>& out) {
  const TypeIndex index(totals);
  const bool tensor_type_applies = !pure && !is_float_type(r.default_type);
  bool possible = true;
  const std::vector<Role> roles = roles_of(r, base, tensor_type_applies, totals, index, possible);
  if (!possible) return Status::Ok();
  std::vector<uint64_t> left;
  for (const auto& [type, n] : totals.counts) left.push_back(n);
  const uint64_t lo = totals.bytes > totals.band_bytes ? totals.bytes - totals.band_bytes : 0;
  const uint64_t hi = totals.bytes > std::numeric_limits<uint64_t>::max() - totals.band_bytes
                          ? std::numeric_limits<uint64_t>::max()
                          : totals.bytes + totals.band_bytes;
  Walk walk(roles, std::move(left), lo, hi);
  const bool whole = walk.run();
  for (const std::vector<size_t>& pick : walk.found()) {
    OptionsAssignment a;
    a.types.assign(r.tensors.size(), GgmlType::kF32);
    if (pure) a.options.push_back("--pure");
    CheckedBytes bytes = 0;
    for (size_t k = 0; k < roles.size(); ++k) {
      const Option& o = roles[k].options[pick[k]];
      for (size_t j = 0; j < roles[k].tensors.size(); ++j) a.types[roles[k].tensors[j]] = o.types[j];
      if (!o.flag.empty()) a.options.push_back(o.flag);
      bytes += o.bytes;
    }
    a.bytes = bytes.value().value_or(0);
    std::sort(a.options.begin(), a.options.end());
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&](const OptionsAssignment& b) { return b.types == a.types; });
    if (!seen) out.push_back(std::move(a));
  }
  if (!whole || out.size() > kMaxOptionsAssignments) {
    return Error(fmt::format("more than {} assignments of llama-quantize's options, or more than {} "
                             "partial ones, hold the file's counts",
                             kMaxOptionsAssignments, kNodeBudget));
  }
  return Status::Ok();
}

}  // namespace

bool is_kept_as_converted(std::string_view option) { return option.ends_with(kKeptAsConverted); }

bool is_float_type(GgmlType t) { return t == GgmlType::kF32 || t == GgmlType::kF16 || t == GgmlType::kBF16; }

Result<std::vector<OptionsAssignment>> search_quantize_options(const RulesRebuild& rebuild,
                                                               const QuantizedFileTotals& totals) {
  if (rebuild.rule_types.size() != rebuild.tensors.size() || rebuild.choices.size() != rebuild.tensors.size()) {
    return Error("the rules' types do not cover the tensors");
  }
  std::vector<OptionsAssignment> out;
  Status s = search_from(rebuild, rebuild.rule_types, false, totals, out);
  if (!s.ok()) return s.error();
  if (!is_float_type(rebuild.default_type)) {
    // --pure: every quantizable tensor at the default type.
    std::vector<GgmlType> pure(rebuild.rule_types.begin(), rebuild.rule_types.end());
    for (size_t i = 0; i < pure.size(); ++i) {
      if (rebuild.choices[i].quantizable) pure[i] = rebuild.default_type;
    }
    s = search_from(rebuild, pure, true, totals, out);
    if (!s.ok()) return s.error();
  }
  return out;
}

}  // namespace memfit::llamacpp
