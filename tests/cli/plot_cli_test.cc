// memfit plot through the real binary: the file it writes, its one-line
// summary, its agreement with fit and recommend-quant, and its errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_checkpoints.h"
#include "support/svg_summary.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kExamplePlotCli = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

std::string slurp_plot_cli(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PlotCli, WritesTheSvgAndPrintsOneSummaryLine) {
  TempDir dir;
  std::string out = dir.file_path("plot.svg");
  auto r = run_memfit({"plot", "-m", kExamplePlotCli, "--memory-limit", "16GiB", "--max-tokens", "131072",
                       "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // fp16 and int8 as `memfit fit --solve max-tokens` finds them (README).
  EXPECT_EQ(r.out, "wrote " + out + ": 256 to 131072 tokens, batch 1, budget 16.00 GiB; "
                   "largest context that fits: fp16 35584, int8 71424\n");
  nlohmann::json doc = testing::summarize_svg(slurp_plot_cli(out));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  ASSERT_EQ(doc["panels"].size(), 2u);
  EXPECT_EQ(doc["panels"][0]["crossings"][0]["label"], "fp16: 35,584 tokens");
  EXPECT_EQ(doc["panels"][1]["crossings"][0]["label"], "int8: 71,424 tokens");
}

TEST(PlotCli, CrossingsEqualFit) {
  TempDir dir;
  std::map<std::string, std::string> env = {{"MEMFIT_MEMORY_LIMIT", "12GiB"}};
  auto plot = run_memfit({"plot", "-m", kExamplePlotCli, "--json", "--batch", "2", "--out",
                          dir.file_path("p.svg")}, env);
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  nlohmann::json p = nlohmann::json::parse(plot.out);
  auto fit = run_memfit({"fit", "-m", kExamplePlotCli, "--json", "--batch", "2", "--solve", "max-tokens"}, env);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  nlohmann::json f = nlohmann::json::parse(fit.out);
  ASSERT_EQ(p["panels"].size(), 2u);
  ASSERT_EQ(f["by_kv_mode"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(p["panels"][i]["kv_cache_mode"], f["by_kv_mode"][i]["kv_cache_mode"]);
    EXPECT_EQ(p["panels"][i]["max_tokens_that_fit"], f["by_kv_mode"][i]["value"]);
  }
  EXPECT_EQ(p["batch"], 2);
  EXPECT_EQ(p["budget_bytes"], 12ull << 30);
}

TEST(PlotCli, RangeEndsAtTheModelsDeclaredContextByDefault) {
  TempDir dir;
  auto r = run_memfit({"plot", "-m", kExamplePlotCli, "--memory-limit", "16GiB", "--json", "--out",
                       dir.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  // config.json: "max_position_embeddings": 40960.
  EXPECT_EQ(j["min_tokens"], 256);
  EXPECT_EQ(j["max_tokens"], 40960);
}

TEST(PlotCli, QuantsDrawARowPerWeightModeAsRecommendQuantPricesThem) {
  // A BF16 checkpoint (530,579,456 B as is), so every mode has fewer bits
  // than the source.
  TempDir dir;
  write_bf16_llama_checkpoint(dir);
  std::map<std::string, std::string> env = {{"MEMFIT_MEMORY_LIMIT", "600MiB"}};
  auto plot = run_memfit({"plot", "-m", dir.path(), "--quants", "--json", "--max-tokens", "8192",
                          "--out", dir.file_path("p.svg")}, env);
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto rec = run_memfit({"recommend-quant", "-m", dir.path(), "--json"}, env);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  nlohmann::json p = nlohmann::json::parse(plot.out);
  nlohmann::json c = nlohmann::json::parse(rec.out)["candidates"];
  ASSERT_EQ(p["panels"].size(), 6u);
  ASSERT_EQ(c.size(), 3u);
  // recommend-quant's own figures (tests/cli/recommend_cli_test.cc): as is
  // 530,579,456 B; int8 281,870,336 B.
  EXPECT_EQ(c[0]["weights_bytes"], 530579456u);
  EXPECT_EQ(c[1]["weights_bytes"], 281870336u);
  for (size_t row = 0; row < 3; ++row) {
    const nlohmann::json& fp16 = p["panels"][2 * row];
    EXPECT_EQ(fp16["weights_mode"], c[row]["mode"]);
    EXPECT_EQ(fp16["kv_cache_mode"], "fp16");
    EXPECT_EQ(fp16["weights_bytes"], c[row]["weights_bytes"]);
    // recommend-quant solves at its default KV width, fp16.
    EXPECT_EQ(fp16["max_tokens_that_fit"], c[row]["max_tokens_that_fit"]);
    EXPECT_EQ(p["panels"][2 * row + 1]["kv_cache_mode"], "int8");
  }
}

TEST(PlotCli, QuantsSkipModesThatDoNotShrinkTheCheckpoint) {
  // The example is already MLX 4-bit: int8 would grow it and int4 is what
  // it is, so --quants draws the as-is row only, and says why on stderr.
  TempDir dir;
  auto r = run_memfit({"plot", "-m", kExamplePlotCli, "--memory-limit", "16GiB", "--quants", "--json",
                       "--out", dir.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json p = nlohmann::json::parse(r.out);
  ASSERT_EQ(p["panels"].size(), 2u);
  EXPECT_EQ(p["panels"][0]["weights_mode"], "as-is");
  EXPECT_EQ(p["panels"][1]["weights_mode"], "as-is");
  EXPECT_NE(r.err.find("memfit: warning: --quants: int8, int4 not drawn: the checkpoint is already "
                       "quantized to as few bits or fewer\n"),
            std::string::npos)
      << r.err;
}

TEST(PlotCli, NamingAKvWidthDrawsOnlyThatWidth) {
  TempDir dir;
  auto r = run_memfit({"plot", "-m", kExamplePlotCli, "--memory-limit", "16GiB", "--kv-cache-mode", "int8",
                       "--max-tokens", "131072", "--out", dir.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + dir.file_path("p.svg") +
                       ": 256 to 131072 tokens, batch 1, budget 16.00 GiB; "
                       "largest context that fits: int8 71424\n");
}

TEST(PlotCli, UnwritableOutputIsOneErrorLine) {
  auto r = run_memfit({"plot", "-m", kExamplePlotCli, "--memory-limit", "16GiB", "--out",
                       "/nonexistent-memfit-dir/p.svg"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  // The example's own warning (its index is unverified) comes first; the
  // error is the one line after it.
  const std::string line = "memfit: plot: writing '/nonexistent-memfit-dir/p.svg': No such file or directory\n";
  ASSERT_GE(r.err.size(), line.size());
  EXPECT_EQ(r.err.substr(r.err.size() - line.size()), line);
  EXPECT_EQ(r.err.find("memfit: plot:"), r.err.size() - line.size());
}

TEST(PlotCli, UsageErrorsExitTwo) {
  TempDir dir;
  auto no_out = run_memfit({"plot", "-m", kExamplePlotCli});
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_EQ(no_out.out, "");
  auto limit = run_memfit({"plot", "-m", kExamplePlotCli, "--memory-limit", "lots", "--out",
                           dir.file_path("p.svg")});
  EXPECT_EQ(limit.exit_code, 2);
  EXPECT_EQ(limit.err.rfind("memfit: plot: --memory-limit: ", 0), 0u) << limit.err;
  auto tiny = run_memfit({"plot", "-m", kExamplePlotCli, "--max-tokens", "1", "--out", dir.file_path("p.svg")});
  EXPECT_EQ(tiny.exit_code, 2);
  EXPECT_EQ(tiny.err, "memfit: plot: --max-tokens: a plot needs at least 2 tokens\n");
}

TEST(PlotCli, MissingModelIsOneErrorLine) {
  TempDir dir;
  auto r = run_memfit({"plot", "-m", dir.file_path("nope"), "--out", dir.file_path("p.svg")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("memfit: plot: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace memfit
