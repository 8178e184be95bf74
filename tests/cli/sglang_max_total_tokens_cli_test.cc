// SGLang's --max-total-tokens from the command line (docs/engine-sglang.md,
// "Rules"): it caps the pool and enters the launch command; on a hybrid SWA
// model whose window layers take other bytes a token the cap is not applied,
// and a warning says so.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kLlama8BSglangMaxTotalTokensCli = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";
const std::string kMimoConfig =
    std::string(MEMFIT_SOURCE_DIR) + "/tests/data/logs/sglang/sglang-18039-mimo-v2-flash-tp4-main.config.json";

TEST(SglangCli, MaxTotalTokensCapsThePoolAndEntersTheCommand) {
  auto r = run_memfit({"inspect", "-m", kLlama8BSglangMaxTotalTokensCli, "--engine", "sglang", "--gpu", "h100", "--context-length", "8192",
                       "--max-total-tokens", "20480", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["max_total_num_tokens"], 20480);
  // The default requests still come from the 414,010 tokens the memory allows.
  EXPECT_EQ(j["max_running_requests"], 4096);
  EXPECT_NE(j["launch_command"].get<std::string>().find("--max-total-tokens 20480"), std::string::npos);
}

TEST(SglangCli, MaxTotalTokensOnAPerPoolHybridSwaModelWarns) {
  std::ifstream in(kMimoConfig);
  std::stringstream config;
  config << in.rdbuf();
  TempDir dir;
  dir.write_file("config.json", config.str());
  auto r = run_memfit({"inspect", "-m", dir.path(), "--engine", "sglang", "--gpu", "h100", "--tensor-parallel", "4",
                       "--context-length", "32768", "--max-total-tokens", "100000"});
  EXPECT_NE(r.err.find("--max-total-tokens is not applied to a hybrid SWA model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace memfit
