// run_to_json() and render_run_text(): a hand-filled EstimateRun goes to its engine's
// renderer with every warning, and a per-rank plan follows the mlxcel report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iterator>
#include <memory>

#include "memfit/llamacpp_report.h"
#include "memfit/mlxlm_report.h"
#include "memfit/parallel_report.h"
#include "memfit/mlxcel_report.h"
#include "memfit/run_report.h"
#include "memfit/vllm_report.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::EndsWith;

constexpr uint64_t kMiB = 1ull << 20;
using ::memfit::testing::kGiB;

// What run_report.h adds to the engine's own report: "engine_reason" and
// "context_limit_tokens" after "engine" (null: these hand-filled models
// declare no context), and the line "priced by <engine>: <reason>" second.
nlohmann::ordered_json with_reason(const nlohmann::ordered_json& report, const std::string& reason) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : report.items()) {
    out[key] = value;
    if (key != "engine") continue;
    out["engine_reason"] = reason;
    out["context_limit_tokens"] = nullptr;
  }
  return out;
}
std::string with_reason_line(std::string text, const std::string& line) {
  return text.insert(text.find('\n') + 1, line + "\n");
}

// The speed every engine's profile adds after its report (docs/speed.md):
// these runs name no machine, so there is no figure.
const std::string kNoSpeedLine = "\nspeed: unknown: give --gpu or --mac\n";
nlohmann::ordered_json with_no_speed(nlohmann::ordered_json report) {
  report["speed"] = {{"decode_tokens_per_second", nullptr},
                     {"prefill_tokens_per_second", nullptr},
                     {"time_to_first_token_s", nullptr},
                     {"unknown", "give --gpu or --mac"}};
  return report;
}

const std::string kMlxcelDefault =
    "the default for models that are not GGUF; --engine names another (llamacpp, mlx-lm, vllm, sglang, ollama)";

// An mlxcel run: 3.5 GiB of weights, 512 MiB of KV, 1.25 GiB of headroom:
// 5.25 GiB of an 8 GiB budget.
EstimateRun mlxcel_run() {
  auto m = std::make_shared<Model>();
  m->path = "models/tiny";
  m->has_config = true;
  m->spec.model_type = "llama";
  m->spec.family = "llama";
  m->spec.layout = "standard";
  m->weights.bytes = 3 * kGiB + 512 * kMiB;
  m->weights.source = WeightsSource::kSafetensorsHeader;
  EstimateRun r;
  r.engine = EngineRegistry::instance().find("mlxcel");
  r.model = m;
  r.budget = MemoryBudget{8 * kGiB, 8 * kGiB, BudgetSource::kExplicit};
  r.warnings = {{WarningKind::kSettings, "MEMFIT_PREFILL_CHUNK 'x' ignored"},
                {WarningKind::kAvailableNow, "WARNING: memory available now is 4.00 GiB"}};
  MlxcelEstimate& e = r.estimate;
  e.inputs.max_tokens = 4096;
  e.weights_bytes = 3 * kGiB + 512 * kMiB;
  e.kv.available = true;
  e.kv.total_bytes = 512 * kMiB;
  e.allocator_overhead_bytes = kGiB;
  e.activation_bytes = 256 * kMiB;
  e.headroom_bytes = kGiB + 256 * kMiB;
  e.headroom_factor_micros = 1'250'000;
  e.budget_bytes = 8 * kGiB;
  e.total_bytes = 5 * kGiB + 256 * kMiB;
  e.fits = true;
  return r;
}

TEST(RunReport, SaysTheModelsOwnContextUnderItsEngine) {
  // 32,768 declared, yarn x 4 over an original 32,768: mlxcel takes vLLM's
  // derived 131,072 (trained_context.h).
  EstimateRun r = mlxcel_run();
  auto m = std::make_shared<Model>(*r.model);
  m->spec.max_position_tokens = 32768;
  m->spec.rope_scaling = {"yarn", 4.0, 32768};
  r.model = m;
  const nlohmann::ordered_json j = run_to_json(r);
  EXPECT_EQ(j["context_limit_tokens"], 131072u);
  auto it = j.begin();
  while (it.key() != "engine") ++it;
  EXPECT_EQ((++it).key(), "engine_reason");
  EXPECT_EQ((++it).key(), "context_limit_tokens");
}

TEST(RunReport, MlxcelRunIsTheEstimateReportWithEveryWarning) {
  const EstimateRun r = mlxcel_run();
  nlohmann::ordered_json j = run_to_json(r);
  EXPECT_EQ(j, with_no_speed(with_reason(
                   mlxcel_estimate_to_json(*r.model, r.estimate, r.budget, r.warnings), kMlxcelDefault)));
  EXPECT_EQ(j["warnings"].dump(),
            R"(["MEMFIT_PREFILL_CHUNK 'x' ignored","WARNING: memory available now is 4.00 GiB"])");
  EXPECT_EQ(j["total_bytes"], 5637144576u);  // 5.25 x 2^30
  EXPECT_FALSE(j.contains("parallel"));
  EXPECT_EQ(render_run_text(r), with_reason_line(render_mlxcel_text(*r.model, r.estimate, r.budget),
                                                 "priced by mlxcel: " + kMlxcelDefault) +
                                    kNoSpeedLine);
  EXPECT_THAT(render_run_text(r),
              EndsWith("\nFITS: 5.25 GiB of 8.00 GiB (2.75 GiB to spare)\n" + kNoSpeedLine));
}

