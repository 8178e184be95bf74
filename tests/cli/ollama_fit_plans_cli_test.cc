// fit --engine ollama --solve num-gpu lists the plans that fit at each KV
// type ranked by decode speed, each with its step's cost (docs/speed.md,
// "Plans chosen for speed"; src/engines/ollama/fit_plans.h).
//
// Qwen3-8B as llama-quantize's Q4_K_M (4.68 GiB) on an RTX 4060 (272 GB/s,
// 8188 MiB), num_ctx 32768, the host at 60 GB/s. Its KV cache a token is
// 36 layers x K and V of 8 heads x 128 = 1,024 elements each:
//   f16   2 x 1,024 x 2 B                 = 4,096 B a layer, 147,456 B a token
//   q8_0  2 x 32 blocks x 34 B            = 2,176 B a layer,  78,336 B a token
//   q4_0  2 x 32 blocks x 18 B            = 1,152 B a layer,  41,472 B a token
// and at 32,768 tokens 4,831,838,208 B, 2,566,914,048 B and 1,358,954,496 B.
// Every layer (37: 36 blocks and the output) fits with q8_0 and q4_0; with
// f16 num_gpu 31 fits: the last 31 blocks, the output layer and 5 blocks on
// the host (Ollama's llama.cpp offloads the output layer only past
// n_layer: i_gpu_start = n_layer - num_gpu; docs/engine-ollama.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/paths.h"
#include "support/run_command.h"

namespace memfit {
namespace {

using testing::run_memfit;
using Json = nlohmann::json;

const std::string kQwen3_8B = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/qwen3/Qwen3-8B";

testing::CommandResult fit(std::vector<std::string> extra) {
  std::vector<std::string> args = {"fit",          "-m",           kQwen3_8B, "--engine", "ollama",
                                   "--quant",      "Q4_K_M",       "--gpu",   "rtx4060",  "--num-ctx",
                                   "32768",        "--host-bandwidth", "60",  "--solve",  "num-gpu",
                                   // the last blocks first: v0.24.0's runner (llama-server from v0.30.0
                                   // offloads the output layer first)
                                   "--ollama-version", "0.24.0"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_memfit(args);
}

TEST(OllamaFitPlansCli, PlansAreRankedByDecodeSpeedNotByKvType) {
  testing::CommandResult r = fit({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  // The answer at the request's own KV type, f16: 29, the GPU holding the
  // logits with the copy of the host's output matrix op offload reads
  // (Ollama's -ngl leaves the output layer on the host; docs/llamacpp-rules.md,
  // "Compute buffers").
  EXPECT_EQ(j["num_gpu"], 29);
  const Json& plans = j["plans_by_speed"];
  ASSERT_EQ(plans.size(), 4u) << plans.dump(1);
  // The plan asked (every layer, f16) first; then the KV types in order of
  // speed: q4_0 reads the least cache, then q8_0, then f16 with 8 layers on
  // the host. Listed unranked they would be f16, q8_0, q4_0.
  const std::vector<std::string> kv = {"f16", "q4_0", "q8_0", "f16"};
  const std::vector<uint64_t> value = {37, 37, 37, 29};
  for (size_t i = 0; i < plans.size(); ++i) {
    EXPECT_EQ(plans[i]["cache_type_k"], kv[i]) << i;
    EXPECT_EQ(plans[i]["cache_type_v"], kv[i]) << i;
    EXPECT_EQ(plans[i]["value"], value[i]) << i;
    EXPECT_EQ(plans[i]["n_gpu_layers"], value[i]) << i;
    EXPECT_EQ(plans[i]["n_cpu_moe"], 0) << i;
    EXPECT_EQ(plans[i]["asked"], i == 0) << i;
    EXPECT_EQ(plans[i]["fits"], i != 0) << i;
    EXPECT_EQ(plans[i]["step"].is_null(), i == 0) << i;
    EXPECT_TRUE(plans[i]["not_counted"]["devices"].empty()) << i;  // the host's bandwidth is given
  }
  for (size_t i = 2; i < plans.size(); ++i) {
    EXPECT_GT(plans[i - 1]["decode_tokens_per_second"].get<double>(),
              plans[i]["decode_tokens_per_second"].get<double>())
        << i;
  }
  // Every layer on the GPU: the whole cache is read there at the end of
  // the context. q8_0 reads 2,566,914,048 - 1,358,954,496 = 1,207,959,552
  // B more a token than q4_0: 1,207,959,552 / 272e9 = 0.0044410 s.
  const Json& q4 = plans[1]["speed"]["devices"][0];
  const Json& q8 = plans[2]["speed"]["devices"][0];
  EXPECT_EQ(q4["kv_bytes"], 1358954496u);
  EXPECT_EQ(q8["kv_bytes"], 2566914048u);
  EXPECT_NEAR(q8["bound_seconds_per_token_end"].get<double>() - q4["bound_seconds_per_token_end"].get<double>(),
              1207959552 / 272e9, 1e-9);
  EXPECT_EQ(plans[0]["speed"]["devices"][0]["kv_bytes"], 4831838208u);
}

TEST(OllamaFitPlansCli, TheTextSaysEachStepsCost) {
  testing::CommandResult r = fit({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("\nPlans by decode speed at 32768 tokens (docs/speed.md):\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string list = r.out.substr(at);
  EXPECT_NE(list.find("\n  num_gpu 37, KV cache f16 (asked): does not fit, decode "), std::string::npos) << list;
  EXPECT_NE(list.find("\n  num_gpu 37, KV cache f16 -> q4_0: fits, decode "), std::string::npos) << list;
  EXPECT_NE(list.find("\n  num_gpu 37, KV cache q4_0 -> q8_0: fits, decode "), std::string::npos) << list;
  EXPECT_NE(list.find("\n  num_gpu 37 -> 29, KV cache q8_0 -> f16: fits, decode "), std::string::npos) << list;
  EXPECT_LT(list.find("q4_0 -> q8_0"), list.find("q8_0 -> f16"));
}

TEST(OllamaFitPlansCli, NumCtxRanksNothing) {
  testing::CommandResult r = run_memfit({"fit", "-m", kQwen3_8B, "--engine", "ollama", "--quant", "Q4_K_M",
                                         "--gpu", "rtx4060", "--solve", "num-ctx", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Json::parse(r.out).contains("plans_by_speed"));
}

TEST(OllamaFitPlansCli, NumCtxIsNotAnsweredByLayersWhoseExpertsStayOnTheHost) {
  // Qwen3-30B-A3B as Q4_K_M is 17.28 GiB of weights; an RTX 4060 has
  // 8188 MiB. At v0.32.15 llama.cpp's --fit offloads all 49 layers with
  // most layers' experts on the host ("overflowing"), which is not every
  // layer on the GPU: no num_ctx answers. A 4090 (24 GiB) holds them all
  // whole at the trained 40,960.
  const std::string kMoe = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/qwen3_moe/Qwen3-30B-A3B";
  testing::CommandResult small = run_memfit(
      {"fit", "-m", kMoe, "--engine", "ollama", "--quant", "Q4_K_M", "--gpu", "rtx4060", "--solve", "num-ctx"});
  EXPECT_NE(small.out.find("no num_ctx fits"), std::string::npos) << small.out << small.err;
  testing::CommandResult large = run_memfit(
      {"fit", "-m", kMoe, "--engine", "ollama", "--quant", "Q4_K_M", "--gpu", "rtx4090", "--solve", "num-ctx"});
  EXPECT_NE(large.out.find("num_ctx 40960: the largest"), std::string::npos) << large.out << large.err;
}

}  // namespace
}  // namespace memfit
