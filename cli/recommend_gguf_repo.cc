// memfit recommend-quant -m <GGUF repo>: one row per GGUF model of the
// folder (price_gguf_repo), as a table or --json.
#include "recommend_gguf_repo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "memfit/engine.h"
#include "memfit/environment.h"
#include "memfit/gguf_repo.h"
#include "memfit/hf_cache.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

nlohmann::ordered_json json_answer(const GgufRepoPricing& p) {
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const GgufRepoModel& m : p.models) {
    models.push_back({{"file", m.path},
                      {"quant", m.quant},
                      {"main_type", m.main_type},
                      {"file_count", m.file_count},
                      {"size_bytes", m.size_bytes},
                      {"model_bytes", m.estimate.model_bytes},
                      {"context_bytes", m.estimate.context_bytes},
                      {"compute_bytes", m.estimate.compute_bytes},
                      {"total_bytes", m.estimate.total_bytes},
                      {"fits", m.estimate.fits}});
    models.back().update(m.decode_json);  // decode_tokens_per_second, not_counted
    models.back()["speed"] = m.speed;
  }
  nlohmann::ordered_json plans = nlohmann::ordered_json::array();
  for (size_t i = 0; i < p.plans_by_speed.size(); ++i) {
    const GgufRepoModel& m = p.models[p.plans_by_speed[i].model];
    plans.push_back({{"file", m.path}, {"quant", m.quant}});
    plans.back().update(m.decode_json);
    plans.back()["step"] = i > 0 ? nlohmann::ordered_json(p.plans_by_speed[i].step) : nlohmann::ordered_json(nullptr);
  }
  auto path_of = [&p](const std::optional<size_t>& i) {
    return i ? nlohmann::ordered_json(p.models[*i].path) : nlohmann::ordered_json(nullptr);
  };
  const LlamaCppContext& ctx = p.models.front().estimate.context;
  return {{"engine", "llamacpp"},
          {"recommended", path_of(p.recommended)},
          {"fastest", path_of(p.fastest)},
          {"models", models},
          {"plans_by_speed", plans},
          {"ctx_size", ctx.n_ctx},
          {"parallel", ctx.n_seq},
          {"budget_bytes", p.prepared.budget.budget_bytes},
          {"warnings", warnings_json(p.prepared.warnings)}};
}

// The budget the verdicts were judged against: with GPUs to place on,
// each GPU's free memory less the margin (the verdict is the placement's:
// every device fits), else the one budget.
std::string budget_text(const GgufRepoPricing& p) {
  const LlamaCppPlacementSettings& placement = p.models.front().estimate.settings.placement;
  if (placement.gpus.empty()) {
    return fmt::format("budget {} ({})", format_bytes(p.prepared.budget.budget_bytes),
                       to_string(p.prepared.budget.source));
  }
  std::string gpus;
  for (const LlamaCppGpu& g : placement.gpus) {
    gpus += fmt::format("{}{} {}", gpus.empty() ? "" : ", ", g.device, format_bytes(g.free_bytes));
  }
  return fmt::format("judged on every device: GPUs {} (each less a {} margin), host {} ({})", gpus,
                     format_bytes(placement.gpu_margin_bytes),
                     format_bytes(p.prepared.budget.budget_bytes), to_string(p.prepared.budget.source));
}

// ", decode 31 tok/s" (at the end of the context) for a model that fits,
// when any model's speed is known; "" otherwise.
std::string decode_text(const GgufRepoModel& m, bool known) {
  return known && m.estimate.fits ? ", decode " + m.decode_text : "";
}

// "\nBy decode speed at N tokens (docs/speed.md):\n" and a line a model
// that fits, each step's cost from the one before; "" when no speed is known.
std::string plans_text(const GgufRepoPricing& p, bool known) {
  if (!known || p.plans_by_speed.empty()) return "";
  std::string out = fmt::format("\nBy decode speed at {} tokens (docs/speed.md):\n",
                                p.models.front().estimate.context.n_ctx_seq);
  for (const GgufRepoRankedPlan& r : p.plans_by_speed) out += fmt::format("  {}\n", r.step);
  return out;
}

std::string text_answer(const std::string& name, const GgufRepoPricing& p) {
  const LlamaCppContext& ctx = p.models.front().estimate.context;
  std::string out = fmt::format(
      "{}: {} GGUF model{}, llama.cpp at {} tokens of context, {} sequence{}; {}\n\n", name,
      p.models.size(), p.models.size() == 1 ? "" : "s", ctx.n_ctx, ctx.n_seq,
      ctx.n_seq == 1 ? "" : "s", budget_text(p));
  size_t width = 4;
  for (const GgufRepoModel& m : p.models) width = std::max(width, m.path.size());
  out += fmt::format("  {:<{}}  {:<10}{:<9}{:>12}{:>12}  {}\n", "file", width, "quant", "type",
                     "size", "total", "verdict");
  const bool known = std::any_of(p.models.begin(), p.models.end(), [](const GgufRepoModel& m) {
    return m.decode_tokens_per_second.has_value();
  });
  for (const GgufRepoModel& m : p.models) {
    out += fmt::format("  {:<{}}  {:<10}{:<9}{:>12}{:>12}  {}{}\n", m.path, width,
                       m.quant.empty() ? "-" : m.quant, m.main_type.empty() ? "-" : m.main_type,
                       format_bytes(m.size_bytes), format_bytes(m.estimate.total_bytes),
                       m.estimate.fits ? "FITS" : "DOES NOT FIT", decode_text(m, known));
  }
  out += plans_text(p, known);
  out += p.recommended ? fmt::format("\nRecommended: {}{}\n", p.models[*p.recommended].path,
                                     decode_text(p.models[*p.recommended], known))
                       : "\nRecommended: none of these fits\n";
  if (p.fastest) {
    out += fmt::format("Fastest: {}{}\n", p.models[*p.fastest].path, decode_text(p.models[*p.fastest], true));
  }
  return out;
}

}  // namespace

bool run_recommend_gguf_repo(const EstimateOptions& o, int& exit_code) {
  // An engine named that answers recommend-quant itself (mlxcel: MLX
  // re-pricing of one model's shapes) takes the request, not the folder.
  const EngineProfile* engine = EngineRegistry::instance().find(o.engine);
  if (engine && engine->supports(EngineCommand::kRecommendQuant)) return false;
  // The names as inspect reads them: the caches, the Hub, --revision,
  // --token, --timeout, --offline and the header cache.
  LocalRequestContext context = request_context(o);
  Result<std::optional<GgufRepoFolder>> folder = find_gguf_repo_folder(
      std::shared_ptr<FileSystem>(make_real_file_system()), o.model, context.model_names());
  if (!folder) {
    exit_code = report_error(folder.error());  // each names the model or its path
    return true;
  }
  if (!*folder) return false;

  Result<EstimateRequest> request = to_request(o);
  if (!request) {
    exit_code = report_error(request.error());
    return true;
  }
  Result<GgufRepoPricing> pricing =
      price_gguf_repo(*(*folder)->fs, (*folder)->root, *request, context);
  if (!pricing) {
    exit_code = report_error(pricing.error());
    return true;
  }
  print_warnings(pricing->prepared.warnings);
  const std::string out =
      o.json ? json_answer(*pricing).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
             : text_answer(quote_untrusted(o.model), *pricing);
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
  return true;
}

}  // namespace memfit::cli
