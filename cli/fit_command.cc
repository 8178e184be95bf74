// memfit fit --solve max-tokens|batch|slots: the largest value that fits
// the budget, for each KV width, with the full report at the answer for
// the width asked.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/memory_size.h"
#include "memfit/report.h"
#include "memfit/untrusted_text.h"
#include "memfit/solver.h"

namespace memfit::cli {
namespace {

struct FitOptions {
  EstimateOptions estimate;
  std::string solve;
  uint64_t ctx_size = 0;
};

std::string value_text(const Solution& s) {
  if (!s.value) return "nothing fits";
  return fmt::format("{}{}", *s.value, s.capped ? " (the search ceiling: it fits any value)" : "");
}

nlohmann::ordered_json value_json(const Solution& s) {
  return s.value ? nlohmann::ordered_json(*s.value) : nlohmann::ordered_json(nullptr);
}

void run_fit(const FitOptions& o, int& exit_code) {
  SolveFor what = o.solve == "max-tokens" ? SolveFor::kMaxTokens
                  : o.solve == "batch"    ? SolveFor::kBatch
                                          : SolveFor::kSlots;
  Result<PreparedRequest> c = prepare_estimate(o.estimate);
  if (!c) {
    exit_code = report_error(c.error());
    return;
  }
  print_warnings(c->warnings);
  ServeOptions serve;
  serve.ctx_size = o.ctx_size;
  Result<std::vector<Solution>> solutions =
      solve_each_kv_width(what, *c->model, c->inputs, c->settings, c->platform, c->budget, serve);
  if (!solutions) {
    exit_code = report_error(solutions.error().within(quote_untrusted(o.estimate.model)));
    return;
  }
  nlohmann::ordered_json by_mode = nlohmann::ordered_json::array();
  std::string lines;
  const Solution* asked = nullptr;
  for (size_t i = 0; i < kAllKvElements.size(); ++i) {
    const KvElement element = kAllKvElements[i];
    const Solution& s = (*solutions)[i];
    by_mode.push_back({{"kv_cache_mode", to_string(element)},
                       {"value", value_json(s)},
                       {"capped", s.capped}});
    lines += fmt::format("  {:<6} {}\n", to_string(element), value_text(s));
    if (element == c->inputs.kv_element) asked = &s;
  }
  std::string out;
  if (o.estimate.json) {
    nlohmann::ordered_json j = {{"solve", o.solve},
                                {"value", value_json(*asked)},
                                {"kv_cache_mode", to_string(c->inputs.kv_element)},
                                {"capped", asked->capped},
                                {"budget_bytes", c->budget.budget_bytes},
                                {"by_kv_mode", by_mode},
                                {"warnings", warnings_json(c->warnings)}};
    j["report"] = asked->estimate
                      ? estimate_to_json(*c->model, *asked->estimate, c->budget, c->warnings)
                      : nlohmann::ordered_json(nullptr);
    out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    out = fmt::format("Largest {} that fits {} ({}):\n{}", o.solve,
                      format_bytes(c->budget.budget_bytes), to_string(c->budget.source), lines);
    if (asked->estimate) {
      out += "\n" + render_estimate_text(*c->model, *asked->estimate, c->budget);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
}

}  // namespace

void add_fit_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* fit = app.add_subcommand("fit", "solve for the largest context, batch or slot count that fits");
  add_model_options(*fit, options->estimate);
  add_request_options(*fit, options->estimate);
  fit->add_option("--solve", options->solve, "max-tokens, batch or slots")
      ->required()
      ->check(CLI::IsMember({"max-tokens", "batch", "slots"}));
  fit->add_option("--ctx-size", options->ctx_size, "slots only: total context split among slots (0 = 8192 per slot)");
  fit->callback([options, &exit_code] { run_fit(*options, exit_code); });
}

}  // namespace memfit::cli
