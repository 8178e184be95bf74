// `memfit fit` under the llama.cpp profile (llamacpp_fit.h): the largest
// --ctx-size or --parallel per cache type, the llama-server flags at the
// answer, and the solve names each engine takes. Budgets are set from
// `memfit inspect`'s total at a known answer, so the tests hold whatever
// the compute model says; each checks one step further does not fit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::run_memfit;

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

class LlamaCppFit : public ::testing::Test {
 protected:
  void SetUp() override { qwen3_8b_gguf().write(gguf_); }

  // `memfit inspect --json` on the GGUF model with `args` (a 1 GiB budget:
  // only the total is read).
  uint64_t total_at(std::vector<std::string> args) const {
    std::vector<std::string> all = {"inspect", "--json", "-m", gguf_, "--memory-limit", "1GiB"};
    all.insert(all.end(), args.begin(), args.end());
    testing::CommandResult r = run_memfit(all);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out)["total_bytes"].get<uint64_t>() : 0;
  }

  bool fits_at(std::vector<std::string> args, uint64_t budget) const { return total_at(args) <= budget; }

  testing::CommandResult fit(std::vector<std::string> args, uint64_t budget) const {
    std::vector<std::string> all = {"fit", "-m", gguf_, "--memory-limit", std::to_string(budget) + "B"};
    all.insert(all.end(), args.begin(), args.end());
    return run_memfit(all);
  }

  TempDir dir_;
  const std::string gguf_ = dir_.file_path("qwen3-8b.gguf");
};

TEST_F(LlamaCppFit, LargestContextPerCacheTypeAndTheServerFlags) {
  // The budget is the total at --ctx-size 16,384; 16,385 pads to 16,640
  // cells: 256 more of 36 layers x (2,048 + 2,048) B = 37,748,736 B of KV.
  const uint64_t budget = total_at({"-c", "16384"});
  ASSERT_FALSE(fits_at({"-c", "16385"}, budget));
  testing::CommandResult r = fit({"--solve", "ctx-size", "--json"}, budget);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["solve"], "ctx-size");
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["value"], 16384);
  EXPECT_EQ(j["cache_type"], "f16");
  EXPECT_EQ(j["capped"], false);
  EXPECT_EQ(j["budget_bytes"], budget);
  EXPECT_EQ(j["budget_source"], "explicit");
  // llama-server's --parallel default is auto (4 slots), so -np is said.
  EXPECT_EQ(j["flags"], json::array({"-c", "16384", "-np", "1"}));
  EXPECT_EQ(j["warnings"], json::array());
  EXPECT_EQ(j["report"]["total_bytes"], budget);
  EXPECT_EQ(j["report"]["inputs"]["ctx_size"], 16384);

  ASSERT_EQ(j["by_cache_type"].size(), 3u);
  // No --gpu or --mac: each row's speed says so.
  const json unknown_speed = {{"decode_tokens_per_second", nullptr},
                              {"prefill_tokens_per_second", nullptr},
                              {"time_to_first_token_s", nullptr},
                              {"unknown", "give --gpu or --mac"}};
  EXPECT_EQ(j["by_cache_type"][0],
            (json{{"cache_type", "f16"}, {"value", 16384}, {"capped", false}, {"speed", unknown_speed}}));
  // q8_0 rows are 1,088 B (1,024 / 32 x 34) for f16's 2,048: the same KV
  // bytes hold about 16,384 x 2,048 / 1,088 = 30,840 cells; the answer is
  // a multiple of 256 at or below that which fits where one more does not.
  const json& q8 = j["by_cache_type"][1];
  EXPECT_EQ(q8["cache_type"], "q8_0");
  ASSERT_TRUE(q8["value"].is_number());
  const uint64_t q8_value = q8["value"];
  EXPECT_GT(q8_value, 16384u);
  EXPECT_LE(q8_value, 30840u);
  EXPECT_EQ(q8_value % 256, 0u);
  EXPECT_EQ(q8["capped"], false);
  EXPECT_TRUE(fits_at({"-c", std::to_string(q8_value), "-ctk", "q8_0", "-ctv", "q8_0"}, budget));
  EXPECT_FALSE(fits_at({"-c", std::to_string(q8_value + 1), "-ctk", "q8_0", "-ctv", "q8_0"}, budget));
  // q4_0 rows are 576 B: the training context, 40,960 cells, takes
  // 36 x 40,960 x 2 x 576 B = 1,698,693,120 B of KV, less than f16's
  // 2,415,919,104 at 16,384: capped.
  EXPECT_EQ(j["by_cache_type"][2],
            (json{{"cache_type", "q4_0"}, {"value", 40960}, {"capped", true}, {"speed", unknown_speed}}));
  EXPECT_TRUE(j["plans_by_speed"].is_null());
}

