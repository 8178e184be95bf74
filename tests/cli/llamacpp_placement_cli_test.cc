// The placement flags through the real binary (llama.cpp's spellings: -ngl,
// -ot, --gpu-memory), on a Qwen3-8B-shaped GGUF header: 36 blocks, a tied
// output (no output.weight), token_embd 350,060,544 B, one Q4_K matrix of
// 9,437,184 B per block; KV f16 at 4,096 cells: 4,096 x (1,024 + 1,024) x
// 2 B = 16,777,216 B a layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

class LlamaCppPlacementCli : public ::testing::Test {
 protected:
  void SetUp() override { qwen3_8b_gguf().write(gguf_); }
  TempDir dir_;
  std::string gguf_ = dir_.file_path("qwen3-8b.gguf");
};

TEST_F(LlamaCppPlacementCli, InspectSplitsTheModelAndTheReportKeepsItsSchema) {
  auto r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                       "--gpu-memory", "0=8GiB", "-ngl", "19"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& d = j["llamacpp"]["devices"];
  ASSERT_EQ(d.size(), 2u);
  // -ngl 19 of 37: blocks 18..35 and the output. The GPU holds 18 blocks
  // and the tied output's own copy of token_embd; the host 18 blocks and
  // token_embd: 18 x 9,437,184 + 350,060,544 = 519,929,856 B each.
  EXPECT_EQ(d[0]["device"], "gpu:0");
  EXPECT_EQ(d[0]["model_bytes"], 519929856u);
  EXPECT_EQ(d[1]["device"], "cpu");
  EXPECT_EQ(d[1]["model_bytes"], 519929856u);
  EXPECT_EQ(d[1]["page_cache_bytes"], 519929856u);
  EXPECT_EQ(d[0]["context_bytes"], 18u * 16777216);
  EXPECT_EQ(d[0]["free_bytes"], 8ull << 30);
  EXPECT_EQ(j["llamacpp"]["model_bytes"], 2u * 519929856);
  EXPECT_EQ(j["llamacpp"]["repack_bytes"], 0u);
  const std::string report = dir_.file_path("report.json");
  std::ofstream(report) << r.out;
  auto check = testing::check_report_schema(report);
  EXPECT_EQ(check.exit_code, 0) << check.err;

  // --mlock: the host's weights resident.
  r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                  "--gpu-memory", "0=8GiB", "-ngl", "19", "--mlock"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["llamacpp"]["devices"][1]["page_cache_bytes"], 0u);
}

TEST_F(LlamaCppPlacementCli, FitSolvesGpuLayersAndPrintsTheFlags) {
  // 2 GiB free less a 512 MiB margin: 1,610,612,736 B. The output layer
  // (the tied copy, 350,060,544) and the output phase's compute, 4 x 512 x
  // (151,936 + 3 x 4,096) = 336,330,752, leave 924,221,440 B: 35 blocks of
  // 9,437,184 + 16,777,216 = 26,214,400 B. -ngl 36; 37 does not fit.
  auto r = run_memfit({"fit", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                       "--gpu-memory", "0=2GiB", "--gpu-margin", "512MiB", "--solve", "gpu-layers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["solve"], "gpu-layers");
  ASSERT_TRUE(j["value"].is_number());
  const uint64_t n = j["value"];
  EXPECT_EQ(n, 36u);
  const std::vector<std::string> flags = j["flags"];
  const auto ngl = std::find(flags.begin(), flags.end(), "-ngl");
  ASSERT_NE(ngl, flags.end());
  EXPECT_EQ(*(ngl + 1), std::to_string(n));
  EXPECT_TRUE(j["report"]["fits"]);
  r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                  "--gpu-memory", "0=2GiB", "--gpu-margin", "512MiB", "-ngl", std::to_string(n + 1)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out)["fits"]);

  // The flag being solved is refused; so are a bad rule and a GPU past the list.
  r = run_memfit({"fit", "-m", gguf_, "--gpu-memory", "0=1GiB", "--solve", "gpu-layers", "-ngl", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--n-gpu-layers: is what solving gpu-layers finds"), std::string::npos) << r.err;
  r = run_memfit({"inspect", "-m", gguf_, "-ot", "(=CPU"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--override-tensor:"), std::string::npos) << r.err;
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "--gpu-memory", "0=1GiB", "-ot",
                  "attn=CUDA1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("names GPU 1, but there is 1 GPU"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace memfit
