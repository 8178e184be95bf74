// The mlxcel profile's recommend-quant hook (engine.h): the same estimate
// for each candidate weight mode (the checkpoint as it is, then MLX
// affine int<bits>), the largest context each allows, and the most
// precise mode that fits and shrinks the checkpoint; each mode's decode
// speed, the fastest that fits named beside it and the modes that fit
// listed fastest first with each step's cost (docs/speed.md, "Plans
// chosen for speed").
//   options: group_size  the MLX quantization group (default 64)
//            bits        the candidate bit widths, 1 to 16 (default [8, 4])
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "engines/mlxcel/commands.h"
#include "engines/mlxcel/speed_plan.h"
#include "engines/shared/report_head.h"
#include "engines/shared/speed_rank.h"
#include "memfit/memory_size.h"
#include "memfit/quant_schemes.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

constexpr size_t kMaxBitWidths = 64;

struct Candidate {
  QuantScheme scheme;
  uint64_t weights_bytes = 0;
  MlxcelEstimate estimate;
  std::optional<uint64_t> max_tokens;
  bool smaller_than_source = true;  // false: re-quantizing would not shrink the checkpoint
  DecodeRank rank;                  // at estimate: the end of max_tokens
};

// The candidate modes the options ask for: as-is first.
Result<std::vector<QuantScheme>> read_schemes(const nlohmann::json& json) {
  request::Fields options(json);
  Result<std::optional<uint64_t>> group = options.count("group_size", 1);
  if (!group) return group.error();
  Result<std::optional<std::vector<uint64_t>>> bits = options.counts("bits", 1, 16, kMaxBitWidths);
  if (!bits) return bits.error();
  const uint64_t group_size = group->value_or(64);
  std::vector<QuantScheme> schemes = {QuantScheme{"as-is", true, 0, group_size}};
  for (uint64_t b : bits->value_or(std::vector<uint64_t>{8, 4})) {
    schemes.push_back(QuantScheme{fmt::format("int{}", b), false, b, group_size});
  }
  return schemes;
}

// One weight mode priced: its weights, the estimate with them and the
// largest context that fits.
Result<Candidate> price_candidate(const QuantScheme& scheme, const PreparedRequest& c) {
  Candidate cand;
  cand.scheme = scheme;
  Result<uint64_t> weights = candidate_weights_bytes(scheme, *c.model, c.model->tensors);
  if (!weights) return weights.error();
  cand.weights_bytes = *weights;
  cand.smaller_than_source = shrinks_checkpoint(scheme, c.model->spec);
  Model variant = *c.model;
  variant.weights.bytes = cand.weights_bytes;
  Result<MlxcelEstimate> e = estimate_mlxcel(variant, c.inputs, c.settings, c.platform, c.budget);
  if (!e) return e.error();
  cand.estimate = std::move(*e);
  cand.rank = rank_decode(mlxcel_speed_plan(c, cand.estimate));
  Result<MlxcelSolution> s = solve_mlxcel(MlxcelSolveFor::kMaxTokens, variant, c.inputs, c.settings, c.platform, c.budget);
  if (!s) return s.error();
  cand.max_tokens = s->value;
  return cand;
}

bool eligible(const Candidate& cand) { return cand.estimate.fits && cand.smaller_than_source; }

// The most precise candidate that fits and shrinks the checkpoint; null
// when none does.
const Candidate* recommended_of(const std::vector<Candidate>& candidates) {
  for (const Candidate& cand : candidates) {
    if (eligible(cand)) return &cand;
  }
  return nullptr;
}

// The candidates that fit and shrink the checkpoint, fastest first
// (speed_rank.h; on one device the fewer bytes a token reads), the
// earlier candidate on a tie.
std::vector<const Candidate*> by_speed(const std::vector<Candidate>& candidates) {
  std::vector<const Candidate*> ranked;
  for (const Candidate& cand : candidates) {
    if (eligible(cand)) ranked.push_back(&cand);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate* a, const Candidate* b) { return decodes_faster(a->rank, b->rank); });
  return ranked;
}

// The first of by_speed when its speed is known; null otherwise.
const Candidate* fastest_of(const std::vector<const Candidate*>& ranked) {
  return !ranked.empty() && ranked.front()->rank.decode_tokens_per_second() ? ranked.front() : nullptr;
}

bool any_speed(const std::vector<Candidate>& candidates) {
  return std::any_of(candidates.begin(), candidates.end(),
                     [](const Candidate& cand) { return cand.rank.decode_tokens_per_second().has_value(); });
}

// ", decode 31 tok/s" (at the end of max_tokens) for a candidate that fits
// and shrinks the checkpoint, when any candidate's speed is known.
std::string decode_text(const Candidate& cand, bool known) {
  return known && eligible(cand) ? ", decode " + decode_rank_text(cand.rank) : "";
}

// The first mode's own line, "int4 (4.29 GiB): decode 38 tok/s"; then each
// step from the mode before: "int4 -> int8 (4.29 GiB -> 8.10 GiB): decode
// 38 -> 21 tok/s".
std::string step_text(const Candidate* from, const Candidate& to) {
  if (from == nullptr) {
    return fmt::format("{} ({}): decode {}", to.scheme.name, format_bytes(to.weights_bytes),
                       decode_rank_text(to.rank));
  }
  return fmt::format("{} -> {} ({} -> {}): {}", from->scheme.name, to.scheme.name, format_bytes(from->weights_bytes),
                     format_bytes(to.weights_bytes), decode_step_text(from->rank, to.rank));
}

