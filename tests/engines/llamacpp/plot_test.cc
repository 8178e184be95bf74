// compute_llamacpp_plot(): the llama.cpp figure's samples are
// estimate_llamacpp()'s, its crossings solve_llamacpp()'s, and its SVG says
// both. Budgets are set from estimate_llamacpp() at a known context, so the
// tests hold whatever the compute model says (as engines/llamacpp/solver_test.cc).
//
// The model: Qwen3-8B's config from the corpus (36 layers, 8 KV heads x
// head_dim 128, training context 40,960), 5,000,000,000 B of weights.
#include <gtest/gtest.h>

#include <string>

#include "memfit/llamacpp_solver.h"
#include "memfit/memory_size.h"
#include "memfit/plot.h"
#include "engines/shared/plot/axes.h"
#include "support/corpus.h"
#include "support/svg_summary.h"

namespace memfit {
namespace {

Model qwen3_8b() {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("qwen3/Qwen3-8B");
  m.weights.bytes = 5'000'000'000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

MemoryBudget budget_of(uint64_t bytes) { return MemoryBudget{bytes, bytes, BudgetSource::kExplicit}; }

LlamaCppEstimate estimate_at(const Model& m, LlamaCppSettings s, uint64_t ctx_size, uint64_t budget) {
  s.ctx_size = ctx_size;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, budget_of(budget));
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

// f16 K and V at 16,384 cells take exactly the budget: the f16 crossing.
uint64_t budget_for_16k() { return estimate_at(qwen3_8b(), LlamaCppSettings{}, 16384, 1).total_bytes; }

LlamaCppPlotRequest request_of(uint64_t max_tokens) {
  LlamaCppPlotRequest r;
  r.title = "Qwen3-8B";
  r.max_tokens = max_tokens;
  return r;
}

PlotData plot_of(const LlamaCppPlotRequest& request, uint64_t budget) {
  Result<PlotData> data = compute_llamacpp_plot(qwen3_8b(), budget_of(budget), request);
  EXPECT_TRUE(data.ok()) << data.error().message();
  return data.ok() ? *data : PlotData{};
}

const PlotSample* sample_at(const PlotPanel& panel, uint64_t tokens) {
  for (const PlotSample& s : panel.samples) {
    if (s.tokens == tokens) return &s;
  }
  return nullptr;
}

TEST(ComputeLlamaCppPlot, OnePanelPerSolvedCacheType) {
  PlotData data = plot_of(request_of(40960), budget_for_16k());
  ASSERT_EQ(data.panels.size(), 3u);
  EXPECT_EQ(data.columns, 3u);
  EXPECT_EQ(data.panels[0].kv_cache_mode, "f16");
  EXPECT_EQ(data.panels[1].kv_cache_mode, "q8_0");
  EXPECT_EQ(data.panels[2].kv_cache_mode, "q4_0");
  for (const PlotPanel& p : data.panels) {
    EXPECT_EQ(p.weights_mode, "as-is");
    EXPECT_EQ(p.weights_bytes, 5'000'000'000u);
  }
  EXPECT_EQ(data.components.size(), 5u);
  EXPECT_EQ(data.components[plot_llamacpp::kModel].key, "model");
  EXPECT_EQ(data.components[plot_llamacpp::kCompute].key, "compute");
  EXPECT_FALSE(data.capped_fits_any_context);
  EXPECT_EQ(data.fixed_settings, "llama.cpp -np 1 -ub 512 -fa auto");
  EXPECT_EQ(data.panels[1].title, "q8_0 cache · model 4.66 GiB");  // 5,000,000,000 B
}

TEST(ComputeLlamaCppPlot, FlashAttentionOffDrawsF16Only) {
  LlamaCppPlotRequest r = request_of(40960);
  r.settings.flash_attn = FlashAttn::kOff;
  PlotData data = plot_of(r, budget_for_16k());
  ASSERT_EQ(data.panels.size(), 1u);
  EXPECT_EQ(data.panels[0].kv_cache_mode, "f16");
}

TEST(ComputeLlamaCppPlot, CrossingsAreTheSolversAnswers) {
  const uint64_t budget = budget_for_16k();
  PlotData data = plot_of(request_of(40960), budget);
  ASSERT_EQ(data.panels.size(), 3u);
  // f16 takes the budget exactly at 16,384 cells.
  EXPECT_EQ(data.panels[0].max_tokens_that_fit, std::optional<uint64_t>(16384));
  const Model m = qwen3_8b();
  for (const PlotPanel& p : data.panels) {
    LlamaCppSettings s;
    Result<GgmlType> type = parse_llamacpp_cache_type(p.kv_cache_mode);
    ASSERT_TRUE(type.ok());
    s.cache_type_k = s.cache_type_v = *type;
    Result<LlamaCppSolution> solved = solve_llamacpp(LlamaCppSolveFor::kCtxSize, m, s, budget_of(budget));
    ASSERT_TRUE(solved.ok()) << solved.error().message();
    ASSERT_TRUE(solved->value.has_value());
    EXPECT_EQ(p.max_tokens_that_fit, solved->value) << p.kv_cache_mode;
    EXPECT_EQ(p.capped, solved->capped) << p.kv_cache_mode;
    // The crossing is sampled, at the solver's own estimate.
    const PlotSample* at = sample_at(p, *solved->value);
    ASSERT_NE(at, nullptr) << p.kv_cache_mode;
    EXPECT_EQ(at->total_bytes, solved->estimate->total_bytes);
    EXPECT_LE(at->total_bytes, budget);
  }
  // Narrower caches hold more context.
  EXPECT_GT(*data.panels[1].max_tokens_that_fit, 16384u);
  EXPECT_GT(*data.panels[2].max_tokens_that_fit, *data.panels[1].max_tokens_that_fit);
}

TEST(ComputeLlamaCppPlot, SamplesAreTheEstimatesAtEachContext) {
  const uint64_t budget = budget_for_16k();
  LlamaCppPlotRequest r = request_of(40960);
  r.settings.parallel = 4;  // the request's settings apply to every sample
  r.settings.ubatch_size = 256;
  PlotData data = plot_of(r, budget);
  ASSERT_EQ(data.panels.size(), 3u);
  const Model m = qwen3_8b();
  for (const PlotPanel& p : data.panels) {
    ASSERT_FALSE(p.samples.empty());
    EXPECT_EQ(p.samples.front().tokens, 256u);
    EXPECT_EQ(p.samples.back().tokens, 40960u);
    LlamaCppSettings s = r.settings;
    Result<GgmlType> type = parse_llamacpp_cache_type(p.kv_cache_mode);
    ASSERT_TRUE(type.ok());
    s.cache_type_k = s.cache_type_v = *type;
    for (const PlotSample& x : p.samples) {
      LlamaCppEstimate e = estimate_at(m, s, x.tokens, budget);
      ASSERT_EQ(x.bytes.size(), 5u);
      EXPECT_EQ(x.bytes[plot_llamacpp::kModel], e.model_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_llamacpp::kKv], e.kv_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_llamacpp::kRecurrent], e.recurrent_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_llamacpp::kOutput], e.output_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_llamacpp::kCompute], e.compute_bytes) << x.tokens;
      EXPECT_EQ(x.total_bytes, e.total_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[0] + x.bytes[1] + x.bytes[2] + x.bytes[3] + x.bytes[4], x.total_bytes);
    }
  }
  // --parallel 4: the output buffer is 4 x n_seq x n_vocab = 4 x 4 x
  // 151,936 = 2,430,976 B at every context.
  EXPECT_EQ(data.panels[0].samples.front().bytes[plot_llamacpp::kOutput], 2'430'976u);
}

