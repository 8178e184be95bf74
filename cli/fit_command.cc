// memfit fit --solve ...: the largest value that fits the budget, for each
// KV width (mlxcel: max-tokens, batch or slots) or cache type (llamacpp:
// ctx-size or parallel, llamacpp_fit.h), or the largest --max-model-len or
// --max-num-seqs vLLM starts with (vllm: vllm_fit.h), with the full report
// at the answer.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/memory_size.h"
#include "memfit/report.h"
#include "memfit/untrusted_text.h"
#include "memfit/solver.h"
#include "memfit/vllm_fit.h"

namespace memfit::cli {
namespace {

struct FitOptions {
  EstimateOptions estimate;
  std::string solve;
};

std::string value_text(const Solution& s) {
  if (!s.value) return "nothing fits";
  return fmt::format("{}{}", *s.value, s.capped ? " (the search ceiling: it fits any value)" : "");
}

nlohmann::ordered_json value_json(const Solution& s) {
  return s.value ? nlohmann::ordered_json(*s.value) : nlohmann::ordered_json(nullptr);
}

void run_llamacpp_fit(const FitOptions& o, const EstimateRequest& request,
                      const PreparedRequest& c, int& exit_code) {
  Result<LlamaCppSolveFor> what = parse_llamacpp_solve(o.solve);
  if (!what) {
    exit_code = report_error(what.error());
    return;
  }
  Result<LlamaCppFit> fit = fit_llamacpp(*what, request, c);
  if (!fit) {
    exit_code = report_error(fit.error());
    return;
  }
  print_warnings(c.warnings);
  const std::string out =
      o.estimate.json ? llamacpp_fit_to_json(c, *fit).dump(2, ' ', false,
                                                            nlohmann::json::error_handler_t::replace) +
                            "\n"
                      : render_llamacpp_fit_text(c, *fit);
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
}

void run_vllm_fit(const FitOptions& o, const EstimateRequest& request, const PreparedRequest& c,
                  int& exit_code) {
  Result<VllmSolveFor> what = parse_vllm_solve(o.solve);
  if (!what) {
    exit_code = report_error(what.error());
    return;
  }
  Result<VllmFit> fit = fit_vllm(*what, request, c);
  if (!fit) {
    exit_code = report_error(fit.error());
    return;
  }
  print_warnings(c.warnings);
  const std::string out =
      o.estimate.json ? vllm_fit_to_json(c, *fit).dump(2, ' ', false,
                                                        nlohmann::json::error_handler_t::replace) +
                            "\n"
                      : render_vllm_fit_text(c, *fit);
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
}

void run_mlxcel_fit(const FitOptions& o, const PreparedRequest& c, int& exit_code) {
  if (o.solve == "max-model-len" || o.solve == "max-num-seqs") {
    exit_code = report_error(Error::usage(
        "solve", o.solve + " is a vllm solve; mlxcel solves max-tokens, batch or slots"));
    return;
  }
  if (o.solve == "ctx-size" || o.solve == "parallel" || o.solve == "gpu-layers" ||
      o.solve == "n-cpu-moe") {
    exit_code = report_error(Error::usage(
        "solve", o.solve + " is a llamacpp solve; mlxcel solves max-tokens, batch or slots"));
    return;
  }
  SolveFor what = o.solve == "max-tokens" ? SolveFor::kMaxTokens
                  : o.solve == "batch"    ? SolveFor::kBatch
                                          : SolveFor::kSlots;
  print_warnings(c.warnings);
  ServeOptions serve;
  serve.ctx_size = o.estimate.ctx_size.value_or(0);
  Result<std::vector<Solution>> solutions =
      solve_each_kv_width(what, *c.model, c.inputs, c.settings, c.platform, c.budget, serve);
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
    if (element == c.inputs.kv_element) asked = &s;
  }
  std::string out;
  if (o.estimate.json) {
    nlohmann::ordered_json j = {{"solve", o.solve},
                                {"value", value_json(*asked)},
                                {"kv_cache_mode", to_string(c.inputs.kv_element)},
                                {"capped", asked->capped},
                                {"budget_bytes", c.budget.budget_bytes},
                                {"by_kv_mode", by_mode},
                                {"warnings", warnings_json(c.warnings)}};
    j["report"] = asked->estimate
                      ? estimate_to_json(*c.model, *asked->estimate, c.budget, c.warnings)
                      : nlohmann::ordered_json(nullptr);
    out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    out = fmt::format("Largest {} that fits {} ({}):\n{}", o.solve,
                      format_bytes(c.budget.budget_bytes), to_string(c.budget.source), lines);
    if (asked->estimate) {
      out += "\n" + render_estimate_text(*c.model, *asked->estimate, c.budget);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
}

// -c/--ctx-size is one flag for both engines: the total context that
// --solve slots splits under mlxcel, llama.cpp's --ctx-size under
// llamacpp. prepare() refuses a llama.cpp field under mlxcel, and the
// engine is known only once the model is open, so the request is prepared
// without it and a llamacpp request takes it after.
void run_fit(const FitOptions& o, int& exit_code) {
  Result<EstimateRequest> request = to_request(o.estimate);
  if (!request) {
    exit_code = report_error(request.error());
    return;
  }
  EstimateRequest without_ctx = *request;
  without_ctx.llamacpp.ctx_size.reset();
  LocalRequestContext context = request_context(o.estimate);
  Result<PreparedRequest> c = prepare(without_ctx, context);
  if (!c) {
    exit_code = report_error(c.error());
    return;
  }
  if (!c->engine->supports(EngineCommand::kFit)) {
    exit_code = report_error(EngineRegistry::instance().unsupported(*c->engine, EngineCommand::kFit));
    return;
  }
  if (c->engine->name() == "vllm") {
    // The request was prepared without -c: refuse it as prepare() would.
    if (request->llamacpp.ctx_size) {
      exit_code = report_error(EngineRegistry::field_of_other_engine(
          "ctx_size", *EngineRegistry::instance().find("llamacpp")));
      return;
    }
    run_vllm_fit(o, *request, *c, exit_code);
    return;
  }
  // Tensor parallelism is a vLLM setting here: the other engines' solvers
  // answer for one device.
  if (wants_parallel_plan(request->parallel)) {
    exit_code = report_error(Error::usage(
        "fit solves for one device under mlxcel and llamacpp; a per-rank plan is inspect's"));
    return;
  }
  if (c->engine->name() == "llamacpp") {
    c->llamacpp_settings.ctx_size = request->llamacpp.ctx_size.value_or(c->llamacpp_settings.ctx_size);
    run_llamacpp_fit(o, *request, *c, exit_code);
    return;
  }
  run_mlxcel_fit(o, *c, exit_code);
}

}  // namespace

void add_fit_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* fit = app.add_subcommand(
      "fit", "solve for the largest context, batch or slot count that fits (vllm: the largest "
             "--max-model-len or --max-num-seqs it starts with)");
  add_model_options(*fit, options->estimate);
  add_request_options(*fit, options->estimate);
  add_llamacpp_options(*fit, options->estimate);
  add_parallel_options(*fit, options->estimate);
  add_vllm_options(*fit, options->estimate);
  fit->add_option("--solve", options->solve,
                  "mlxcel: max-tokens, batch or slots; llamacpp: ctx-size (max-tokens), "
                  "parallel (slots), gpu-layers or n-cpu-moe; vllm: max-model-len (max-tokens) "
                  "or max-num-seqs (batch)")
      ->required()
      ->check(CLI::IsMember({"max-tokens", "batch", "slots", "ctx-size", "parallel", "gpu-layers",
                             "n-cpu-moe", "max-model-len", "max-num-seqs"}));
  fit->get_option("--ctx-size")
      ->description("total context: split among the slots (mlxcel --solve slots, 0 = 8192 per "
                    "slot) or llama.cpp's (llamacpp --solve parallel, 0 = the training context)");
  fit->callback([options, &exit_code] { run_fit(*options, exit_code); });
}

}  // namespace memfit::cli
