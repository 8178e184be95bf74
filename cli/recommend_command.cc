// memfit recommend-quant: the same estimate for each candidate weight
// mode (the checkpoint as it is, int8, int4 MLX affine), the largest
// context each allows, and the most precise mode that fits. A folder of
// GGUF models (a quant repo) is priced file by file instead
// (recommend_gguf_repo.h).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "recommend_gguf_repo.h"
#include "memfit/memory_size.h"
#include "memfit/quant_schemes.h"
#include "memfit/report.h"
#include "memfit/untrusted_text.h"
#include "memfit/solver.h"

namespace memfit::cli {
namespace {

struct RecommendOptions {
  EstimateOptions estimate;
  uint64_t group_size = 64;
  std::vector<uint64_t> bits = {8, 4};
};

struct Candidate {
  QuantScheme scheme;
  uint64_t weights_bytes = 0;
  Estimate estimate;
  std::optional<uint64_t> max_tokens;
  bool smaller_than_source = true;  // false: re-quantizing would not shrink the checkpoint
};

// The request prepared for recommend-quant, or its usage error: a GGUF file
// is not re-quantized here (a folder of them is: recommend_gguf_repo.h), and
// the engine must answer the command.
Result<PreparedRequest> prepare_recommend(const RecommendOptions& o) {
  Result<PreparedRequest> c = prepare_estimate(o.estimate, PrepareOptions{.keep_tensors = true});
  if (!c) return c.error();
  if (c->model->weights.source == WeightsSource::kGgufHeader) {
    return Error::usage(
        "recommend-quant prices MLX quantizations of a safetensors checkpoint (engine mlxcel), "
        "or each GGUF file of a folder of them: for a GGUF model, name its folder or its "
        "Hugging Face repo");
  }
  if (!c->engine->supports(EngineCommand::kRecommendQuant)) {
    return EngineRegistry::instance().unsupported(*c->engine, EngineCommand::kRecommendQuant);
  }
  return c;
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
  Result<Estimate> e = estimate(variant, c.inputs, c.settings, c.platform, c.budget);
  if (!e) return e.error();
  cand.estimate = std::move(*e);
  Result<Solution> s = solve(SolveFor::kMaxTokens, variant, c.inputs, c.settings, c.platform, c.budget);
  if (!s) return s.error();
  cand.max_tokens = s->value;
  return cand;
}

// The most precise candidate that fits and shrinks the checkpoint; null
// when none does.
const Candidate* recommended_of(const std::vector<Candidate>& candidates) {
  for (const Candidate& cand : candidates) {
    if (cand.estimate.fits && cand.smaller_than_source) return &cand;
  }
  return nullptr;
}

std::string recommend_json(const RecommendOptions& o, const PreparedRequest& c,
                           const std::vector<Candidate>& candidates, const Candidate* recommended) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Candidate& cand : candidates) {
    list.push_back({{"mode", cand.scheme.name},
                    {"weights_bytes", cand.weights_bytes},
                    {"total_bytes", cand.estimate.total_bytes},
                    {"fits", cand.estimate.fits},
                    {"max_tokens_that_fit", cand.max_tokens ? nlohmann::ordered_json(*cand.max_tokens)
                                                            : nlohmann::ordered_json(nullptr)}});
  }
  nlohmann::ordered_json j = {
      {"recommended", recommended ? nlohmann::ordered_json(recommended->scheme.name)
                                  : nlohmann::ordered_json(nullptr)},
      {"candidates", list},
      {"max_tokens", c.inputs.max_tokens},
      {"batch", c.inputs.batch},
      {"kv_cache_mode", to_string(c.inputs.kv_element)},
      {"group_size", o.group_size},
      {"budget_bytes", c.budget.budget_bytes},
      {"warnings", warnings_json(c.warnings)}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string recommend_text(const RecommendOptions& o, const PreparedRequest& c,
                           const std::vector<Candidate>& candidates, const Candidate* recommended) {
  std::string out = fmt::format("{} at {} tokens, batch {}, {} KV; budget {} ({})\n\n",
                                o.estimate.model, c.inputs.max_tokens, c.inputs.batch,
                                to_string(c.inputs.kv_element), format_bytes(c.budget.budget_bytes),
                                to_string(c.budget.source));
  out += fmt::format("  {:<8}{:>12}{:>12}  {:<13}{}\n", "mode", "weights", "total", "verdict",
                     "largest context that fits");
  for (const Candidate& cand : candidates) {
    out += fmt::format("  {:<8}{:>12}{:>12}  {:<13}{}\n", cand.scheme.name,
                       format_bytes(cand.weights_bytes), format_bytes(cand.estimate.total_bytes),
                       cand.estimate.fits ? "FITS" : "DOES NOT FIT",
                       cand.max_tokens ? fmt::format("{} tokens", *cand.max_tokens) : "none");
  }
  out += recommended ? fmt::format("\nRecommended: {}\n", recommended->scheme.name)
                     : "\nRecommended: none of these fits\n";
  return out;
}

void run_recommend(const RecommendOptions& o, int& exit_code) {
  if (run_recommend_gguf_repo(o.estimate, exit_code)) return;
  Result<PreparedRequest> c = prepare_recommend(o);
  if (!c) {
    exit_code = report_error(c.error());
    return;
  }
  if (c->model->tensors.empty()) c->warnings.push_back(no_headers_warning());
  print_warnings(c->warnings);

  std::vector<QuantScheme> schemes = {QuantScheme{"as-is", true, 0, o.group_size}};
  for (uint64_t bits : o.bits) {
    schemes.push_back(QuantScheme{fmt::format("int{}", bits), false, bits, o.group_size});
  }
  std::vector<Candidate> candidates;
  for (const QuantScheme& scheme : schemes) {
    Result<Candidate> cand = price_candidate(scheme, *c);
    if (!cand) {
      exit_code = report_error(cand.error().within(quote_untrusted(o.estimate.model)));
      return;
    }
    candidates.push_back(std::move(*cand));
  }
  const Candidate* recommended = recommended_of(candidates);
  const std::string out = o.estimate.json ? recommend_json(o, *c, candidates, recommended)
                                          : recommend_text(o, *c, candidates, recommended);
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
}

}  // namespace

void add_recommend_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RecommendOptions>();
  CLI::App* cmd = app.add_subcommand("recommend-quant", "the most precise weight mode that fits");
  add_model_options(*cmd, options->estimate);
  add_request_options(*cmd, options->estimate);
  add_llamacpp_options(*cmd, options->estimate);
  cmd->add_option("--group-size", options->group_size, "MLX quantization group (default 64)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--bits", options->bits, "candidate bit widths (default 8 4)")
      ->check(CLI::Range(1, 16));
  cmd->callback([options, &exit_code] { run_recommend(*options, exit_code); });
}

}  // namespace memfit::cli
