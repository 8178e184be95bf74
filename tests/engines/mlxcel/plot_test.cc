// The mlxcel plot's data equals estimate_mlxcel()'s and solve_mlxcel()'s, and its SVG is
// well-formed, self-contained and says what the data says.
//
// Figures are for the bundled example, Qwen3-14B-MLX-4bit (40 layers, 8 KV
// heads x head_dim 128, hidden 5120, intermediate 17408, vocab 151936,
// weights 8,307,783,680 B from its index), at a 16 GiB budget
// (17,179,869,184 B), batch 1, default settings (factor 1.20, activation
// x 2.0, prefill chunk 2048), Linux default backend (no in-flight reserve).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "memfit/file_system.h"
#include "memfit/model.h"
#include "memfit/plot.h"
#include "memfit/quant_schemes.h"
#include "memfit/mlxcel_solver.h"
#include "support/paths.h"
#include "support/svg_summary.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
constexpr uint64_t kExampleWeightsBytes = 8'307'783'680;

Model example_model() {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> m = open_model(*fs, std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit");
  EXPECT_TRUE(m.ok()) << m.error().message();
  return m.ok() ? *m : Model{};
}

MemoryBudget budget_of(uint64_t bytes) { return MemoryBudget{bytes, bytes, BudgetSource::kExplicit}; }

PlotRequest as_is_request(const Model& model, uint64_t max_tokens) {
  PlotRequest r;
  r.title = "Qwen3-14B-MLX-4bit";
  r.weight_modes = {{"as-is", model.weights.bytes}};
  r.max_tokens = max_tokens;
  return r;
}

PlotData plot_at(uint64_t budget_bytes, uint64_t max_tokens) {
  Model model = example_model();
  Result<PlotData> data = compute_plot(model, MlxcelInputs{}, MlxcelSettings{}, Platform{},
                                       budget_of(budget_bytes), as_is_request(model, max_tokens));
  EXPECT_TRUE(data.ok()) << data.error().message();
  return data.ok() ? *data : PlotData{};
}

const PlotSample* sample_at(const PlotPanel& panel, uint64_t tokens) {
  for (const PlotSample& s : panel.samples) {
    if (s.tokens == tokens) return &s;
  }
  return nullptr;
}

TEST(PlotContextSamples, PowersOfTwoAndQuarterOctavesBetweenTheEnds) {
  // 256 x 19/16 = 304, x 181/128 = 362, x 215/128 = 430; then the same from 512.
  EXPECT_EQ(plot_context_samples(256, 1024),
            (std::vector<uint64_t>{256, 304, 362, 430, 512, 608, 724, 860, 1024}));
}

TEST(PlotContextSamples, EndsThatAreNotPowersOfTwoAreKept) {
  std::vector<uint64_t> s = plot_context_samples(300, 40960);
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s.front(), 300u);
  EXPECT_EQ(s.back(), 40960u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());
  // 32768 x 215/128 = 55040 is past the end; 32768 x 19/16 = 38912 is in.
  EXPECT_EQ(s[s.size() - 2], 38912u);
}

TEST(PlotContextSamples, EmptyRangeGivesNoSamples) {
  EXPECT_TRUE(plot_context_samples(0, 100).empty());
  EXPECT_TRUE(plot_context_samples(200, 100).empty());
  EXPECT_EQ(plot_context_samples(7, 7), (std::vector<uint64_t>{7}));
}

TEST(PlotMinTokens, OneKvBlockUnlessTheRangeIsShorter) {
  EXPECT_EQ(plot_min_tokens(131072), 256u);
  EXPECT_EQ(plot_min_tokens(512), 256u);
  EXPECT_EQ(plot_min_tokens(511), 1u);
}

