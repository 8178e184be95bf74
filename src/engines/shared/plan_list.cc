// A solver's list of plans by decode speed (plan_list.h).
#include "engines/shared/plan_list.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

std::string type_name(GgmlType type) { return std::string(ggml_type_traits(type).name); }

// "f16", or "K q8_0 V f16" when the two differ.
std::string cache_label(const PlanSettings& p) {
  if (p.cache_type_k == p.cache_type_v) return type_name(p.cache_type_k);
  return fmt::format("K {} V {}", type_name(p.cache_type_k), type_name(p.cache_type_v));
}

// "A -> B", or "A" when nothing changed.
std::string change(const std::string& from, const std::string& to) {
  return from == to ? to : fmt::format("{} -> {}", from, to);
}

std::string fit_word(const PlanSettings& p) { return p.fits ? "fits" : "does not fit"; }

}  // namespace

std::string first_plan_text(const PlanSettings& plan, const DecodeRank& rank) {
  return fmt::format("{}, KV cache {}{}: {}, decode {}", plan.placement, cache_label(plan),
                     plan.asked ? " (asked)" : "", fit_word(plan), decode_rank_text(rank));
}

std::string plan_step_text(const PlanSettings& from, const DecodeRank& from_rank, const PlanSettings& to,
                           const DecodeRank& to_rank) {
  std::string placement = to.placement;
  if (from.placement != to.placement) {
    // "-ngl 37 -> 36" when only the one number moves.
    placement = from.value_alone && to.value_alone ? fmt::format("{} -> {}", from.placement, to.value)
                                                   : fmt::format("{} -> {}", from.placement, to.placement);
  }
  return fmt::format("{}, KV cache {}: {}, {}", placement, change(cache_label(from), cache_label(to)),
                     fit_word(to), decode_step_text(from_rank, to_rank));
}

Json plan_row_json(const PlanSettings& plan, const DecodeRank& rank, bool first, const std::string& step) {
  Json row = {{"value", plan.value},
              {"n_gpu_layers", plan.n_gpu_layers},
              {"n_cpu_moe", plan.n_cpu_moe},
              {"cache_type_k", type_name(plan.cache_type_k)},
              {"cache_type_v", type_name(plan.cache_type_v)},
              {"asked", plan.asked},
              {"fits", plan.fits}};
  row.update(decode_rank_json(rank));
  row["step"] = first ? Json(nullptr) : Json(step);
  row["speed"] = speed_json(rank.speed);
  return row;
}

std::string plans_text(const std::vector<const DecodeRank*>& ranks, const std::vector<std::string>& steps,
                       uint64_t n_ctx) {
  if (ranks.empty()) return "";
  const bool any_known = std::any_of(ranks.begin(), ranks.end(), [](const DecodeRank* r) {
    return r->decode_tokens_per_second().has_value();
  });
  if (!any_known) return fmt::format("\nPlans by decode speed: {}\n", decode_rank_text(*ranks.front()));
  std::string out = fmt::format("\nPlans by decode speed at {} tokens (docs/speed.md):\n", n_ctx);
  for (const std::string& step : steps) out += fmt::format("  {}\n", step);
  return out;
}

}  // namespace memfit
