// `memfit preflight generate|serve`: KV length, slot arithmetic, the paged
// KV budget, exit 3 when it does not fit, --force. Figures are for the
// bundled Qwen3-14B-MLX-4bit (see tests/estimate/estimator_test.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/run_command.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
const std::map<std::string, std::string> k64GiB = {{"MEMFIT_MEMORY_LIMIT", "64GiB"}};

TEST(PreflightGenerate, KvLengthIsPromptPlusNewTokens) {
  // 7000 + 1192 = 8192 tokens: the default inspect figures, total 11,764,806,400.
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                       "--max-tokens", "1192", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["max_tokens"], 8192);
  EXPECT_EQ(j["total_bytes"], 11764806400u);
  EXPECT_EQ(j["preflight"]["mode"], "generate");
  EXPECT_EQ(j["preflight"]["fits"], true);
  EXPECT_EQ(j["preflight"]["forced"], false);
}

TEST(PreflightGenerate, DoesNotFitExitsThreeAfterTheBreakdown) {
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                       "--max-tokens", "1192"},
                      {{"MEMFIT_MEMORY_LIMIT", "8GiB"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("DOES NOT FIT"), std::string::npos);
  auto forced = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                            "--max-tokens", "1192", "--force", "--json"},
                           {{"MEMFIT_MEMORY_LIMIT", "8GiB"}});
  EXPECT_EQ(forced.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(forced.out);
  EXPECT_EQ(j["preflight"]["fits"], false);
  EXPECT_EQ(j["preflight"]["forced"], true);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                        "--max-tokens", "1192", "--no-memory-check"},
                       {{"MEMFIT_MEMORY_LIMIT", "8GiB"}})
                .exit_code,
            0);
}

TEST(PreflightGenerate, PromptFileCountsItsBytes) {
  std::string path = (std::filesystem::temp_directory_path() / "memfit-prompt.txt").string();
  std::ofstream(path) << std::string(1000, 'x');
  // 1000 bytes + 24 new = 1024 tokens: 40 x 2 x 8 x 128 x 2 B x 1024 = 167,772,160.
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-file", path,
                       "--max-tokens", "24", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kv_bytes_total"], 167772160u);
  EXPECT_NE(r.err.find("counted as 1000 prompt tokens"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(PreflightGenerate, UsageErrors) {
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--max-tokens", "5"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "5"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "5",
                        "--prompt-file", "/etc/hostname", "--max-tokens", "5"})
                .exit_code,
            2);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-file", "/nonexistent",
                        "--max-tokens", "5"})
                .exit_code,
            2);
}

TEST(PreflightGenerate, LlamaCppContextIsPromptPlusNewTokensUnlessGiven) {
  // 3,000 + 1,000 = 4,000 tokens, padded to 4,096 cells. Qwen3-14B: K + V
  // = 40 layers x 4,096 cells x 2 x 8 x 128 x 2 B = 671,088,640 B.
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--engine", "llamacpp",
                       "--prompt-tokens", "3000", "--max-tokens", "1000", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["inputs"]["ctx_size"], 4000);
  EXPECT_EQ(j["inputs"]["n_ctx"], 4096);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 671088640u);
  EXPECT_EQ(j["preflight"]["fits"], true);
  // -c wins: 8,192 cells, twice the KV.
  r = run_memfit({"preflight", "generate", "-m", kExample, "--engine", "llamacpp",
                  "--prompt-tokens", "3000", "--max-tokens", "1000", "-c", "8192", "--json"},
                 k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["n_ctx"], 8192);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 1342177280u);
}