TEST(ComputePlot, CrossingsAreTheSolversAnswers) {
  PlotData data = plot_at(16 * kGiB, 131072);
  ASSERT_EQ(data.panels.size(), 2u);
  EXPECT_EQ(data.columns, 2u);
  EXPECT_EQ(data.panels[0].kv_element, KvElement::kFp16);
  EXPECT_EQ(data.panels[1].kv_element, KvElement::kInt8);
  // fp16: 163,840 B/token (40 x 2 x 8 x 128 x 2). At 35,584 tokens (139
  // blocks): KV 5,830,082,560; 1.2 x (8,307,783,680 + 5,830,082,560)
  // = 16,965,439,488 + activation 184,853,248 = 17,150,292,736 <= budget.
  // One more token rounds to 35,840: 17,200,624,384 > 17,179,869,184.
  EXPECT_EQ(data.panels[0].max_tokens_that_fit, std::optional<uint64_t>(35584));
  // int8: half the rate, 81,920 B/token: 71,424 tokens (279 blocks).
  EXPECT_EQ(data.panels[1].max_tokens_that_fit, std::optional<uint64_t>(71424));
  Model model = example_model();
  for (const PlotPanel& p : data.panels) {
    MlxcelInputs in;
    in.kv_element = p.kv_element;
    Result<MlxcelSolution> s = solve_mlxcel(MlxcelSolveFor::kMaxTokens, model, in, MlxcelSettings{}, Platform{},
                                            budget_of(16 * kGiB));
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(p.max_tokens_that_fit, s->value) << to_string(p.kv_element);
    EXPECT_FALSE(p.capped);
  }
}

TEST(ComputePlot, TheCrossingIsOneOfTheSamples) {
  PlotData data = plot_at(16 * kGiB, 131072);
  ASSERT_EQ(data.panels.size(), 2u);
  const PlotSample* at = sample_at(data.panels[0], 35584);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at->total_bytes, 17'150'292'736u);
  EXPECT_EQ(data.panels[0].samples.front().tokens, 256u);
  EXPECT_EQ(data.panels[0].samples.back().tokens, 131072u);
}

TEST(ComputePlot, StackedComponentsAreTheEstimatesComponents) {
  PlotData data = plot_at(16 * kGiB, 131072);
  ASSERT_EQ(data.panels.size(), 2u);
  const PlotSample* s = sample_at(data.panels[0], 8192);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->bytes.size(), 5u);
  // KV 163,840 x 8,192 = 1,342,177,280; allocator 0.2 x (8,307,783,680 +
  // 1,342,177,280) = 1,929,992,192; activation 2 x 2,048 x (5,120 + 17,408)
  // x 2 + 151,936 x 2 = 184,853,248; total 11,764,806,400 (= inspect's).
  EXPECT_EQ(s->bytes[plot_mlxcel::kWeights], kExampleWeightsBytes);
  EXPECT_EQ(s->bytes[plot_mlxcel::kKv], 1'342'177'280u);
  EXPECT_EQ(s->bytes[plot_mlxcel::kAllocator], 1'929'992'192u);
  EXPECT_EQ(s->bytes[plot_mlxcel::kActivation], 184'853'248u);
  EXPECT_EQ(s->bytes[plot_mlxcel::kInflight], 0u);
  EXPECT_EQ(s->total_bytes, 11'764'806'400u);

  Model model = example_model();
  for (const PlotPanel& p : data.panels) {
    for (const PlotSample& x : p.samples) {
      MlxcelInputs in;
      in.max_tokens = x.tokens;
      in.kv_element = p.kv_element;
      Result<MlxcelEstimate> e = estimate_mlxcel(model, in, MlxcelSettings{}, Platform{}, budget_of(16 * kGiB));
      ASSERT_TRUE(e.ok());
      ASSERT_EQ(x.bytes.size(), 5u);
      EXPECT_EQ(x.bytes[plot_mlxcel::kKv], e->kv.total_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_mlxcel::kAllocator], e->allocator_overhead_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_mlxcel::kActivation], e->activation_bytes) << x.tokens;
      EXPECT_EQ(x.total_bytes, e->total_bytes) << x.tokens;
      EXPECT_EQ(x.bytes[plot_mlxcel::kWeights] + x.bytes[plot_mlxcel::kKv] +
                    x.bytes[plot_mlxcel::kAllocator] + x.bytes[plot_mlxcel::kActivation] +
                    x.bytes[plot_mlxcel::kInflight],
                x.total_bytes);
    }
  }
}