TEST(ComputeLlamaCppPlot, NamedCacheTypesDrawOnePanel) {
  const uint64_t budget = budget_for_16k();
  LlamaCppPlotRequest r = request_of(40960);
  r.each_cache_type = false;
  r.settings.cache_type_k = GgmlType::kQ8_0;
  r.settings.cache_type_v = GgmlType::kF16;
  PlotData data = plot_of(r, budget);
  ASSERT_EQ(data.panels.size(), 1u);
  EXPECT_EQ(data.panels[0].kv_cache_mode, "q8_0/f16");
  Result<LlamaCppSolution> solved =
      solve_llamacpp(LlamaCppSolveFor::kCtxSize, qwen3_8b(), r.settings, budget_of(budget));
  ASSERT_TRUE(solved.ok());
  EXPECT_EQ(data.panels[0].max_tokens_that_fit, solved->value);
  // Between f16's 16,384 and q8_0's: only K is narrower.
  EXPECT_GT(*data.panels[0].max_tokens_that_fit, 16384u);
}

TEST(ComputeLlamaCppPlot, SettingsLlamaCppRefusesAreUsageErrors) {
  LlamaCppPlotRequest r = request_of(40960);
  r.each_cache_type = false;
  r.settings.cache_type_k = r.settings.cache_type_v = GgmlType::kQ8_0;
  r.settings.flash_attn = FlashAttn::kOff;
  Result<PlotData> data = compute_llamacpp_plot(qwen3_8b(), budget_of(budget_for_16k()), r);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(data.error().field(), "flash_attn");
  Result<PlotData> short_range = compute_llamacpp_plot(qwen3_8b(), budget_of(1), request_of(1));
  ASSERT_FALSE(short_range.ok());
  EXPECT_EQ(short_range.error().message(), "plot: a context range needs at least 2 tokens, got 1");
}

TEST(ComputeLlamaCppPlot, ARangePastTheTrainingContextIsSolvedToItsEnd) {
  // 49,152 cells take the budget: past the training context (40,960), where
  // solve_llamacpp() on the model as it is would stop.
  const Model m = qwen3_8b();
  const uint64_t budget = estimate_at(m, LlamaCppSettings{}, 49152, 1).total_bytes;
  PlotData data = plot_of(request_of(65536), budget);
  ASSERT_FALSE(data.panels.empty());
  EXPECT_EQ(data.panels[0].max_tokens_that_fit, std::optional<uint64_t>(49152));
  EXPECT_FALSE(data.panels[0].capped);
  EXPECT_EQ(data.panels[0].samples.back().tokens, 65536u);
  // One more block does not fit.
  EXPECT_GT(estimate_at(m, LlamaCppSettings{}, 49153, 1).total_bytes, budget);
  // A budget nothing in range exceeds: capped at the range end.
  PlotData roomy = plot_of(request_of(65536), 1ull << 40);
  EXPECT_EQ(roomy.panels[0].max_tokens_that_fit, std::optional<uint64_t>(65536));
  EXPECT_TRUE(roomy.panels[0].capped);
}