TEST(PreflightServe, SlotsAndThePagedKvBudget) {
  // ctx 32768 over 4 slots: 8192 per slot, batch 4.
  // kv 1,342,177,280 x 4 = 5,368,709,120; activation 2 x 4 x 2048 x 22528 x 2
  // + 4 x 151936 x 2 = 739,412,992; overhead 0.2 x (8,307,783,680 + 5,368,709,120)
  // = 2,735,298,560; total 17,151,204,352.
  // auto KV budget: floor((68,719,476,736 - 739,412,992) / 1.2) - 8,307,783,680
  //   = 56,650,053,120 - 8,307,783,680 = 48,342,269,440.
  // workspace (batch 4): 2 x (128 + 4) x 128 x 129 x 4 = 17,436,672.
  // blocks: floor((48,342,269,440 - 17,436,672) / (32 x 163,840)) = 9217.
  // prompt cache: min(68,719,476,736 - 17,151,204,352, 5,368,709,120) = 5,368,709,120.
  auto r = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["max_tokens"], 8192);
  EXPECT_EQ(j["inputs"]["batch"], 4);
  EXPECT_EQ(j["total_bytes"], 17151204352u);
  const nlohmann::json& s = j["serve"];
  EXPECT_EQ(s["active_slots"], 4);
  EXPECT_EQ(s["effective_context"], 8192);
  EXPECT_EQ(s["kv_cache_budget_bytes"], 48342269440u);
  EXPECT_EQ(s["kv_block_size"], 32);
  EXPECT_EQ(s["kv_blocks"], 9217);
  EXPECT_EQ(s["per_slot_overhead_bytes"], 17436672u);
  EXPECT_EQ(s["prompt_cache_capacity_bytes"], 5368709120u);
  EXPECT_EQ(j["preflight"]["mode"], "serve");
}

TEST(PreflightServe, MaxBatchSizeWinsAndNoBatchIsOneSlot) {
  auto r = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                       "--n-parallel", "8", "--max-batch-size", "2", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["serve"]["effective_context"], 16384);
  auto one = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                         "--no-batch", "--json"},
                        k64GiB);
  EXPECT_EQ(nlohmann::json::parse(one.out)["serve"]["active_slots"], 1);
  EXPECT_EQ(nlohmann::json::parse(one.out)["serve"]["effective_context"], 32768);
  // ctx 0: 8192 per slot.
  auto zero = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "0", "--json"},
                         k64GiB);
  EXPECT_EQ(nlohmann::json::parse(zero.out)["serve"]["effective_context"], 8192);
}

TEST(PreflightServe, KvBudgetNoneAndBytes) {
  auto none = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                          "--kv-cache-budget", "none", "--json"},
                         k64GiB);
  EXPECT_TRUE(nlohmann::json::parse(none.out)["serve"]["kv_cache_budget_bytes"].is_null());
  // 1 GiB: floor((1,073,741,824 - 17,436,672) / 5,242,880) = 201.
  auto bytes = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                           "--kv-cache-budget", "1GiB", "--json"},
                          k64GiB);
  EXPECT_EQ(nlohmann::json::parse(bytes.out)["serve"]["kv_blocks"], 201);
}

TEST(PreflightServe, ErrorsAndVerdicts) {
  // 1000 over 4 slots is 250 tokens per slot: a usage error.
  auto tiny = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "1000"});
  EXPECT_EQ(tiny.exit_code, 2);
  EXPECT_EQ(tiny.err,
            "memfit: --ctx-size: 1000 over 4 slots leaves 250 tokens per slot, under the 512 a "
            "slot needs; raise the context size or lower the slot count\n");
  EXPECT_EQ(run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                        "--kv-cache-budget", "lots"})
                .exit_code,
            2);
  // total 17,151,204,352 > 15 GiB = 16,106,127,360.
  EXPECT_EQ(run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768"},
                       {{"MEMFIT_MEMORY_LIMIT", "15GiB"}})
                .exit_code,
            3);
  EXPECT_EQ(run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768", "--force"},
                       {{"MEMFIT_MEMORY_LIMIT", "15GiB"}})
                .exit_code,
            0);
  EXPECT_EQ(run_memfit({"preflight"}).exit_code, 2);
}

}  // namespace
}  // namespace memfit