TEST(ComputePlot, QuantRowsUseEachCandidatesWeights) {
  Model model = example_model();
  PlotRequest request = as_is_request(model, 131072);
  request.weight_modes.clear();
  for (const QuantScheme& scheme : mlx_quant_schemes()) {
    Result<uint64_t> bytes = candidate_weights_bytes(scheme, model, {});
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    request.weight_modes.push_back({scheme.name, *bytes});
  }
  Result<PlotData> data = compute_plot(model, MlxcelInputs{}, MlxcelSettings{}, Platform{},
                                       budget_of(16 * kGiB), request);
  ASSERT_TRUE(data.ok()) << data.error().message();
  ASSERT_EQ(data->panels.size(), 6u);  // as-is, int8, int4 x fp16, int8
  EXPECT_EQ(data->panels[0].weights_mode, "as-is");
  EXPECT_EQ(data->panels[0].weights_bytes, kExampleWeightsBytes);
  for (size_t i = 0; i < data->panels.size(); ++i) {
    const PlotPanel& p = data->panels[i];
    EXPECT_EQ(p.weights_mode, request.weight_modes[i / 2].name);
    ASSERT_EQ(p.samples.front().bytes.size(), 5u);
    EXPECT_EQ(p.samples.front().bytes[plot_mlxcel::kWeights],
              request.weight_modes[i / 2].weights_bytes);
    Model variant = model;
    variant.weights.bytes = p.weights_bytes;
    MlxcelInputs in;
    in.kv_element = p.kv_element;
    Result<MlxcelSolution> s = solve_mlxcel(MlxcelSolveFor::kMaxTokens, variant, in, MlxcelSettings{}, Platform{},
                                            budget_of(16 * kGiB));
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(p.max_tokens_that_fit, s->value) << p.weights_mode << " " << to_string(p.kv_element);
  }
}

TEST(ComputePlot, RequestWithoutPanelsOrRangeIsAnError) {
  Model model = example_model();
  PlotRequest none = as_is_request(model, 131072);
  none.weight_modes.clear();
  Result<PlotData> a = compute_plot(model, {}, {}, Platform{}, budget_of(16 * kGiB), none);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message(), "plot: no weight mode to draw");
  PlotRequest short_range = as_is_request(model, 1);
  Result<PlotData> b = compute_plot(model, {}, {}, Platform{}, budget_of(16 * kGiB), short_range);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message(), "plot: a context range needs at least 2 tokens, got 1");
}

TEST(RenderPlotSvg, IsWellFormedXmlWithAViewBox) {
  std::string svg = render_plot_svg(plot_at(16 * kGiB, 131072));
  nlohmann::json doc = testing::summarize_svg(svg);
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  EXPECT_EQ(doc["root"], "svg");
  EXPECT_EQ(doc["viewBox"], "0 0 960 426");  // header 92 + one row 300 + footer 34
  EXPECT_EQ(doc["title"], "Qwen3-14B-MLX-4bit: memory against context");
  EXPECT_EQ(doc["panels"].size(), 2u);
}

TEST(RenderPlotSvg, CrossingLabelsAreTheSolversAnswers) {
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(plot_at(16 * kGiB, 131072)));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  const nlohmann::json& fp16 = doc["panels"][0];
  const nlohmann::json& int8 = doc["panels"][1];
  EXPECT_EQ(fp16["kv_cache_mode"], "fp16");
  EXPECT_EQ(fp16["max_tokens_that_fit"], 35584);
  ASSERT_EQ(fp16["crossings"].size(), 1u);
  EXPECT_EQ(fp16["crossings"][0]["tokens"], 35584);
  EXPECT_EQ(fp16["crossings"][0]["label"], "fp16: 35,584 tokens");
  ASSERT_EQ(int8["crossings"].size(), 1u);
  EXPECT_EQ(int8["crossings"][0]["tokens"], 71424);
  EXPECT_EQ(int8["crossings"][0]["label"], "int8: 71,424 tokens");
  EXPECT_TRUE(fp16["verdicts"].empty());
}

TEST(RenderPlotSvg, EveryPanelHasTheBudgetLineLabelledInGiB) {
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(plot_at(16 * kGiB, 131072)));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  for (const nlohmann::json& p : doc["panels"]) {
    EXPECT_EQ(p["budget_bytes"], nlohmann::json::array({17179869184ull}));
    EXPECT_EQ(p["budget_labels"], nlohmann::json::array({"budget 16.00 GiB"}));
  }
}