TEST_F(LlamaCppFit, MaxTokensIsCtxSizeAndTheTextNamesTheFlags) {
  const uint64_t budget = total_at({"-c", "16384"});
  testing::CommandResult r = fit({"--solve", "max-tokens"}, budget);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Largest ctx-size that fits ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n  KV cache f16:   16384\n    llama-server -m "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" -c 16384 -np 1 -fa auto -ctk f16 -ctv f16\n  KV cache q8_0:  "),
            std::string::npos)
      << r.out;
  // Then the llama.cpp report at the answer.
  EXPECT_NE(r.out.find("(engine llamacpp)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n_ctx 16384 (1 x 16384 cells)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nFITS: "), std::string::npos) << r.out;
}

TEST_F(LlamaCppFit, TheAskedCacheTypeIsTheAnswer) {
  const uint64_t budget = total_at({"-c", "16384", "-ctk", "q8_0", "-ctv", "q8_0"});
  testing::CommandResult r = fit({"--solve", "ctx-size", "-ctk", "q8_0", "-ctv", "q8_0", "--json"}, budget);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["cache_type"], "q8_0");
  EXPECT_EQ(j["value"], 16384);
  EXPECT_EQ(j["by_cache_type"][1]["value"], 16384);
  EXPECT_EQ(j["flags"], json::array({"-c", "16384", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"}));
  EXPECT_EQ(j["report"]["inputs"]["cache_type_v"], "q8_0");

  // K and V of different types: the answer is solved as asked, apart
  // from the table's K = V rows.
  const uint64_t mixed = total_at({"-c", "8192", "-ctk", "q8_0", "-ctv", "f16", "-fa", "on"});
  r = fit({"--solve", "ctx-size", "-ctk", "q8_0", "-ctv", "f16", "-fa", "on", "--json"}, mixed);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json m = json::parse(r.out);
  EXPECT_EQ(m["cache_type"], "q8_0");
  EXPECT_EQ(m["value"], 8192);
  EXPECT_EQ(m["flags"], json::array({"-c", "8192", "-np", "1", "-ctk", "q8_0", "-fa", "on"}));
}

TEST_F(LlamaCppFit, LargestParallelAtAContext) {
  // The budget is the total at -c 16384 -np 4 (4 streams of 4,096 cells).
  // The cells are not monotone in the streams (5, 6 and 7 pad to 16,640,
  // 16,896 and 17,920; 8 and 16 keep 16,384 but hold more logits, 4 B x
  // 151,936 per sequence, and smaller compute buffers), so the answer is
  // the largest count of the 64 that -c 16384 allows (256 cells each)
  // whose total is within the budget: 4 or more.
  const uint64_t budget = total_at({"-c", "16384", "-np", "4"});
  uint64_t expected = 0;
  for (uint64_t n = 1; n <= 64; ++n) {
    if (fits_at({"-c", "16384", "-np", std::to_string(n)}, budget)) expected = n;
  }
  ASSERT_GE(expected, 4u);
  const std::string np = std::to_string(expected);
  testing::CommandResult r = fit({"--solve", "parallel", "-c", "16384", "--json"}, budget);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["solve"], "parallel");
  EXPECT_EQ(j["value"], expected);
  EXPECT_EQ(j["capped"], expected == 64);
  EXPECT_EQ(j["flags"], json::array({"-c", "16384", "-np", np}));
  EXPECT_EQ(j["report"]["inputs"]["n_seq"], expected);
  EXPECT_EQ(j["report"]["total_bytes"], total_at({"-c", "16384", "-np", np}));

  // slots is its synonym; the text names the context it splits.
  r = fit({"--solve", "slots", "-c", "16384"}, budget);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Largest parallel at ctx-size 16384 that fits ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" -c 16384 -np " + np + " -fa auto -ctk f16 -ctv f16\n"), std::string::npos)
      << r.out;
}

