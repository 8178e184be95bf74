// memfit plot on llamacpp requests through the real binary: a GGUF model
// draws llama.cpp's figure by default, its crossings are the solver's and
// its bytes `memfit inspect`'s, and the flags llama.cpp's figure cannot
// take are usage errors.
//
// The model: a Qwen3-8B-shaped GGUF header (36 layers, 8 KV heads x 128,
// training context 40,960), written sparse. Budgets come from `memfit
// inspect` at a known --ctx-size, so the tests hold whatever the compute
// model says.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "memfit/file_system.h"
#include "memfit/llamacpp_solver.h"
#include "memfit/model.h"
#include "support/run_command.h"
#include "support/small_checkpoints.h"
#include "support/small_ggufs.h"
#include "support/svg_summary.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class PlotLlamaCppCli : public ::testing::Test {
 protected:
  void SetUp() override { qwen3_8b_gguf().write(gguf_); }

  // `memfit inspect --json` at `ctx_size` (f16 caches): its total.
  uint64_t inspect_total(uint64_t ctx_size, const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB",
                                     "--ctx-size", std::to_string(ctx_size)};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_memfit(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return 0;
    return nlohmann::json::parse(r.out)["total_bytes"].get<uint64_t>();
  }

  TempDir dir_;
  std::string gguf_ = dir_.file_path("qwen3-8b.gguf");
};

