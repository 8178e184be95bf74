// Every engine's `inspect --json` report against
// schema/inspect-report.schema.json: the schema names each engine and
// holds its branch, so a report an engine adds a shape to fails here
// rather than in an embedder's validator.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kLlama8B = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";
const std::string kDenseGguf = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/llama-dense.gguf";

struct EngineReport {
  std::string engine;
  std::vector<std::string> args;
};

TEST(ReportSchema, EveryEnginesJsonReportValidates) {
  const std::vector<EngineReport> reports = {
      {"mlxcel", {"-m", kLlama8B, "--engine", "mlxcel", "--mac", "m4-max-128gb"}},
      {"llamacpp", {"-m", kDenseGguf, "--engine", "llamacpp", "--gpu", "rtx4090"}},
      {"mlx-lm", {"-m", kLlama8B, "--engine", "mlx-lm", "--mac", "m4-max-128gb"}},
      {"vllm", {"-m", kLlama8B, "--engine", "vllm", "--gpu", "h100", "--max-model-len", "8192"}},
      {"sglang", {"-m", kLlama8B, "--engine", "sglang", "--gpu", "h100", "--context-length", "8192"}},
      {"ollama", {"-m", kDenseGguf, "--engine", "ollama", "--gpu", "rtx4090"}},
      // An embedding run: its speed has no decode figure, and no_decode.
      {"llamacpp", {"-m", kDenseGguf, "--engine", "llamacpp", "--gpu", "rtx4090", "--embedding"}},
  };
  for (const EngineReport& report : reports) {
    std::vector<std::string> args = {"inspect"};
    args.insert(args.end(), report.args.begin(), report.args.end());
    args.push_back("--json");
    auto r = run_memfit(args);
    ASSERT_EQ(r.exit_code, 0) << report.engine << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["engine"], report.engine);
    TempDir dir;
    auto check = testing::check_report_schema(dir.write_file("report.json", r.out));
    EXPECT_EQ(check.exit_code, 0) << report.engine << ": " << check.err;
  }
}

}  // namespace
}  // namespace memfit
