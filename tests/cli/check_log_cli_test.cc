// `memfit check-log` on the command line: the table, the JSON against
// schema/check-log.schema.json, standard input, and the one-line errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_command;
using testing::run_memfit;

const std::string kLogs = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/logs";
const std::string kPinned = kLogs + "/llamacpp/llamacpp-pinned-llama-dense-ctx4096.log";

TEST(CheckLogCli, TablePutsMemfitBesideThePrint) {
  auto r = run_memfit({"check-log", kPinned});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("llama.cpp (CPU) on CPU\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model: rebuilt from the log's metadata dump (20 entries): llama, 4 layers"),
            std::string::npos) << r.out;
  // 8.00 MiB printed, 8,388,608 B priced: ratio 1, exact.
  EXPECT_NE(r.out.find("CPU        kv_cache                    8.00 MiB         8.00 MiB   1.0000  "
                       "exact, within the print"),
            std::string::npos) << r.out;
}

TEST(CheckLogCli, JsonMatchesItsSchema) {
  auto r = run_memfit({"check-log", kPinned, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["figures"].size(), 4u);
  TempDir dir;
  auto check = run_command({"/usr/bin/env", "python3", "-c",
                            "import json, sys, jsonschema\n"
                            "schema = json.load(open(sys.argv[1]))\n"
                            "jsonschema.Draft202012Validator.check_schema(schema)\n"
                            "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
                            " cls=jsonschema.Draft202012Validator)\n",
                            std::string(MEMFIT_SOURCE_DIR) + "/schema/check-log.schema.json",
                            dir.write_file("check.json", r.out)});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST(CheckLogCli, ReadsStandardInput) {
  auto r = run_command({"/bin/sh", "-c", std::string(MEMFIT_CLI_PATH) + " check-log - --json < " + kPinned});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["model_source"], "log");
}

TEST(CheckLogCli, ConfigBesideAVllmLog) {
  const std::string slug = kLogs + "/vllm/vllm-10517-llama31-8b-rtx3090-20k";
  auto r = run_memfit({"check-log", slug + ".log", "--config", slug + ".config.json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model_source"], "config");
  EXPECT_EQ(j["profile"], "vllm");
  EXPECT_EQ(j["figures"][0]["memfit"], 16'094'076'928u);  // log_check_test.cc works it out
}

TEST(CheckLogCli, ErrorsAreOneLine) {
  auto missing = run_memfit({"check-log", kLogs + "/no-such.log"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "memfit: check-log: '" + kLogs + "/no-such.log': not a readable file\n");
  TempDir dir;
  auto other = run_memfit({"check-log", dir.write_file("x.log", "hello\n")});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err, "memfit: check-log: runtime log: not a log memfit reads: no line of "
                       "llama.cpp, Ollama, vLLM, SGLang or mlx-lm\n");
  auto size = run_memfit({"check-log", kPinned, "--gpu-memory-total", "lots"});
  EXPECT_EQ(size.exit_code, 2);
}

}  // namespace
}  // namespace memfit
