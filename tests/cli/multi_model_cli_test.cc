// `memfit inspect -m A ... -m B ...` as a whole process: which options are
// whose, the sum per device, the JSON schema and the refusals
// (docs/multi-model.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::run_memfit;

const std::string kExampleMultiModelCli = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

// The example under mlxcel at 8192 tokens, fp16 KV
// (tests/engines/mlxcel/estimate_test.cc): weights 8,307,783,680 B, KV 40
// layers x 2 x 8 heads x 128 x 2 B x 8192 = 1,342,177,280 B, headroom
// 2,114,845,440 B; 11,764,806,400 B in all.
constexpr uint64_t kExampleTotal = 11764806400u;

TEST(MultiModelCli, SharedOptionsComeFirstAndEachModelsFollowItsM) {
  // --max-tokens 4096 for both, but the second model's own 8192 replaces
  // it: KV 40 x 2 x 8 x 128 x 2 B x 4096 = 671,088,640 B, then
  // 1,342,177,280 B.
  auto r = run_memfit({"inspect", "--json", "--memory-limit", "24GiB", "--max-tokens", "4096", "-m", kExampleMultiModelCli,
                       "-m", kExampleMultiModelCli, "--max-tokens", "8192"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["models"].size(), 2u);
  EXPECT_EQ(j["models"][0]["kv_bytes_total"], 671088640u);
  EXPECT_EQ(j["models"][1]["kv_bytes_total"], 1342177280u);
  EXPECT_EQ(j["models"][1]["total_bytes"], kExampleTotal);
  EXPECT_EQ(j["models"][0]["model"], kExampleMultiModelCli);
  // Each model's report is the one `inspect -m` prints for it alone.
  auto alone = run_memfit({"inspect", "--json", "--memory-limit", "24GiB", "-m", kExampleMultiModelCli});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  json own = json::parse(alone.out);
  json second = j["models"][1];
  for (json* report : {&own, &second}) report->erase("ram_available_bytes");
  EXPECT_EQ(second, own);
  // One device, the sum of the two totals within the 24 GiB
  // (25,769,803,776 B).
  ASSERT_EQ(j["devices"].size(), 1u);
  const json& device = j["devices"][0];
  const uint64_t first = j["models"][0]["total_bytes"];
  EXPECT_EQ(device["used_bytes"], first + kExampleTotal);
  EXPECT_EQ(device["budget_bytes"], 25769803776u);
  EXPECT_EQ(device["reserved_fraction"], 0);
  EXPECT_EQ(device["models"][1]["index"], 1);
  EXPECT_EQ(device["models"][1]["bytes"], kExampleTotal);
  EXPECT_EQ(j["fits"], true);

  TempDir dir;
  auto check = testing::run_command({"/usr/bin/env", "python3", "-c",
                                     "import json, sys, jsonschema\n"
                                     "schema = json.load(open(sys.argv[1]))\n"
                                     "jsonschema.Draft202012Validator.check_schema(schema)\n"
                                     "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
                                     " cls=jsonschema.Draft202012Validator)\n",
                                     std::string(MEMFIT_SOURCE_DIR) + "/schema/multi-model-report.schema.json",
                                     dir.write_file("together.json", r.out)});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST(MultiModelCli, TwiceTheExampleIsShortOfTwentyGibibytes) {
  // 2 x 11,764,806,400 = 23,529,612,800 B against 20 GiB
  // (21,474,836,480 B): each model fits alone, not both. inspect exits 0.
  auto r = run_memfit({"inspect", "--memory-limit", "20GiB", "-m", kExampleMultiModelCli, "-m", kExampleMultiModelCli});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("── Model 1 of 2 ──\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("── Model 2 of 2 ──\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nDOES NOT FIT together: cpu cannot hold its models\n"), std::string::npos) << r.out;
  auto j = run_memfit({"inspect", "--json", "--memory-limit", "20GiB", "-m", kExampleMultiModelCli, "-m", kExampleMultiModelCli});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report["models"][0]["fits"], true);
  EXPECT_EQ(report["devices"][0]["used_bytes"], 23529612800u);
  EXPECT_EQ(report["devices"][0]["fits"], false);
  EXPECT_EQ(report["fits"], false);
}

TEST(MultiModelCli, RefusalsAreOneLine) {
  auto twice = run_memfit({"inspect", "-m", kExampleMultiModelCli, "--max-tokens", "1", "--max-tokens", "2"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "memfit: --max-tokens: is given twice\n");
  EXPECT_EQ(twice.out, "");

  auto compare = run_memfit({"inspect", "--compare", "-m", kExampleMultiModelCli, "-m", kExampleMultiModelCli});
  EXPECT_EQ(compare.exit_code, 2);
  EXPECT_EQ(compare.err, "memfit: --compare takes one model\n");

  // A model's own error says which model; the flag is the CLI's.
  auto second = run_memfit({"inspect", "--memory-limit", "24GiB", "-m", kExampleMultiModelCli, "-m", kExampleMultiModelCli, "--batch", "0"});
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_EQ(second.err, "memfit: --batch: model 2 ('" + kExampleMultiModelCli + "'): expected a positive integer, got 0\n");
}

}  // namespace
}  // namespace memfit