TEST_F(PlotLlamaCppCli, AGgufModelDrawsOnePanelPerCacheType) {
  // The repacked copies pinned to one CPU, so that every figure below is
  // the same on any host (auto reads this one's).
  const uint64_t budget = inspect_total(16384, {"--repack", "x86-avx2"});
  const std::string out = dir_.file_path("out.svg");
  auto r = run_memfit({"plot", "-m", gguf_, "--memory-limit", std::to_string(budget) + "B", "-o", out,
                       "--repack", "x86-avx2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // f16 takes the budget exactly at 16,384 cells; q8_0 and q4_0 are the
  // solver's (checked against it below).
  ASSERT_EQ(r.out.rfind("wrote " + out + ": --ctx-size 256 to 40960, llama.cpp, budget ", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("; largest --ctx-size that fits: f16 16384, q8_0 "), std::string::npos) << r.out;

  nlohmann::json doc = testing::summarize_svg(slurp(out));
  ASSERT_EQ(doc["ok"], true) << doc.dump();
  EXPECT_EQ(doc["title"], "qwen3-8b.gguf: memory against context");
  ASSERT_EQ(doc["panels"].size(), 3u);
  EXPECT_EQ(doc["panels"][0]["kv_cache_mode"], "f16");
  EXPECT_EQ(doc["panels"][1]["kv_cache_mode"], "q8_0");
  EXPECT_EQ(doc["panels"][2]["kv_cache_mode"], "q4_0");
  EXPECT_EQ(doc["panels"][0]["crossings"][0]["label"], "f16: 16,384 tokens");

  // The crossings are solve_llamacpp()'s on the same file and budget.
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, gguf_, OpenModelOptions{.keep_tensors = true});
  ASSERT_TRUE(model.ok()) << model.error().message();
  LlamaCppSettings settings;
  settings.repack = RepackCpu::kX86Avx2;
  Result<std::vector<LlamaCppSolution>> solved = solve_llamacpp_each_cache_type(
      LlamaCppSolveFor::kCtxSize, *model, settings,
      MemoryBudget{budget, budget, BudgetSource::kExplicit});
  ASSERT_TRUE(solved.ok()) << solved.error().message();
  ASSERT_EQ(solved->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE((*solved)[i].value.has_value());
    EXPECT_EQ(doc["panels"][i]["max_tokens_that_fit"], *(*solved)[i].value) << i;
  }

  // A sample's bytes are `memfit inspect`'s at that --ctx-size.
  const nlohmann::json* at = nullptr;
  for (const nlohmann::json& s : doc["panels"][0]["samples"]) {
    if (s["tokens"] == 8192) at = &s;
  }
  ASSERT_NE(at, nullptr);
  EXPECT_EQ((*at)["total_bytes"], inspect_total(8192, {"--repack", "x86-avx2"}));
}

TEST_F(PlotLlamaCppCli, JsonSaysTheEngineAndTheSettings) {
  auto r = run_memfit({"plot", "-m", gguf_, "--memory-limit", "16GiB", "--json", "--parallel", "2",
                       "--max-tokens", "65536", "-o", dir_.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["min_tokens"], 256);
  EXPECT_EQ(j["max_tokens"], 65536);  // --max-tokens ends the range, past the training context
  EXPECT_EQ(j["llamacpp"]["parallel"], 2);
  EXPECT_EQ(j["llamacpp"]["flash_attn"], "auto");
  EXPECT_FALSE(j.contains("batch"));
  ASSERT_EQ(j["panels"].size(), 3u);
  EXPECT_EQ(j["panels"][0]["kv_cache_mode"], "f16");
}

TEST_F(PlotLlamaCppCli, FlashAttentionOffDrawsF16Only) {
  auto r = run_memfit({"plot", "-m", gguf_, "--memory-limit", "16GiB", "--json", "-fa", "off", "-o",
                       dir_.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["panels"].size(), 1u);
  EXPECT_EQ(j["panels"][0]["kv_cache_mode"], "f16");
}

TEST_F(PlotLlamaCppCli, NamedCacheTypesDrawOnlyThose) {
  auto r = run_memfit({"plot", "-m", gguf_, "--memory-limit", "16GiB", "--json", "-ctk", "q8_0",
                       "-ctv", "q4_0", "-o", dir_.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["panels"].size(), 1u);
  EXPECT_EQ(j["panels"][0]["kv_cache_mode"], "q8_0/q4_0");
}

TEST_F(PlotLlamaCppCli, EngineLlamaCppOnASafetensorsModel) {
  TempDir llama;
  write_bf16_llama_checkpoint(llama);
  auto r = run_memfit({"plot", "-m", llama.path(), "--engine", "llamacpp", "--memory-limit", "2GiB",
                       "--json", "-o", dir_.file_path("p.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  ASSERT_EQ(j["panels"].size(), 3u);
  EXPECT_EQ(j["panels"][0]["weights_bytes"], 530579456u);  // the BF16 checkpoint's headers
}

TEST_F(PlotLlamaCppCli, FlagsTheFigureCannotTakeAreUsageErrors) {
  const std::string out = dir_.file_path("p.svg");
  auto ctx = run_memfit({"plot", "-m", gguf_, "-c", "4096", "-o", out});
  EXPECT_EQ(ctx.exit_code, 2);
  EXPECT_EQ(ctx.err, "memfit: plot: --ctx-size: is the plot's x axis: give --max-tokens for where it ends\n");
  auto quants = run_memfit({"plot", "-m", gguf_, "--memory-limit", "16GiB", "--quants", "-o", out});
  EXPECT_EQ(quants.exit_code, 2);
  EXPECT_EQ(quants.err.rfind("memfit: plot: --quants: ", 0), 0u) << quants.err;
  // --batch is mlxcel's; llama.cpp's sequences are --parallel.
  auto batch = run_memfit({"plot", "-m", gguf_, "--memory-limit", "16GiB", "--batch", "2", "-o", out});
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_EQ(batch.err.rfind("memfit: plot: --batch: is an mlxcel setting", 0), 0u) << batch.err;
  auto fa = run_memfit({"plot", "-m", gguf_, "--memory-limit", "16GiB", "-fa", "off", "-ctk", "q8_0",
                        "-ctv", "q8_0", "-o", out});
  EXPECT_EQ(fa.exit_code, 2);
  EXPECT_EQ(fa.err, "memfit: plot: --flash-attn: a quantized V cache (q8_0) needs flash attention: on or auto\n");
  EXPECT_EQ(slurp(out), "");  // nothing was written
}

}  // namespace
}  // namespace memfit