TEST(RenderPlotSvg, SampleAttributesCarryTheExactBytes) {
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(plot_at(16 * kGiB, 131072)));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  const nlohmann::json* at = nullptr;
  for (const nlohmann::json& s : doc["panels"][0]["samples"]) {
    if (s["tokens"] == 8192) at = &s;
  }
  ASSERT_NE(at, nullptr);
  // The same figures as ComputePlot.StackedComponentsAreTheEstimatesComponents.
  EXPECT_EQ((*at)["weights_bytes"], kExampleWeightsBytes);
  EXPECT_EQ((*at)["kv_bytes"], 1342177280u);
  EXPECT_EQ((*at)["allocator_overhead_bytes"], 1929992192u);
  EXPECT_EQ((*at)["activation_bytes"], 184853248u);
  EXPECT_EQ((*at)["backend_inflight_bytes"], 0u);
  EXPECT_EQ((*at)["total_bytes"], 11764806400u);
  EXPECT_EQ((*at)["title"],
            "8,192 tokens: 10.96 GiB (11,764,806,400 B) = weights 7.74 GiB + KV cache 1.25 GiB + "
            "allocator 1.80 GiB + activation 176.3 MiB");
}

TEST(RenderPlotSvg, FitsTheWholeRangeIsSaidInWords) {
  // 32 GiB = 34,359,738,368 B: (34,359,738,368 - 184,853,248) / 1.2
  // - 8,307,783,680 = 20,171,287,253 B of KV, / 163,840 = 123,115 tokens,
  // down to whole blocks: 480 x 256 = 122,880. Past the 65,536 range end.
  PlotData data = plot_at(32 * kGiB, 65536);
  EXPECT_EQ(data.panels[0].max_tokens_that_fit, std::optional<uint64_t>(122880));
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(data));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  EXPECT_TRUE(doc["panels"][0]["crossings"].empty());
  EXPECT_EQ(doc["panels"][0]["verdicts"],
            nlohmann::json::array({"fits the whole range (up to 122,880 tokens)"}));
}

TEST(RenderPlotSvg, NeverFitsIsSaidInWords) {
  // 8 GiB: the weights alone, x 1.2 = 9,969,340,416 B, are over 8,589,934,592.
  PlotData data = plot_at(8 * kGiB, 131072);
  EXPECT_EQ(data.panels[0].max_tokens_that_fit, std::nullopt);
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(data));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  for (const nlohmann::json& p : doc["panels"]) {
    EXPECT_EQ(p["max_tokens_that_fit"], "none");
    EXPECT_TRUE(p["crossings"].empty());
    EXPECT_EQ(p["verdicts"], nlohmann::json::array({"never fits 8.00 GiB, not even at 1 token"}));
  }
}

TEST(RenderPlotSvg, FitsOnlyBelowTheRangeIsSaidInWords) {
  PlotData data = plot_at(16 * kGiB, 131072);
  data.min_tokens = 65536;  // fp16's 35,584 is left of a range starting here
  nlohmann::json doc = testing::summarize_svg(render_plot_svg(data));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  EXPECT_EQ(doc["panels"][0]["verdicts"],
            nlohmann::json::array({"fits only below this range (up to 35,584 tokens)"}));
}

TEST(RenderPlotSvg, SelfContainedWithNothingToFetch) {
  std::string svg = render_plot_svg(plot_at(16 * kGiB, 131072));
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);
  EXPECT_EQ(svg.find("@import"), std::string::npos);
  EXPECT_EQ(svg.find("<image"), std::string::npos);
  EXPECT_EQ(svg.find("@font-face"), std::string::npos);
  // The one URL is the SVG namespace name, which nothing fetches.
  size_t http = svg.find("http");
  ASSERT_NE(http, std::string::npos);
  EXPECT_EQ(svg.compare(http, 26, "http://www.w3.org/2000/svg"), 0);
  EXPECT_EQ(svg.find("http", http + 1), std::string::npos);
}

TEST(RenderPlotSvg, TitleIsEscaped) {
  PlotData data = plot_at(16 * kGiB, 4096);
  data.title = "a<b&\"c\"";
  std::string svg = render_plot_svg(data);
  EXPECT_NE(svg.find("a&lt;b&amp;&quot;c&quot;: memory against context"), std::string::npos);
  nlohmann::json doc = testing::summarize_svg(svg);
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  EXPECT_EQ(doc["title"], "a<b&\"c\": memory against context");
}

TEST(RenderPlotSvg, SameDataGivesTheSameDocument) {
  PlotData data = plot_at(16 * kGiB, 131072);
  EXPECT_EQ(render_plot_svg(data), render_plot_svg(data));
}

}  // namespace
}  // namespace memfit