// plans_by_speed: mode, decode_tokens_per_second, not_counted, step (null
// for the first), as mlx-lm's.
nlohmann::ordered_json plans_json(const std::vector<const Candidate*>& ranked) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ranked.size(); ++i) {
    list.push_back({{"mode", ranked[i]->scheme.name}});
    list.back().update(decode_rank_json(ranked[i]->rank));
    list.back()["step"] = i > 0 ? nlohmann::ordered_json(step_text(ranked[i - 1], *ranked[i]))
                                : nlohmann::ordered_json(nullptr);
  }
  return list;
}

// "\nBy decode speed at N tokens (docs/speed.md):\n" and a line a mode;
// "" when no candidate's speed is known or none fits.
std::string plans_text(const std::vector<const Candidate*>& ranked, uint64_t max_tokens, bool known) {
  if (!known || ranked.empty()) return "";
  std::string out = fmt::format("\nBy decode speed at {} tokens (docs/speed.md):\n", max_tokens);
  for (size_t i = 0; i < ranked.size(); ++i) {
    out += fmt::format("  {}\n", step_text(i > 0 ? ranked[i - 1] : nullptr, *ranked[i]));
  }
  return out;
}

nlohmann::ordered_json recommend_json(uint64_t group_size, const PreparedRequest& c,
                                      const std::vector<Candidate>& candidates,
                                      const Candidate* recommended) {
  const std::vector<const Candidate*> ranked = by_speed(candidates);
  const Candidate* fastest = fastest_of(ranked);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Candidate& cand : candidates) {
    list.push_back({{"mode", cand.scheme.name},
                    {"weights_bytes", cand.weights_bytes},
                    {"total_bytes", cand.estimate.total_bytes},
                    {"fits", cand.estimate.fits},
                    {"max_tokens_that_fit", cand.max_tokens ? nlohmann::ordered_json(*cand.max_tokens)
                                                            : nlohmann::ordered_json(nullptr)}});
    list.back().update(decode_rank_json(cand.rank));  // decode_tokens_per_second, not_counted
    list.back()["speed"] = speed_json(cand.rank.speed);
  }
  return {{"recommended", recommended ? nlohmann::ordered_json(recommended->scheme.name)
                                      : nlohmann::ordered_json(nullptr)},
          {"fastest", fastest ? nlohmann::ordered_json(fastest->scheme.name) : nlohmann::ordered_json(nullptr)},
          {"candidates", list},
          {"plans_by_speed", plans_json(ranked)},
          {"max_tokens", c.inputs.max_tokens},
          {"batch", c.inputs.batch},
          {"kv_cache_mode", to_string(c.inputs.kv_element)},
          {"group_size", group_size},
          {"budget_bytes", c.budget.budget_bytes},
          {"warnings", warning_texts(c.warnings)}};
}

std::string recommend_text(const std::string& model, const PreparedRequest& c,
                           const std::vector<Candidate>& candidates, const Candidate* recommended) {
  const bool known = any_speed(candidates);
  const std::vector<const Candidate*> ranked = by_speed(candidates);
  std::string out = fmt::format("{} at {} tokens, batch {}, {} KV; budget {} ({})\n\n", model,
                                c.inputs.max_tokens, c.inputs.batch, to_string(c.inputs.kv_element),
                                format_bytes(c.budget.budget_bytes), to_string(c.budget.source));
  out += fmt::format("  {:<8}{:>12}{:>12}  {:<13}{}\n", "mode", "weights", "total", "verdict",
                     known ? "largest context that fits, decode at the end of the context" : "largest context that fits");
  for (const Candidate& cand : candidates) {
    out += fmt::format("  {:<8}{:>12}{:>12}  {:<13}{}{}\n", cand.scheme.name,
                       format_bytes(cand.weights_bytes), format_bytes(cand.estimate.total_bytes),
                       cand.estimate.fits ? "FITS" : "DOES NOT FIT",
                       cand.max_tokens ? fmt::format("{} tokens", *cand.max_tokens) : "none",
                       decode_text(cand, known));
  }
  out += plans_text(ranked, c.inputs.max_tokens, known);
  out += recommended ? fmt::format("\nRecommended: {}{}\n", recommended->scheme.name, decode_text(*recommended, known))
                     : "\nRecommended: none of these fits\n";
  if (const Candidate* fastest = fastest_of(ranked)) {
    out += fmt::format("Fastest: {}{}\n", fastest->scheme.name, decode_text(*fastest, true));
  }
  return out;
}

}  // namespace

Warning no_headers_warning() {
  return Warning{WarningKind::kModel,
                 "no *.safetensors headers to read: quantized sizes are estimated from the "
                 "config's parameter count"};
}

Result<CommandAnswer> MlxcelCommands::recommend_quant(const CommandQuery& query,
                                                      PreparedRequest c) const {
  Result<std::vector<QuantScheme>> schemes = read_schemes(query.options);
  if (!schemes) return schemes.error();
  if (c.model->tensors.empty()) c.warnings.push_back(no_headers_warning());
  std::vector<Candidate> candidates;
  for (const QuantScheme& scheme : *schemes) {
    Result<Candidate> cand = price_candidate(scheme, c);
    if (!cand) return cand.error().within(quote_untrusted(query.request.model));
    candidates.push_back(std::move(*cand));
  }
  const Candidate* recommended = recommended_of(candidates);
  CommandAnswer answer;
  answer.json = recommend_json(schemes->front().group_size, c, candidates, recommended);
  answer.text = recommend_text(query.request.model, c, candidates, recommended);
  answer.warnings = std::move(c.warnings);
  return answer;
}

}  // namespace memfit::engines
