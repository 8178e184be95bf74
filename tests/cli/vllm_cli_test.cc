// `--engine vllm` on the command line: inspect's JSON for a corpus config
// with the GPU's total given, the schema, the start command, fit's
// answers, and the commands that refuse it with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
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
  // 256 requests x 128 blocks + the null block, 5,242,880 B each, is
  // 171,803,934,720 B, more than the 7,240,417,280 B given: the command
  // pins the 10 that fit (1,381 blocks / 128): (10 x 128 + 1) x 5,242,880
  // = 6,716,129,280 B.
  EXPECT_EQ(v["kv_cache_memory_for_max_num_seqs"], 171803934720u);
  EXPECT_NE(command.find("--kv-cache-memory-bytes 6716129280"), std::string::npos) << command;
  EXPECT_NE(command.find("--max-model-len 2048 --max-num-seqs 10 "), std::string::npos) << command;
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

const std::string kDeepSeekV3 =
    std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/deepseek_v3/DeepSeek-V3";

TEST(VllmCli, GpuNameGivenPricesAnotherMachinesH100) {
  // DeepSeek-V3 on an H100 this host does not have: FlashMLA's 64-token
  // blocks, 61 x 64 x 576 x 2 B = 4,497,408 B each; 10 GiB of KV given is
  // 2,387 of them (engines/vllm/estimate_test.cc, MlaBlocksAreWhatTheGpusMlaBackendForces).
  const std::vector<std::string> args = {
      "inspect", "-m", kDeepSeekV3, "--engine", "vllm", "--max-model-len", "32768",
      "--gpu-name", "NVIDIA H100 80GB HBM3", "--gpu-memory-total", "80GiB",
      "--kv-cache-memory", "10GiB"};
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  auto r = run_memfit(json_args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["gpu_name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j["inputs"]["gpu_name_source"], "given");
  EXPECT_EQ(j["vllm"]["attention_block_size"], 64);
  EXPECT_EQ(j["vllm"]["num_gpu_blocks"], 2387);
  TempDir dir;
  auto check = testing::check_report_schema(dir.write_file("report.json", r.out));
  EXPECT_EQ(check.exit_code, 0) << check.err;
  auto text = run_memfit(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("gpu: NVIDIA H100 80GB HBM3 (given)\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("MLA: 64-token blocks, as vLLM's MLA backend on the NVIDIA H100 80GB "
                          "HBM3 forces them"),
            std::string::npos)
      << text.out;
  // Without the name nothing is known of the GPU: null, and --block-size.
  std::vector<std::string> unnamed = {"inspect", "-m", kDeepSeekV3, "--engine", "vllm",
                                      "--gpu-memory-total", "80GiB", "--kv-cache-memory", "10GiB",
                                      "--json"};
  auto plain = run_memfit(unnamed);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  nlohmann::json p = nlohmann::json::parse(plain.out);
  EXPECT_TRUE(p["inputs"]["gpu_name"].is_null());
  EXPECT_TRUE(p["inputs"]["gpu_name_source"].is_null());
  EXPECT_EQ(p["vllm"]["attention_block_size"], 16);
}

TEST(VllmCli, GpuNameBadIsOneUsageLine) {
  auto bad = run_memfit({"inspect", "-m", kDeepSeekV3, "--engine", "vllm", "--gpu-name", "",
                         "--gpu-memory-total", "80GiB"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "memfit: --gpu-name: '': expected a GPU's name as nvidia-smi prints it, e.g. "
                     "\"NVIDIA H100 80GB HBM3\" (1 to 128 printable ASCII characters)\n");
}

TEST(VllmCli, PlotRefusesItWithOneLine) {
  // The registry's one refusal: the engines answering plot are listed.
  auto plot = run_memfit({"plot", "-m", k70B, "--engine", "vllm", "--out", "/dev/null"}, k80GiB);
  EXPECT_EQ(plot.exit_code, 2);
  EXPECT_NE(plot.err.find("vllm is not priced by plot; plot takes mlxcel, llamacpp or mlx-lm"),
            std::string::npos)
      << plot.err;
  auto bad = run_memfit({"inspect", "-m", k70B, "--engine", "vllm", "--kv-cache-dtype", "int4"}, k80GiB);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--kv-cache-dtype"), std::string::npos) << bad.err;
}

const std::string k8B = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";

TEST(VllmCli, FitAnswersTheLargestMaxModelLen) {
  // Llama-3.1-8B: a block is 32 layers x 2 x 16 x 8 KV heads x 128 x 2 B =
  // 2,097,152 B; 2 GiB given is 1,024 blocks, one request of 1,024 x 16 =
  // 16,384 tokens (16,385 needs 1,025). No GPU is known (the KV memory is
  // given), so the flags carry vLLM's small defaults, 256 rows and 2,048
  // batched tokens.
  auto r = run_memfit({"fit", "-m", k8B, "--engine", "vllm", "--solve", "max-model-len",
                       "--kv-cache-memory", "2GiB", "--json"},
                      k80GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["solve"], "max-model-len");
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["value"], 16384);
  EXPECT_EQ(j["capped"], false);
  EXPECT_EQ(j["ceiling"], 131072);
  EXPECT_EQ(j["reason"], nullptr);
  EXPECT_EQ(j["flags"], nlohmann::json({"--max-model-len", "16384", "--max-num-seqs", "256",
                                        "--max-num-batched-tokens", "2048", "--kv-cache-memory-bytes",
                                        "2147483648"}));
  EXPECT_EQ(j["report"]["engine"], "vllm");
  EXPECT_EQ(j["report"]["inputs"]["max_model_len"], 16384);
  EXPECT_EQ(j["report"]["vllm"]["num_gpu_blocks"], 1024);
  EXPECT_EQ(j["report"]["vllm"]["blocks_per_request"], 1024);
  EXPECT_EQ(j["report"]["fits"], true);
  // The text: the answer, the flags, then the report at the answer.
  auto text = run_memfit({"fit", "-m", k8B, "--engine", "vllm", "--solve", "max-model-len",
                          "--kv-cache-memory", "2GiB"},
                         k80GiB);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("Largest max-model-len vLLM starts with in 80.00 GiB (explicit): 16384\n"
                           "start: vllm serve " + k8B + " --max-model-len 16384 --max-num-seqs 256 "
                           "--max-num-batched-tokens 2048 --kv-cache-memory-bytes 2147483648\n",
                           0),
            0u)
      << text.out;
  EXPECT_NE(text.out.find("longest request that fits: 16384 tokens"), std::string::npos) << text.out;
}

TEST(VllmCli, FitAnswersTheLargestMaxNumSeqs) {
  // 2 GiB = 1,024 blocks; requests of 4,096 tokens take 256: 4 of them.
  auto r = run_memfit({"fit", "-m", k8B, "--engine", "vllm", "--solve", "max-num-seqs",
                       "--max-model-len", "4096", "--kv-cache-memory", "2GiB"},
                      k80GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Largest max-num-seqs whose requests of 4096 tokens all fit vLLM's KV cache "
                        "in 80.00 GiB (explicit): 4\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("--max-model-len 4096 --max-num-seqs 4 "), std::string::npos) << r.out;
}

TEST(VllmCli, FitRefusesOtherEnginesSolvesWithOneLine) {
  auto llama = run_memfit({"fit", "-m", k8B, "--engine", "vllm", "--solve", "ctx-size",
                           "--kv-cache-memory", "2GiB"},
                          k80GiB);
  EXPECT_EQ(llama.exit_code, 2);
  EXPECT_EQ(llama.err, "memfit: --solve: ctx-size is a llamacpp solve; vllm solves max-model-len (or "
                       "max-tokens) and max-num-seqs (or batch)\n");
  auto mlxcel = run_memfit({"fit", "-m", k8B, "--solve", "max-model-len"}, k80GiB);
  EXPECT_EQ(mlxcel.exit_code, 2);
  EXPECT_EQ(mlxcel.err,
            "memfit: --solve: max-model-len is a vllm solve; mlxcel solves max-tokens, batch or slots\n");
  auto given = run_memfit({"fit", "-m", k8B, "--engine", "vllm", "--solve", "max-model-len",
                           "--max-model-len", "4096", "--kv-cache-memory", "2GiB"},
                          k80GiB);
  EXPECT_EQ(given.exit_code, 2);
  EXPECT_EQ(given.err, "memfit: --max-model-len: is what solving max-model-len finds: leave it out\n");
  auto ctx = run_memfit({"fit", "-m", k8B, "--engine", "vllm", "--solve", "max-model-len", "-c", "4096",
                         "--kv-cache-memory", "2GiB"},
                        k80GiB);
  EXPECT_EQ(ctx.exit_code, 2);
  EXPECT_EQ(ctx.err, "memfit: --ctx-size: is a llama.cpp setting: give engine llamacpp\n");
  auto plan = run_memfit({"fit", "-m", k8B, "--solve", "max-tokens", "--tensor-parallel", "2"}, k80GiB);
  EXPECT_EQ(plan.exit_code, 2);
  EXPECT_NE(plan.err.find("fit solves for one device"), std::string::npos) << plan.err;
}

}  // namespace
}  // namespace memfit
