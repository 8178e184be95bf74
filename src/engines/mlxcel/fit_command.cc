// The mlxcel profile's fit hook (engine.h) for memfit fit: the largest
// max-tokens, batch or slot count that fits for each KV width
// (solve_mlxcel_each_kv_width, mlxcel_solver.h), with the full report at the request's
// own width; each width's row with its decode speed at the end of its
// context, the report with its speed line (docs/speed.md). POST /v1/fit is
// answered by fit_curve.cc.
//   options: solve     max-tokens (the default), batch or slots
//            ctx_size  the total context --solve slots splits (0: 8192
//                      per slot)
#include <fmt/format.h>

#include "engines/mlxcel/commands.h"
#include "engines/mlxcel/speed_plan.h"
#include "engines/shared/speed_rank.h"
#include "engines/shared/report_head.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

std::string value_text(const MlxcelSolution& s) {
  if (!s.value) return "nothing fits";
  return fmt::format("{}{}", *s.value, s.capped ? " (the search ceiling: it fits any value)" : "");
}

nlohmann::ordered_json value_json(const MlxcelSolution& s) {
  return s.value ? nlohmann::ordered_json(*s.value) : nlohmann::ordered_json(nullptr);
}

// ", decode 31 tok/s at 8192 tokens" when the row fits and its speed is
// known; "" otherwise.
std::string decode_text(const std::optional<DecodeRank>& rank) {
  if (!rank || !rank->decode_tokens_per_second()) return "";
  return fmt::format(", decode {} at {} tokens", decode_rank_text(*rank),
                     rank->known_speed.context_tokens);
}

// The answer at each KV width; the request's own is `asked`.
CommandAnswer fit_answer(std::string_view solve, const PreparedRequest& c,
                         const std::vector<MlxcelSolution>& solutions) {
  nlohmann::ordered_json by_mode = nlohmann::ordered_json::array();
  std::string lines;
  const MlxcelSolution* asked = &solutions.front();
  for (size_t i = 0; i < kAllKvElements.size(); ++i) {
    const KvElement element = kAllKvElements[i];
    const MlxcelSolution& s = solutions[i];
    std::optional<DecodeRank> rank;
    if (s.value && s.estimate) rank = rank_decode(mlxcel_speed_plan(c, *s.estimate));
    by_mode.push_back({{"kv_cache_mode", to_string(element)},
                       {"value", value_json(s)},
                       {"capped", s.capped},
                       {"speed", rank ? speed_json(rank->speed) : nlohmann::ordered_json(nullptr)}});
    lines += fmt::format("  {:<6} {}{}\n", to_string(element), value_text(s), decode_text(rank));
    if (element == c.inputs.kv_element) asked = &s;
  }
  CommandAnswer answer;
  answer.json = {{"solve", solve},
                 {"value", value_json(*asked)},
                 {"kv_cache_mode", to_string(c.inputs.kv_element)},
                 {"capped", asked->capped},
                 {"budget_bytes", c.budget.budget_bytes},
                 {"by_kv_mode", by_mode},
                 {"warnings", warning_texts(c.warnings)}};
  answer.json["report"] = asked->estimate
                              ? mlxcel_estimate_to_json(*c.model, *asked->estimate, c.budget, c.warnings)
                              : nlohmann::ordered_json(nullptr);
  if (asked->estimate) {
    answer.json["report"]["speed"] = speed_json(estimate_plan_speed(mlxcel_speed_plan(c, *asked->estimate)));
  }
  answer.text = fmt::format("Largest {} that fits {} ({}):\n{}", solve,
                            format_bytes(c.budget.budget_bytes), to_string(c.budget.source), lines);
  if (asked->estimate) {
    answer.text += "\n" + render_mlxcel_text(*c.model, *asked->estimate, c.budget) + "\n" +
                   speed_text(estimate_plan_speed(mlxcel_speed_plan(c, *asked->estimate)));
  }
  answer.warnings = c.warnings;
  return answer;
}

}  // namespace

Result<MlxcelSolveFor> parse_mlxcel_solve(std::string_view text) {
  if (text == "max-tokens") return MlxcelSolveFor::kMaxTokens;
  if (text == "batch") return MlxcelSolveFor::kBatch;
  if (text == "slots") return MlxcelSolveFor::kSlots;
  const std::string_view what = "mlxcel solves max-tokens, batch or slots";
  if (text == "max-model-len" || text == "max-num-seqs") {
    return Error::usage("solve", fmt::format("{} is a vllm solve; {}", text, what));
  }
  if (text == "ctx-size" || text == "parallel" || text == "gpu-layers" || text == "n-cpu-moe") {
    return Error::usage("solve", fmt::format("{} is a llamacpp solve; {}", text, what));
  }
  return Error::usage("solve", fmt::format("{}: {}", quote_untrusted(text), what));
}

Result<CommandAnswer> MlxcelCommands::fit(const CommandQuery& query, PreparedRequest c) const {
  if (query.front == CommandFront::kService) return mlxcel_fit_curve(query, c);
  // Tensor parallelism is a vLLM setting here: this solver answers for
  // one device (llamacpp's prepare() refuses it already).
  if (wants_parallel_plan(query.request.parallel)) {
    return Error::usage(
        "fit solves for one device under mlxcel and llamacpp; a per-rank plan is inspect's");
  }
  request::Fields options(query.options);
  Result<std::optional<std::string>> solve = options.string("solve");
  if (!solve) return solve.error();
  const std::string name = solve->value_or("max-tokens");
  Result<MlxcelSolveFor> what = parse_mlxcel_solve(name);
  if (!what) return what.error();
  Result<std::optional<uint64_t>> ctx_size = options.count("ctx_size", 0);
  if (!ctx_size) return ctx_size.error();
  MlxcelServeOptions serve;
  serve.ctx_size = ctx_size->value_or(0);
  Result<std::vector<MlxcelSolution>> solutions =
      solve_mlxcel_each_kv_width(*what, *c.model, c.inputs, c.settings, c.platform, c.budget, serve);
  if (!solutions) return solutions.error().within(quote_untrusted(query.request.model));
  return fit_answer(name, c, *solutions);
}

}  // namespace memfit::engines
