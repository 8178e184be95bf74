// --tensor-parallel / --pipeline-parallel on inspect and preflight: the
// per-rank table and JSON, the schema, exit 3 when a rank does not fit,
// and the engine's refusals as usage errors.
//
// The model is Llama 3.2 1B (the corpus config; tied embeddings) with a
// sparse BF16 checkpoint of its real shapes: 16 layers of
//   q, o 2048 x 2048; k, v 512 x 2048; gate, up, down 8192 x 2048; 2 norms
// = 121,643,008 B a layer, embedding 128256 x 2048 = 525,336,576, final
// norm 4096: 2,471,628,800 B in all.
// tp 2 x pp 2 (vLLM), per rank:
//   layer: 2 x 4,194,304 + 2 x 1,048,576 + 3 x 16,777,216 + 8192 = 60,825,600
//   stage 0: 8 x 60,825,600 + embedding 64128 rows x 4096 B          = 749,273,088
//   stage 1: 8 x 60,825,600 + the tied embedding as head + norm 4096 = 749,277,184
//   KV: 8 layers x 8192 tokens x (2 x 4 x 64 x 2 B)                   =  67,108,864
//   rank 0: overhead ceil(0.2 x 816,381,952) = 163,276,391; activation
//     2 x 2048 x (2048 + 8192) x 2 + 128256 x 2 = 84,142,592;
//     total 816,381,952 + 163,276,391 + 84,142,592 = 1,063,800,935
// The whole model on one device needs 3,372,219,700: more than 2 GiB,
// while every rank fits 2 GiB; none fits 1000 MiB (1,048,576,000).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using testing::run_memfit;

class Llama1B {
 public:
  Llama1B() {
    dir_.write_file("config.json",
                    testing::read_test_data("corpus/llama3/Llama-3.2-1B-Instruct/config.json"));
    std::vector<TensorSpec> t = {{"model.embed_tokens.weight", "BF16", {128256, 2048}, std::nullopt}};
    for (int i = 0; i < 16; ++i) {
      std::string p = "model.layers." + std::to_string(i) + ".";
      t.push_back({p + "input_layernorm.weight", "BF16", {2048}, std::nullopt});
      t.push_back({p + "self_attn.q_proj.weight", "BF16", {2048, 2048}, std::nullopt});
      t.push_back({p + "self_attn.k_proj.weight", "BF16", {512, 2048}, std::nullopt});
      t.push_back({p + "self_attn.v_proj.weight", "BF16", {512, 2048}, std::nullopt});
      t.push_back({p + "self_attn.o_proj.weight", "BF16", {2048, 2048}, std::nullopt});
      t.push_back({p + "post_attention_layernorm.weight", "BF16", {2048}, std::nullopt});
      t.push_back({p + "mlp.gate_proj.weight", "BF16", {8192, 2048}, std::nullopt});
      t.push_back({p + "mlp.up_proj.weight", "BF16", {8192, 2048}, std::nullopt});
      t.push_back({p + "mlp.down_proj.weight", "BF16", {2048, 8192}, std::nullopt});
    }
    t.push_back({"model.norm.weight", "BF16", {2048}, std::nullopt});
    write_safetensors_file(dir_.file_path("model.safetensors"), t);
  }
  const std::string& path() const { return dir_.path(); }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
};

