// recommend-quant and --quant under llamacpp on a config-only and a
// safetensors model: the GGUF file types llama-quantize would write
// (engines/llamacpp/quantize_plan.h), ranked, each with the placement
// that fits the GPU and its own launch command; and the offload flags
// working on the synthesized tensor list.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include <string>
#include <vector>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_checkpoints.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;
using Json = nlohmann::json;

const std::string kCorpus = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/";
const std::string kLlama8B = kCorpus + "llama3/Meta-Llama-3.1-8B";
const std::string kQwen3Moe = kCorpus + "qwen3_moe/Qwen3-30B-A3B";

Json recommend(const std::string& model) {
  testing::CommandResult r =
      run_memfit({"recommend-quant", "-m", model, "--engine", "llamacpp", "--gpu", "rtx4090",
                  "-c", "32768", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? Json::parse(r.out) : Json::object();
}

const Json& row(const Json& answer, std::string_view type) {
  for (const Json& c : answer["candidates"]) {
    if (c["file_type"] == type) return c;
  }
  static const Json none;
  ADD_FAILURE() << "no row " << type;
  return none;
}

TEST(RecommendGgufTypes, ConfigOnlyModelRanksFileTypesWithACommandEach) {
  const Json a = recommend(kLlama8B);
  ASSERT_TRUE(a.contains("candidates"));
  ASSERT_EQ(a["candidates"].size(), 12u);
  // Largest first; the Q4_K_M and Q8_0 bytes are quantize_plan_test's.
  uint64_t previous = UINT64_MAX;
  for (const Json& c : a["candidates"]) {
    EXPECT_LE(c["weights_bytes"].get<uint64_t>(), previous) << c;
    previous = c["weights_bytes"].get<uint64_t>();
    if (c["fits"]) {
      const std::string command = c["command"];
      EXPECT_EQ(command.rfind("llama-server -m Meta-Llama-3.1-8B-" +
                                  c["file_type"].get<std::string>() + ".gguf -c 32768 ",
                              0),
                0u)
          << command;
      EXPECT_NE(command.find(" -ngl " + std::to_string(c["value"].get<uint64_t>())),
                std::string::npos)
          << command;
    }
  }
  EXPECT_EQ(a["candidates"][0]["file_type"], "F16");
  EXPECT_EQ(row(a, "Q4_K_M")["weights_bytes"], 4912898304u);
  EXPECT_EQ(row(a, "Q8_0")["weights_bytes"], 8532934912u);
  // Every block and the output (-ngl 33) fit 24 GB at 32k for Q8_0.
  EXPECT_EQ(row(a, "Q8_0")["solve"], "gpu-layers");
  EXPECT_EQ(row(a, "Q8_0")["value"], 33);
  EXPECT_TRUE(row(a, "Q8_0")["all_on_gpu"]);
}

TEST(RecommendGgufTypes, QuantPricesNoTwoBytesPerParameter) {
  // A config-only model says its weights are estimated at 2 bytes a
  // parameter; under --quant Q4_K_M the GGUF replaces them, and only its
  // own warning is left (292 tensors, quantize_plan_test's 4,912,898,304 B).
  const std::vector<std::string> args = {"inspect", "-m", kLlama8B, "--engine", "llamacpp",
                                         "--memory-limit", "24GiB"};
  testing::CommandResult plain = run_memfit(args);
  EXPECT_NE(plain.err.find("parameters x 2 bytes"), std::string::npos) << plain.err;
  std::vector<std::string> quant = args;
  quant.insert(quant.end(), {"--quant", "Q4_K_M"});
  testing::CommandResult r = run_memfit(quant);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("x 2 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("weights priced as the Q4_K_M GGUF llama-quantize would write"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("292 tensors"), std::string::npos) << r.err;
}

TEST(RecommendGgufTypes, TextHasALaunchCommandUnderEveryRowThatFits) {
  testing::CommandResult r =
      run_memfit({"recommend-quant", "-m", kLlama8B, "--engine", "llamacpp", "--gpu", "rtx4090",
                  "-c", "32768"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  Q4_K_M      4.58 GiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    llama-server -m Meta-Llama-3.1-8B-Q4_K_M.gguf -c 32768"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nRecommended: "), std::string::npos) << r.out;
}

TEST(RecommendGgufTypes, SafetensorsFolderIsRankedFromItsConfig) {
  TempDir dir;
  write_bf16_llama_checkpoint(dir);
  const Json a = recommend(dir.path());
  ASSERT_TRUE(a.contains("candidates"));
  // 8 blocks of hidden 4096 (q and output 4096 x 4096, k and v 4096 x
  // 1024, gate/up/down 4096 x 4096), vocabulary 32000; the config has no
  // tie_word_embeddings and LlamaConfig's default is untied, so the file
  // has an output.weight beside token_embd:
  // Q8_0: (8 x 92,274,688 + 2 x 131,072,000) / 32 x 34 = 1,062,862,848
  //   + F32 norms 8 x 2 x 16,384 + 16,384 = 278,528 -> 1,063,141,376 B.
  // Q4_K_M: output Q6_K 131,072,000 / 256 x 210 = 107,520,000; token_embd
  //   Q4_K 131,072,000 / 256 x 144 = 73,728,000; q, k, output, gate, up at
  //   Q4_K 8 x 40,108,032 = 320,864,256; use_more_bits(i, 8) holds for
  //   blocks 0, 3, 6, 7: attn_v 4 x 3,440,640 + 4 x 2,359,296 = 23,199,744
  //   and ffn_down 4 x 13,762,560 + 4 x 9,437,184 = 92,798,976; + 278,528
  //   F32 = 618,389,504 B.
  EXPECT_EQ(row(a, "Q8_0")["weights_bytes"], 1063141376u);
  EXPECT_EQ(row(a, "Q4_K_M")["weights_bytes"], 618389504u);
  EXPECT_NE(row(a, "Q4_K_M")["command"].get<std::string>().find(
                "llama-server -m " + std::filesystem::path(dir.path()).filename().string() +
                "-Q4_K_M.gguf -c 32768"),
            std::string::npos);
}

TEST(RecommendGgufTypes, MoeRowsPlaceExpertsWithNCpuMoe) {
  const Json a = recommend(kQwen3Moe);
  ASSERT_TRUE(a.contains("candidates"));
  EXPECT_EQ(row(a, "Q8_0")["solve"], "n-cpu-moe");
}

TEST(GgufQuantField, OffloadFlagsWorkOnTheSynthesizedTensorList) {
  std::vector<std::string> args = {"inspect", "-m", kQwen3Moe, "--engine", "llamacpp",
                                   "--quant", "Q4_K_M", "-c", "16384", "--gpu", "rtx4090",
                                   "--json"};
  testing::CommandResult all = run_memfit(args);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  args.insert(args.end(), {"--n-cpu-moe", "48"});
  testing::CommandResult moe = run_memfit(args);
  ASSERT_EQ(moe.exit_code, 0) << moe.err;
  const Json a = Json::parse(all.out), m = Json::parse(moe.out);
  EXPECT_EQ(a["weights_bytes"], m["weights_bytes"]);
  EXPECT_NE(all.err.find("weights priced as the Q4_K_M GGUF llama-quantize would write"),
            std::string::npos)
      << all.err;
}

}  // namespace
}  // namespace memfit