TEST_F(LlamaCppFit, NothingFitsIsNull) {
  // 100 MiB is less than the weights alone (689,799,168 B).
  testing::CommandResult r = fit({"--solve", "ctx-size", "--json"}, 100ull << 20);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_TRUE(j["flags"].is_null());
  EXPECT_TRUE(j["report"].is_null());
  for (const json& row : j["by_cache_type"]) EXPECT_TRUE(row["value"].is_null()) << row;
  r = fit({"--solve", "ctx-size"}, 100ull << 20);
  EXPECT_NE(r.out.find("  KV cache f16:   nothing fits: even the smallest context is over the "
                       "budget\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("llama-server -m"), std::string::npos) << r.out;
}

TEST_F(LlamaCppFit, EnoughForTheTrainingContextIsCapped) {
  testing::CommandResult r = fit({"--solve", "ctx-size", "--json"}, 64ull << 30);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["value"], 40960);
  EXPECT_EQ(j["capped"], true);
  r = fit({"--solve", "ctx-size"}, 64ull << 30);
  EXPECT_NE(r.out.find("  KV cache f16:   40960 (the training context)\n"), std::string::npos) << r.out;
}

TEST_F(LlamaCppFit, UsageErrorsSayWhatEachEngineSolves) {
  testing::CommandResult r = fit({"--solve", "batch"}, 16ull << 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "memfit: --solve: batch is an mlxcel solve; llamacpp solves ctx-size (or max-tokens), "
            "parallel (or slots), gpu-layers and n-cpu-moe\n");
  r = fit({"--solve", "ctx-size", "-c", "4096"}, 16ull << 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --ctx-size: is what solving ctx-size finds: leave it out\n");
  r = fit({"--solve", "parallel", "-np", "2"}, 16ull << 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --parallel: is what solving parallel finds: leave it out\n");
  // --max-tokens is the context too under llamacpp (request.h).
  r = fit({"--solve", "ctx-size", "--max-tokens", "4096"}, 16ull << 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --max-tokens: is what solving ctx-size finds: leave it out\n");
  r = fit({"--solve", "parallel", "--max-tokens", "4096", "-c", "4096"}, 16ull << 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "memfit: --max-tokens: and --ctx-size are both the context: give one (--ctx-size is "
            "llama.cpp's name)\n");

  // mlxcel names its own solves.
  r = run_memfit({"fit", "-m", kExample, "--solve", "ctx-size"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --solve: ctx-size is a llamacpp solve; mlxcel solves max-tokens, batch or slots\n");
  r = run_memfit({"fit", "-m", kExample, "--solve", "max-tokens", "-np", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --parallel: is a llama.cpp setting: give engine llamacpp\n");
}

// --engine llamacpp on a safetensors model solves the same way.
TEST(LlamaCppFitSafetensors, EngineLlamaCppOnTheExample) {
  testing::CommandResult r = run_memfit({"fit", "-m", kExample, "--engine", "llamacpp", "--solve",
                                         "ctx-size", "--memory-limit", "64GiB", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["report"]["model_type"], "qwen3");
  // The example declares 40,960 tokens of training context; 64 GiB holds it.
  EXPECT_EQ(j["value"], 40960);
  EXPECT_EQ(j["capped"], true);
}

// --solve gpu-layers on a mixture of experts that does not fit an 8 GB GPU
// (Qwen3-30B-A3B at Q4_K_M, 48 blocks): the plans are ranked by speed,
// the plan asked (-ngl 49, every layer) first; keeping some blocks'
// experts on the host with every layer on the GPU reads fewer bytes a
// token there (only the 8 of 128 experts a token uses) than leaving whole
// blocks there, so such a plan ranks first among those that fit, and it
// is what inspect gives at its flags.
TEST(LlamaCppFitSpeed, AMixtureOfExpertsRanksExpertOffloadFirst) {
  const std::string moe = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3_moe/Qwen3-30B-A3B";
  const std::vector<std::string> common = {"-m", moe, "--engine", "llamacpp", "--quant", "Q4_K_M",
                                           "--gpu", "rtx4060", "-c", "16384", "--json"};
  std::vector<std::string> args = {"fit", "--solve", "gpu-layers"};
  args.insert(args.end(), common.begin(), common.end());
  testing::CommandResult r = run_memfit(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json plans = json::parse(r.out)["plans_by_speed"];
  ASSERT_GE(plans.size(), 3u);
  EXPECT_EQ(plans[0]["asked"], true);
  EXPECT_EQ(plans[0]["n_gpu_layers"], 49);
  EXPECT_EQ(plans[0]["n_cpu_moe"], 0);
  EXPECT_EQ(plans[0]["fits"], false);
  EXPECT_EQ(plans[0]["not_counted"]["bytes_per_token"], 0);
  for (size_t i = 2; i < plans.size(); ++i) {
    EXPECT_LE(plans[i - 1]["not_counted"]["bytes_per_token"].get<uint64_t>(),
              plans[i]["not_counted"]["bytes_per_token"].get<uint64_t>());
  }
  const json& best = plans[1];
  EXPECT_EQ(best["fits"], true);
  EXPECT_EQ(best["n_gpu_layers"], 49);
  ASSERT_GT(best["n_cpu_moe"].get<uint64_t>(), 0u);
  EXPECT_EQ(best["not_counted"]["devices"], json::array({"cpu"}));
  std::vector<std::string> at = {"inspect", "--n-cpu-moe", std::to_string(best["n_cpu_moe"].get<uint64_t>()),
                                 "-ctk", best["cache_type_k"], "-ctv", best["cache_type_v"]};
  at.insert(at.end(), common.begin(), common.end());
  testing::CommandResult ins = run_memfit(at);
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  const json i = json::parse(ins.out);
  EXPECT_EQ(i["fits"], true);
  EXPECT_EQ(i["speed"], best["speed"]);
}

// The -c flag is the slots' total context under mlxcel, as before.
TEST(MlxcelFit, CtxSizeIsTheSlotsTotal) {
  testing::CommandResult r = run_memfit(
      {"fit", "-m", kExample, "--solve", "slots", "-c", "65536", "--memory-limit", "64GiB", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["solve"], "slots");
  ASSERT_TRUE(j["value"].is_number());
  // Each slot keeps at least 512 tokens of the 65,536.
  EXPECT_LE(j["value"].get<uint64_t>(), 65536u / 512);
  EXPECT_EQ(j["report"]["inputs"]["max_tokens"], 65536 / j["value"].get<uint64_t>());
}

}  // namespace
}  // namespace memfit
