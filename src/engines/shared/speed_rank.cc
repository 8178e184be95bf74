// Plans ranked by decode speed (speed_rank.h): the plan's speed, and the
// same plan without its parts of unknown bandwidth, whose bytes are
// counted instead.
#include "engines/shared/speed_rank.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "memfit/checked_math.h"
#include "memfit/memory_size.h"

namespace memfit {
namespace {

// The bytes a token reads on `part` at the end of the context: its active
// weights (the plan's active share of what it holds) and its KV cache.
uint64_t end_bytes(const SpeedModelShape& shape, const SpeedPlanPart& part) {
  SpeedModelShape held = shape;
  held.weight_bytes = part.weight_bytes;
  return (CheckedBytes(held.active_weight_bytes()) + part.kv_bytes).saturated();
}

// `rank` with its unknown parts moved out of `known` into the counts.
SpeedPlan split_unknown(const SpeedPlan& plan, DecodeRank& rank) {
  SpeedPlan known = plan;
  known.parts.clear();
  for (const SpeedPlanPart& p : plan.parts) {
    if (p.throughput.bandwidth_gb_s > 0) {
      known.parts.push_back(p);
      continue;
    }
    const uint64_t bytes = end_bytes(plan.shape, p);
    if (bytes == 0) continue;
    rank.unknown_bytes = (CheckedBytes(rank.unknown_bytes) + bytes).saturated();
    rank.unknown_devices.push_back(p.device);
  }
  return known;
}

template <typename Estimate>
DecodeRank rank_with(const SpeedPlan& plan, Estimate estimate) {
  DecodeRank rank;
  rank.speed = estimate(plan);
  const SpeedPlan known = split_unknown(plan, rank);
  if (rank.unknown_bytes == 0) {
    rank.known_speed = rank.speed;
  } else if (known.parts.empty()) {
    rank.known_speed.unknown = rank.speed.unknown;
  } else {
    rank.known_speed = estimate(known);
  }
  return rank;
}

// The report's rounding: whole tokens from 10 up, one decimal below.
std::string rate_text(double tokens_per_second) {
  return tokens_per_second >= 10 ? fmt::format("{:.0f}", tokens_per_second)
                                 : fmt::format("{:.1f}", tokens_per_second);
}

bool fully_known(const DecodeRank& rank) {
  return rank.unknown_bytes == 0 && rank.decode_tokens_per_second().has_value();
}

}  // namespace

std::optional<double> DecodeRank::decode_tokens_per_second() const {
  if (!known_speed.unknown.empty() || !known_speed.no_decode.empty()) return std::nullopt;
  return known_speed.decode_end.median;
}

DecodeRank rank_decode(const SpeedPlan& plan) {
  return rank_with(plan, [](const SpeedPlan& p) { return estimate_plan_speed(p); });
}

DecodeRank rank_decode(const SpeedPlan& plan, const EfficiencyTable& decode,
                       const EfficiencyTable& prefill) {
  return rank_with(plan, [&](const SpeedPlan& p) { return estimate_plan_speed(p, decode, prefill); });
}

bool decodes_faster(const DecodeRank& a, const DecodeRank& b) {
  if (a.unknown_bytes != b.unknown_bytes) return a.unknown_bytes < b.unknown_bytes;
  const std::optional<double> ra = a.decode_tokens_per_second();
  const std::optional<double> rb = b.decode_tokens_per_second();
  if (ra && rb) return *ra > *rb;
  return ra.has_value() && !rb.has_value();
}

std::string decode_rank_text(const DecodeRank& rank) {
  const std::optional<double> rate = rank.decode_tokens_per_second();
  if (!rank.known_speed.no_decode.empty()) return fmt::format("none ({})", rank.known_speed.no_decode);
  if (!rate) return fmt::format("unknown: {}", rank.known_speed.unknown);
  if (rank.unknown_bytes == 0) return rate_text(*rate) + " tok/s";
  // The unknown parts' time would only add to the known parts': the rate
  // without them is the most the plan can reach.
  return fmt::format("at most {} tok/s ({}'s {} a token at an unknown bandwidth not counted)",
                     rate_text(*rate), fmt::join(rank.unknown_devices, "+"),
                     format_bytes(rank.unknown_bytes));
}

std::string decode_step_text(const DecodeRank& from, const DecodeRank& to) {
  if (fully_known(from) && fully_known(to)) {
    return fmt::format("decode {} -> {} tok/s", rate_text(*from.decode_tokens_per_second()),
                       rate_text(*to.decode_tokens_per_second()));
  }
  return fmt::format("decode {} -> {}", decode_rank_text(from), decode_rank_text(to));
}

nlohmann::ordered_json decode_rank_json(const DecodeRank& rank) {
  const std::optional<double> rate = rank.decode_tokens_per_second();
  return {{"decode_tokens_per_second", rate ? nlohmann::ordered_json(*rate) : nlohmann::ordered_json(nullptr)},
          {"not_counted", {{"devices", rank.unknown_devices}, {"bytes_per_token", rank.unknown_bytes}}}};
}

}  // namespace memfit
