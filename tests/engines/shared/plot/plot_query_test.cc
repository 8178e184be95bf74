// memfit plot's options as every engine's plot hook reads them
// (engines/shared/plot/plot_query.h), and the summary's fits.
#include <gtest/gtest.h>

#include "engines/shared/plot/plot_query.h"

namespace memfit::engines {
namespace {

using nlohmann::json;

Model declaring(uint64_t context) {
  Model m;
  m.spec.max_position_tokens = context;
  return m;
}

Result<PlotQuery> read(const EstimateRequest& r, json options, uint64_t declared = 40960) {
  const CommandQuery query{.front = CommandFront::kCli, .request = r, .options = options};
  return read_plot_query(query, declaring(declared));
}

TEST(PlotQuery, TheAxisEndsWhereTheUserOrTheModelSays) {
  EstimateRequest r;
  r.model = "models/Qwen3-14B-MLX-4bit/";
  Result<PlotQuery> q = read(r, {{"out", "a.svg"}});
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->out, "a.svg");
  EXPECT_FALSE(q->quants);
  EXPECT_EQ(q->max_tokens, 40960u);  // the model's declared context
  EXPECT_EQ(q->title, "Qwen3-14B-MLX-4bit");
  EXPECT_FALSE(q->kv_width_given);
  EXPECT_EQ(read(r, json::object(), 0)->max_tokens, 131072u);  // none declared: 128K
  EXPECT_EQ(read(r, {{"max_tokens", 65536}, {"quants", true}})->max_tokens, 65536u);
  EXPECT_EQ(read(r, {{"max_tokens", 1}}).error().message(),
            "max_tokens: a plot needs at least 2 tokens");
  EXPECT_EQ(read(r, {{"quants", 1}}).error().message(), "quants: expected true or false, got 1");
}

TEST(PlotQuery, AKvWidthTheRequestNamesIsTheOneDrawn) {
  EstimateRequest r;
  r.cache_type_v = KvElement::kInt8;
  EXPECT_TRUE(read(r, json::object())->kv_width_given);
  EstimateRequest gguf;
  gguf.llamacpp.cache_type_k = GgmlType::kQ8_0;
  EXPECT_TRUE(read(gguf, json::object())->kv_width_given);
}

TEST(PlotQuery, EachPanelsLargestContext) {
  PlotData data;
  data.panels.resize(2);
  data.panels[0].weights_mode = data.panels[1].weights_mode = "as-is";
  data.panels[0].kv_cache_mode = "fp16";
  data.panels[0].max_tokens_that_fit = 35584;
  data.panels[1].kv_cache_mode = "int8";
  PlotQuery q;
  EXPECT_EQ(plot_fits_text(q, data), "fp16 35584, int8 none");
  q.quants = true;
  EXPECT_EQ(plot_fits_text(q, data), "as-is/fp16 35584, as-is/int8 none");
}

}  // namespace
}  // namespace memfit::engines