TEST(RenderLlamaCppPlotSvg, SamplesCarryTheEstimatesBytes) {
  const uint64_t budget = budget_for_16k();
  PlotData data = plot_of(request_of(40960), budget);
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(data));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  ASSERT_EQ(doc["panels"].size(), 3u);
  const nlohmann::json& f16 = doc["panels"][0];
  EXPECT_EQ(f16["kv_cache_mode"], "f16");
  EXPECT_EQ(f16["max_tokens_that_fit"], 16384);
  ASSERT_EQ(f16["crossings"].size(), 1u);
  EXPECT_EQ(f16["crossings"][0]["label"], "f16: 16,384 tokens");
  EXPECT_EQ(f16["budget_bytes"], nlohmann::json::array({budget}));
  const LlamaCppEstimate e = estimate_at(qwen3_8b(), LlamaCppSettings{}, 8192, budget);
  const nlohmann::json* at = nullptr;
  for (const nlohmann::json& s : f16["samples"]) {
    if (s["tokens"] == 8192) at = &s;
  }
  ASSERT_NE(at, nullptr);
  EXPECT_EQ((*at)["model_bytes"], 5'000'000'000u);
  EXPECT_EQ((*at)["kv_bytes"], e.kv_bytes);
  // f16 K and V: 36 layers x 2 x 8 heads x 128 x 2 B x 8,192 cells.
  EXPECT_EQ(e.kv_bytes, 36ull * 2 * 8 * 128 * 2 * 8192);
  EXPECT_EQ((*at)["recurrent_bytes"], 0u);
  EXPECT_EQ((*at)["output_bytes"], e.output_bytes);
  EXPECT_EQ((*at)["compute_bytes"], e.compute_bytes);
  EXPECT_EQ((*at)["total_bytes"], e.total_bytes);
  // No recurrent state in this model: the title leaves it out.
  EXPECT_EQ((*at)["title"],
            "8,192 tokens: " + format_bytes(e.total_bytes) + " (" + group_digits(e.total_bytes) +
                " B) = model " + format_bytes(5'000'000'000) + " + KV cache " + format_bytes(e.kv_bytes) +
                " + output " + format_bytes(e.output_bytes) + " + compute " + format_bytes(e.compute_bytes));
}

TEST(RenderLlamaCppPlotSvg, StacksTheComponentsWithBytes) {
  std::string svg = render_plot_svg(plot_of(request_of(40960), budget_for_16k()));
  for (const char* drawn : {"model", "kv", "output", "compute"}) {
    EXPECT_NE(svg.find(std::string("data-component=\"") + drawn + "\""), std::string::npos) << drawn;
  }
  EXPECT_EQ(svg.find("data-component=\"recurrent\""), std::string::npos);
  EXPECT_EQ(svg.find("data-component=\"weights\""), std::string::npos);
  EXPECT_NE(svg.find(">output buffer</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">recurrent state</text>"), std::string::npos);
  EXPECT_NE(svg.find(">llama.cpp -np 1 -ub 512 -fa auto · budget "), std::string::npos);
  EXPECT_NE(svg.find(">--ctx-size: context in tokens, over all sequences (log scale"), std::string::npos);
}

TEST(RenderLlamaCppPlotSvg, ACappedPanelFitsTheWholeRangeNotAnyContext) {
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(plot_of(request_of(40960), 1ull << 40)));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  for (const nlohmann::json& p : doc["panels"]) {
    EXPECT_EQ(p["capped"], "true");
    EXPECT_TRUE(p["crossings"].empty());
    EXPECT_EQ(p["verdicts"], nlohmann::json::array({"fits the whole range (up to 40,960 tokens)"}));
  }
}

TEST(RenderLlamaCppPlotSvg, AVerdictTooLongForANarrowPanelTakesTwoLines) {
  // Three panels of (960 - 2 x 16) / 3 = 309.3 px leave a plot area of
  // 309.3 - 62 - 20 = 227.3 px, 211.3 px for the verdict: its 42
  // characters at 7.5 px are 315 px, so it breaks at the space nearest
  // its middle (character 21).
  std::string svg = render_plot_svg(plot_of(request_of(40960), 1ull << 40));
  // The first panel's verdict starts 16 + 62 + 8 = 86 px from the left.
  EXPECT_NE(svg.find("<tspan x=\"86.0\">fits the whole range</tspan>"
                     "<tspan x=\"86.0\" dy=\"16\">(up to 40,960 tokens)</tspan></text>"),
            std::string::npos)
      << svg;
}

}  // namespace
}  // namespace memfit