TEST(ParallelCli, InspectJsonAddsRanksAndKeepsTheWholeModel) {
  Llama1B model;
  auto r = run_memfit({"inspect", "-m", model.path(), "--json", "--tensor-parallel", "2",
                       "--pipeline-parallel", "2", "--memory-limit", "2GiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["weights_bytes"], 2471628800u);
  EXPECT_EQ(j["total_bytes"], 3372219700u);
  EXPECT_EQ(j["fits"], false);
  const nlohmann::json& p = j["parallel"];
  EXPECT_EQ(p["tensor_parallel"], 2);
  EXPECT_EQ(p["pipeline_parallel"], 2);
  EXPECT_EQ(p["engine"], "vllm");
  EXPECT_EQ(p["weights_split"], "tensor_list");
  EXPECT_EQ(p["fits"], true);
  ASSERT_EQ(p["ranks"].size(), 4u);
  EXPECT_EQ(p["ranks"][0]["weights_bytes"], 749273088u);
  EXPECT_EQ(p["ranks"][1]["weights_bytes"], 749273088u);
  EXPECT_EQ(p["ranks"][3]["weights_bytes"], 749277184u);
  EXPECT_EQ(p["ranks"][3]["layer_begin"], 8);
  EXPECT_EQ(p["ranks"][3]["layer_end"], 16);
  EXPECT_EQ(p["ranks"][3]["pp_stage"], 1);
  EXPECT_EQ(p["ranks"][3]["tp_rank"], 1);
  EXPECT_EQ(p["ranks"][2]["kv_bytes_total"], 67108864u);
  EXPECT_EQ(p["ranks"][2]["kv_heads"], 4);
  EXPECT_EQ(p["ranks"][0]["total_bytes"], 1063800935u);
  EXPECT_EQ(p["ranks"][0]["budget_bytes"], 2147483648u);
  for (const auto& rank : p["ranks"]) {
    EXPECT_EQ(rank["weights_bytes"].get<uint64_t>() + rank["kv_bytes_total"].get<uint64_t>() +
                  rank["headroom_bytes"].get<uint64_t>(),
              rank["total_bytes"].get<uint64_t>());
  }
}

TEST(ParallelCli, NoPlanWithoutParallelFlags) {
  Llama1B model;
  auto r = run_memfit({"inspect", "-m", model.path(), "--json", "--memory-limit", "2GiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out).contains("parallel"));
}

TEST(ParallelCli, TextReportHasTheRankTable) {
  Llama1B model;
  auto r = run_memfit({"inspect", "-m", model.path(), "--tensor-parallel", "2",
                       "--pipeline-parallel", "2", "--memory-limit", "2GiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Parallel plan: vllm, tensor parallel 2 x pipeline parallel 2 = 4 ranks, "
                       "weights split by tensor"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  rank  stage  layers"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("     3      1  8-15"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nALL RANKS FIT\n"), std::string::npos) << r.out;
}

TEST(ParallelCli, PreflightExitsThreeWhenARankDoesNotFit) {
  Llama1B model;
  std::vector<std::string> args = {"preflight", "generate", "-m", model.path(),
                                   "--prompt-tokens", "4096", "--max-tokens", "4096",
                                   "--tensor-parallel", "2", "--pipeline-parallel", "2"};
  // Every rank fits 2 GiB although the whole model does not.
  std::vector<std::string> fits = args;
  fits.insert(fits.end(), {"--memory-limit", "2GiB", "--json"});
  auto ok = run_memfit(fits);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  nlohmann::json j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["fits"], false);
  EXPECT_EQ(j["preflight"]["fits"], true);
  std::vector<std::string> tight = args;
  tight.insert(tight.end(), {"--memory-limit", "1000MiB"});
  auto no = run_memfit(tight);
  EXPECT_EQ(no.exit_code, 3) << no.err;
  EXPECT_NE(no.out.find("RANKS THAT DO NOT FIT: 0, 1, 2, 3"), std::string::npos) << no.out;
  tight.push_back("--force");
  EXPECT_EQ(run_memfit(tight).exit_code, 0);
}

TEST(ParallelCli, EngineRefusalIsAUsageError) {
  Llama1B model;
  auto r = run_memfit({"inspect", "-m", model.path(), "--tensor-parallel", "3", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "memfit: tensor parallel 3 x pipeline parallel 1: tensor parallel size 3 does not "
            "divide the model's 32 attention heads (vLLM requires num_attention_heads % "
            "tensor_parallel_size == 0)\n");
  auto engine = run_memfit({"inspect", "-m", model.path(), "--tensor-parallel", "2",
                            "--parallel-engine", "tgi"});
  EXPECT_EQ(engine.exit_code, 2);
  auto stages = run_memfit({"inspect", "-m", model.path(), "--pipeline-parallel", "17"});
  EXPECT_EQ(stages.exit_code, 2);
  EXPECT_EQ(stages.err,
            "memfit: tensor parallel 1 x pipeline parallel 17: pipeline parallel size 17 "
            "exceeds the model's 16 layers\n");
}

TEST(ParallelCli, ReportsMatchTheShippedSchema) {
  if (std::system("python3 -c 'import jsonschema' 2>/dev/null") != 0) {
    GTEST_FAIL() << "python3 with jsonschema is required (apt-get install python3-jsonschema)";
  }
  Llama1B model;
  const std::string example = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"inspect", "-m", model.path(), "--json", "--tensor-parallel", "4",
            "--pipeline-parallel", "2", "--parallel-engine", "mlx-lm"},
           {"inspect", "-m", example, "--json", "--tensor-parallel", "8"}}) {
    auto r = run_memfit(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("parallel"));
    std::string report = model.dir().write_file("report.json", r.out);
    auto check = testing::check_report_schema(report);
    EXPECT_EQ(check.exit_code, 0) << check.err;
  }
  // The index-only example has no header list: the split is proportional.
  auto r = run_memfit({"inspect", "-m", example, "--json", "--tensor-parallel", "8"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["parallel"]["weights_split"], "proportional");
}

}  // namespace
}  // namespace memfit
