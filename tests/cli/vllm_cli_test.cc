// `--engine vllm` on the command line: inspect's JSON for a corpus config
// with the GPU's total given, the schema, the start command, and the
// commands that refuse it with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string k70B = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/llama3/Meta-Llama-3.1-70B";
const std::map<std::string, std::string> k80GiB = {{"MEMFIT_MEMORY_LIMIT", "80GiB"}};

TEST(VllmCli, InspectPrintsTheKvCapacityAndTheStartCommand) {
  // 1,381 blocks' worth of KV given: 1,381 x 80 layers x 65,536 B.
  auto r = run_memfit({"inspect", "-m", k70B, "--engine", "vllm", "--max-model-len", "2048",
                       "--kv-cache-memory-bytes", "7240417280", "--tensor-parallel-size", "1",
                       "--json"},
                      k80GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "vllm");
  const nlohmann::json& v = j["vllm"];
  EXPECT_EQ(v["num_gpu_blocks"], 1381);
  EXPECT_EQ(v["kv_tokens"], 22096);
  EXPECT_EQ(v["blocks_per_request"], 128);
  EXPECT_EQ(v["figures"]["num_gpu_blocks"], "exact");
  EXPECT_EQ(v["figures"]["activation_bytes"], "modelled");
  // The config's analytical weights (bf16), per rank, plus the rope cache.
  const uint64_t weights = v["weights_bytes"];
  EXPECT_EQ(j["total_bytes"], weights + uint64_t(v["activation_bytes"]) + uint64_t(v["non_torch_bytes"]) +
                                  uint64_t(v["cuda_graph_bytes"]) + 7240417280ull);
  EXPECT_EQ(j["fits"], false);  // 140 GB of bf16 weights on one 80 GiB GPU
  const std::string command = v["command_kv_cache_memory"];
  // 256 requests x 128 blocks + the null block, 5,242,880 B each.
  EXPECT_NE(command.find("--kv-cache-memory-bytes 171803934720"), std::string::npos) << command;
  EXPECT_NE(command.find("--max-model-len 2048 --max-num-seqs 256"), std::string::npos) << command;
  TempDir dir;
  auto check = testing::check_report_schema(dir.write_file("report.json", r.out));
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST(VllmCli, TextNamesTheTermsAndTheConcurrency) {
  auto r = run_memfit({"inspect", "-m", k70B, "--engine", "vllm", "--max-model-len", "2048",
                       "--gpu-memory-total", "640GiB", "--tensor-parallel", "8"},
                      {{"MEMFIT_MEMORY_LIMIT", "640GiB"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(engine vllm)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Weights per rank"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("maximum concurrency for 2048 tokens per request"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vllm serve "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--tensor-parallel-size 8"), std::string::npos) << r.out;
}

TEST(VllmCli, FitAndPlotRefuseItWithOneLine) {
  const std::string line = "vllm is priced by inspect and preflight generate only; ";
  auto fit = run_memfit({"fit", "-m", k70B, "--engine", "vllm", "--solve", "max-tokens"}, k80GiB);
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_EQ(fit.err, "memfit: --engine: " + line + "fit does not take it\n");
  auto plot = run_memfit({"plot", "-m", k70B, "--engine", "vllm", "--out", "/dev/null"}, k80GiB);
  EXPECT_EQ(plot.exit_code, 2);
  EXPECT_NE(plot.err.find(line + "plot does not take it"), std::string::npos) << plot.err;
  auto bad = run_memfit({"inspect", "-m", k70B, "--engine", "vllm", "--kv-cache-dtype", "int4"}, k80GiB);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--kv-cache-dtype"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace memfit
