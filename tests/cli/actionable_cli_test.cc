// Issue 29's first-thirty-minutes findings as whole commands: no request
// field accepted and ignored (--quant, --n-cpu-moe and -ot on a model with
// no GGUF tensor list), and answers a user can act on (each solver row
// with its own launch command, DOES NOT FIT pointing to the solver, no
// suggested size past the device).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kCorpus = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/";
const std::string kLlama8B = kCorpus + "llama3/Meta-Llama-3.1-8B";
const std::string kLlama70B = kCorpus + "llama3/Meta-Llama-3.1-70B";
const std::string kQwen3Moe = kCorpus + "qwen3_moe/Qwen3-30B-A3B";

uint64_t weights_bytes(const std::vector<std::string>& args) {
  testing::CommandResult r = run_memfit(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return 0;
  return nlohmann::json::parse(r.out)["weights_bytes"].get<uint64_t>();
}

TEST(QuantField, PricesTheWeightsInThatModeUnderMlxEngines) {
  // Llama-3.1-8B's config: 8,030,261,248 parameters, bf16: x 2 =
  // 16,060,522,496 B (14.96 GiB), what fp16 keeps.
  // int8 (MLX affine, group 64): 8,030,261,248 + ceil(8,030,261,248 / 64)
  //   x 4 = 8,030,261,248 + 125,472,832 x 4 = 8,532,152,576 B.
  // int4: ceil(8,030,261,248 x 4 / 8) + 501,891,328 = 4,015,130,624 +
  //   501,891,328 = 4,517,021,952 B.
  for (const char* engine : {"mlxcel", "mlxlm"}) {
    SCOPED_TRACE(engine);
    std::vector<std::string> args = {"inspect", "-m", kLlama8B, "--engine", engine,
                                     "--memory-limit", "64GiB", "--json"};
    EXPECT_EQ(weights_bytes(args), 16060522496u);
    args.insert(args.end(), {"--quant", "fp16"});
    EXPECT_EQ(weights_bytes(args), 16060522496u);
    args.back() = "int8";
    EXPECT_EQ(weights_bytes(args), 8532152576u);
    args.back() = "int4";
    EXPECT_EQ(weights_bytes(args), 4517021952u);
  }
}

TEST(QuantField, TakesEveryMlxWidthGroupAndRecipe) {
  // Llama-3.1-8B's config: 8,030,261,248 parameters (as above).
  // 3bit-g32: ceil(8,030,261,248 x 3 / 8) = 3,011,347,968 B of weights +
  //   8,030,261,248 / 32 = 250,945,664 groups x 4 B (a 16-bit scale and
  //   bias) = 1,003,782,656 -> 4,015,130,624 B.
  // 6bit-g128: 6,022,695,936 + 62,736,416 x 4 = 250,945,664 -> 6,273,641,600 B.
  // 4BIT: int4's 4,517,021,952 B (group 64, case ignored).
  for (const char* engine : {"mlxcel", "mlx-lm"}) {
    SCOPED_TRACE(engine);
    std::vector<std::string> args = {"inspect", "-m", kLlama8B, "--engine", engine,
                                     "--memory-limit", "64GiB", "--json", "--quant", "3bit-g32"};
    EXPECT_EQ(weights_bytes(args), 4015130624u);
    args.back() = "6bit-g128";
    EXPECT_EQ(weights_bytes(args), 6273641600u);
    args.back() = "4BIT";
    EXPECT_EQ(weights_bytes(args), 4517021952u);
  }
  // A mixed recipe: the bytes recommend-quant ranks for it.
  testing::CommandResult ranked =
      run_memfit({"recommend-quant", "-m", kLlama8B, "--engine", "mlx-lm", "--memory-limit",
                  "64GiB", "--json"});
  ASSERT_EQ(ranked.exit_code, 0) << ranked.err;
  uint64_t recipe_bytes = 0;
  const nlohmann::json candidates = nlohmann::json::parse(ranked.out)["candidates"];
  for (const auto& row : candidates) {
    if (row["recipe"] == "mixed_3_6") recipe_bytes = row["weights_bytes"].get<uint64_t>();
  }
  ASSERT_NE(recipe_bytes, 0u);
  EXPECT_EQ(weights_bytes({"inspect", "-m", kLlama8B, "--engine", "mlx-lm", "--memory-limit",
                           "64GiB", "--json", "--quant", "mixed_3_6"}),
            recipe_bytes);
  // Neither a width MLX lacks nor a group it lacks.
  for (const char* bad : {"7bit", "4bit-g48"}) {
    testing::CommandResult r = run_memfit({"inspect", "-m", kLlama8B, "--quant", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.err.rfind("memfit: --quant: '" + std::string(bad) +
                              "': expected fp16, int8, int4, <b>bit[-g<g>]", 0),
              0u)
        << r.err;
  }
}

TEST(QuantField, LaunchCommandsLoadTheFileLlamaQuantizeWouldWrite) {
  // Qwen3-8B's config under --quant q4_k_m: the rows' llama-server commands
  // name "<folder>-<file type>.gguf", the type as llama-quantize spells it.
  testing::CommandResult r =
      run_memfit({"fit", "-m", kCorpus + "qwen3/Qwen3-8B", "--engine", "llamacpp", "--quant",
                  "q4_k_m", "--gpu", "rtx4060", "-c", "32768", "--solve", "gpu-layers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n    llama-server -m Qwen3-8B-Q4_K_M.gguf -c 32768 "), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("llama-server -m " + kCorpus), std::string::npos) << r.out;
}

TEST(QuantField, IsRefusedWithItsReasonWhereTheFileIsTheMode) {
  // Under llamacpp the mode is a GGUF file type (quantize_plan_test.cc);
  // an MLX mode is refused, listing them.
  testing::CommandResult r = run_memfit({"inspect", "-m", kLlama8B, "--engine", "llamacpp",
                                         "--quant", "int4", "--memory-limit", "64GiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find(";")),
            "memfit: --quant: 'int4' is not a GGUF file type memfit prices under llamacpp")
      << r.err;
  EXPECT_NE(r.err.find("one of: F32, F16, BF16, Q8_0, Q6_K"), std::string::npos) << r.err;
  // A GGUF file type under an MLX engine.
  r = run_memfit({"inspect", "-m", kLlama8B, "--engine", "mlxcel", "--quant", "q4_k_m",
                  "--memory-limit", "64GiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--quant: Q4_K_M is a GGUF file type: llama.cpp's"), std::string::npos)
      << r.err;
  r = run_memfit({"inspect", "-m", kLlama8B, "--engine", "vllm", "--quant", "int8",
                  "--gpu", "h100-80gb"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--quant: is not a vLLM setting"), std::string::npos) << r.err;
}

TEST(QuantField, WideningAQuantizedCheckpointIsRefused) {
  const std::string mlx4 = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
  testing::CommandResult r =
      run_memfit({"inspect", "-m", mlx4, "--quant", "int8", "--memory-limit", "64GiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --quant: int8 would widen this 4-bit checkpoint; memfit prices "
                   "quantizing down, not dequantizing\n");
}

TEST(ExpertOffload, WithoutAGgufTensorListIsRefusedNotIgnored) {
  const std::vector<std::string> base = {"inspect", "-m", kQwen3Moe, "--engine", "llamacpp",
                                         "-c", "16384", "--gpu-memory", "0=24GiB",
                                         "--memory-limit", "96GiB"};
  const std::string why = ": moves tensors by their GGUF names, and this model has no GGUF "
                          "tensor list (a config or safetensors folder): price the GGUF file "
                          "to place its experts, or give --quant a GGUF file type (Q4_K_M, ...)\n";
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--n-cpu-moe", "48"});
  testing::CommandResult r = run_memfit(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(r.err.find("memfit: ")), "memfit: --n-cpu-moe" + why);
  args = base;
  args.insert(args.end(), {"-ot", "exps=CPU"});
  r = run_memfit(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(r.err.find("memfit: ")), "memfit: --override-tensor" + why);
}

TEST(ExpertOffload, SolvingNCpuMoeWithoutATensorListSaysWhy) {
  testing::CommandResult r =
      run_memfit({"fit", "-m", kQwen3Moe, "--engine", "llamacpp", "--solve", "n-cpu-moe",
                  "--gpu-memory", "0=24GiB", "-c", "16384", "--memory-limit", "96GiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("memfit: --solve: n-cpu-moe moves experts by their GGUF tensor names, "
                       "and this model has no GGUF tensor list (a config or safetensors "
                       "folder): solve it on the GGUF file, or give --quant a GGUF file type "
                       "(Q4_K_M, ...)\n"),
            std::string::npos)
      << r.err;
}

TEST(SolverRows, EachKvCacheTypeRowHasItsOwnLaunchCommand) {
  testing::CommandResult r =
      run_memfit({"fit", "-m", kLlama70B, "--engine", "llamacpp", "--solve", "gpu-layers",
                  "--gpu-memory", "0=24GiB,1=24GiB", "-c", "8192", "--memory-limit", "128GiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The golden llamacpp-fit-gpu-layers has 26, 28 and 28 layers.
  const std::string m = "llama-server -m " + kLlama70B + " -c 8192 -np 1";
  EXPECT_NE(r.out.find("  KV cache f16:   26\n    " + m + " -ngl 26 -ts 24,24 -fa auto -ctk f16 "
                       "-ctv f16\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  KV cache q8_0:  28\n    " + m + " -ctk q8_0 -ctv q8_0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  KV cache q4_0:  28\n    " + m + " -ctk q4_0 -ctv q4_0"),
            std::string::npos)
      << r.out;
}

TEST(DoesNotFit, EndsWithTheCommandThatFindsWhatFits) {
  testing::CommandResult r =
      run_memfit({"inspect", "-m", kLlama70B, "--engine", "llamacpp", "--gpu-memory",
                  "0=24GiB", "-c", "8192", "--memory-limit", "128GiB"});
  EXPECT_NE(r.out.find("DOES NOT FIT: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nfind what fits: memfit fit -m " + kLlama70B +
                       " --engine llamacpp --solve gpu-layers (with this command's other "
                       "flags)\n"),
            std::string::npos)
      << r.out;
  r = run_memfit({"inspect", "-m", kLlama70B, "--memory-limit", "16GiB"});
  EXPECT_NE(r.out.find("\nfind what fits: memfit fit -m " + kLlama70B +
                       " --engine mlxcel --solve max-tokens (with this command's other flags)\n"),
            std::string::npos)
      << r.out;
}

TEST(VllmPinnedCommand, NeverSuggestsAKvCachePastTheGpu) {
  // Pinned to 0.21 (the last release whose V1 sampler sorts the logits): the
  // clamp is tested, not the release's sampler.
  testing::CommandResult r =
      run_memfit({"inspect", "-m", kLlama8B, "--engine", "vllm", "--gpu", "h100-80gb",
                  "--max-model-len", "16384", "--vllm-version", "0.21.0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json v = nlohmann::json::parse(r.out)["vllm"];
  // 1,024 requests of 16,384 tokens need (1,024 blocks x 1,024 + 1) x 2
  // MiB = 2,199,025,352,704 B (2 TiB), past the 52.31 GiB left (0.92 of
  // the GPU less the CUDA graphs too, 0.21 on); 26 fit:
  // (1,024 x 26 + 1) x 2,097,152 = 55,836,672,000 B.
  EXPECT_EQ(v["kv_cache_memory_for_max_num_seqs"], 2199025352704u);
  EXPECT_EQ(v["max_num_seqs_fit"], 26u);
  const std::string pinned = v["command_kv_cache_memory"];
  EXPECT_NE(pinned.find("--max-num-seqs 26 "), std::string::npos) << pinned;
  EXPECT_NE(pinned.find("--kv-cache-memory-bytes 55836672000"), std::string::npos) << pinned;
  EXPECT_EQ(pinned.find("2199025352704"), std::string::npos) << pinned;
}

TEST(RecommendQuant, HeadsTheTableWithTheBudgetItJudgesAgainst) {
  // With a GPU to place on, each verdict is the placement's (every device
  // fits): a 7.0 MiB total (the host's inputs with the F32 mask, 2,048
  // cells x 512 x 4 B = 4 MiB of it) does not fit a 2 MiB GPU though the
  // host's 64 MiB would hold it, so the heading names the GPU, not only
  // the host.
  testing::CommandResult r =
      run_memfit({"recommend-quant", "-m", std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/quants",
                  "-c", "2048", "--gpu-memory", "0=2MiB", "--gpu-margin", "0", "--memory-limit",
                  "64MiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("; judged on every device: GPUs gpu:0 2.0 MiB (each less a 0 B margin), "
                       "host 64.0 MiB (explicit)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("7.0 MiB  DOES NOT FIT"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace memfit