TEST(RunReport, APerRankPlanFollowsTheWholeModel) {
  EstimateRun r = mlxcel_run();
  ParallelPlan plan;
  plan.config = ParallelConfig{2, 1, ShardingRules::kVllm};
  for (uint64_t i = 0; i < 2; ++i) {
    RankEstimate rank;
    rank.rank = rank.tp_rank = i;
    rank.layers = {0, 32};
    rank.estimate.weights_bytes = 2 * kGiB;
    rank.estimate.total_bytes = 2 * kGiB;
    rank.estimate.budget_bytes = kGiB;  // 1 GiB per device: neither fits
    plan.ranks.push_back(rank);
  }
  r.parallel = plan;
  nlohmann::ordered_json j = run_to_json(r);
  EXPECT_EQ(j["parallel"], parallel_plan_to_json(plan));
  EXPECT_EQ(j["parallel"]["fits"], false);
  // "parallel" follows the warnings; the speed is last.
  EXPECT_EQ(std::prev(j.end()).key(), "speed");
  EXPECT_EQ(std::prev(j.end(), 2).key(), "parallel");
  const std::string text = render_run_text(r);
  EXPECT_EQ(text, with_reason_line(render_mlxcel_text(*r.model, r.estimate, r.budget),
                                   "priced by mlxcel: " + kMlxcelDefault) +
                      render_parallel_plan_text(plan) + kNoSpeedLine);
  EXPECT_THAT(text, EndsWith("\nRANKS THAT DO NOT FIT: 0, 1\n" + kNoSpeedLine));
  // The run fits only when every rank does.
  EXPECT_FALSE(r.fits());
}

TEST(RunReport, EngineRunsGoToTheirOwnRenderer) {
  EstimateRun r = mlxcel_run();
  LlamaCppEstimate l;
  l.model_bytes = l.mapped_bytes = 3 * kGiB;
  l.total_bytes = 3 * kGiB;
  l.budget_bytes = 8 * kGiB;
  l.fits = true;
  r.llamacpp = l;
  r.engine = EngineRegistry::instance().find("llamacpp");
  r.engine_named = true;
  const std::string named = "named by --engine";
  EXPECT_EQ(run_to_json(r),
            with_no_speed(with_reason(llamacpp_estimate_to_json(*r.model, l, r.budget, r.warnings), named)));
  EXPECT_EQ(run_to_json(r)["engine"], "llamacpp");
  EXPECT_THAT(render_run_text(r), EndsWith("\nFITS: 3.00 GiB of 8.00 GiB (5.00 GiB to spare)\n" + kNoSpeedLine));
  EXPECT_EQ(render_run_text(r), with_reason_line(render_llamacpp_text(*r.model, l, r.budget),
                                                 "priced by llamacpp: " + named) +
                                    kNoSpeedLine);

  r.llamacpp.reset();
  MlxLmEstimate x;
  x.total_bytes = 9 * kGiB;
  x.budget_bytes = 8 * kGiB;
  x.wired_limit_mb = 9216;  // 9 x 1024
  r.mlxlm = x;
  r.engine = EngineRegistry::instance().find("mlx-lm");
  EXPECT_EQ(run_to_json(r),
            with_no_speed(with_reason(mlxlm_estimate_to_json(*r.model, x, r.budget, r.warnings), named)));
  EXPECT_EQ(run_to_json(r)["engine"], "mlx-lm");
  EXPECT_EQ(render_run_text(r), with_reason_line(render_mlxlm_text(*r.model, x, r.budget),
                                                 "priced by mlx-lm: " + named) +
                                    kNoSpeedLine);
  EXPECT_THAT(render_run_text(r),
              EndsWith("\nDOES NOT FIT: 9.00 GiB needed, 8.00 GiB available (1.00 GiB short)\n" +
                       kNoSpeedLine));

  r.mlxlm.reset();
  VllmEstimate v;
  v.settings.max_model_len = 4096;
  v.total_bytes = 7 * kGiB;
  v.budget_bytes = 8 * kGiB;
  v.starts = v.fits = true;
  r.vllm = v;
  r.engine = EngineRegistry::instance().find("vllm");
  EXPECT_EQ(run_to_json(r),
            with_no_speed(with_reason(vllm_estimate_to_json(*r.model, v, r.budget, r.warnings), named)));
  EXPECT_EQ(run_to_json(r)["engine"], "vllm");
  EXPECT_EQ(render_run_text(r), with_reason_line(render_vllm_text(*r.model, v, r.budget),
                                                 "priced by vllm: " + named) +
                                    kNoSpeedLine);
  EXPECT_THAT(render_run_text(r), EndsWith("\nFITS: 7.00 GiB of 8.00 GiB (1.00 GiB to spare)\n" + kNoSpeedLine));
}

}  // namespace
}  // namespace memfit
