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
const std::string kLlama8BRecommendGgufTypesCli = kCorpus + "llama3/Meta-Llama-3.1-8B";
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
  const Json a = recommend(kLlama8BRecommendGgufTypesCli);
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
  const std::vector<std::string> args = {"inspect", "-m", kLlama8BRecommendGgufTypesCli, "--engine", "llamacpp",
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
      run_memfit({"recommend-quant", "-m", kLlama8BRecommendGgufTypesCli, "--engine", "llamacpp", "--gpu", "rtx4090",
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

// The rows stay largest first (F16 .. Q2_K); plans_by_speed lists the
// rows that fit fastest first, the reverse here (every row has all 9
// layers on the RTX 4090, so the fewer bytes a token reads the faster),
// each step with its cost in decode.
TEST(RecommendGgufTypes, RowsThatFitAreListedByDecodeSpeedWithEachStepsCost) {
  TempDir dir;
  write_bf16_llama_checkpoint(dir);
  const Json a = recommend(dir.path());
  ASSERT_TRUE(a.contains("plans_by_speed"));
  EXPECT_EQ(a["candidates"][0]["file_type"], "F16");
  EXPECT_EQ(a["fastest"], "Q2_K");
  const Json& plans = a["plans_by_speed"];
  ASSERT_EQ(plans.size(), 12u) << plans.dump(1);
  EXPECT_EQ(plans[0]["quant"], "Q2_K");
  EXPECT_EQ(plans[0]["file"], std::filesystem::path(dir.path()).filename().string() + "-Q2_K.gguf");
  EXPECT_TRUE(plans[0]["step"].is_null());
  EXPECT_EQ(plans[10]["quant"], "Q8_0");
  EXPECT_EQ(plans[11]["quant"], "F16");
  for (size_t i = 1; i < plans.size(); ++i) {
    EXPECT_GT(plans[i - 1]["decode_tokens_per_second"].get<double>(),
              plans[i]["decode_tokens_per_second"].get<double>())
        << plans[i];
    EXPECT_EQ(plans[i]["not_counted"]["bytes_per_token"], 0u);
  }
  // The last step, Q8_0 -> F16. The token embedding is read a row a token
  // on the host and not counted; on the GPU a token reads the blocks, the
  // untied output and the F32 norms (278,528 B):
  //   F16:  8 x 92,274,688 x 2 + 131,072,000 x 2 + 278,528 = 1,738,817,536 B
  //   Q8_0: (8 x 92,274,688 + 131,072,000) / 32 x 34 + 278,528 = 923,877,376 B
  // and both the same cache at the end of 32,768 tokens (8 layers x K and V
  // x 1,024 x 2 B = 32,768 B a token: 1,073,741,824 B). The step costs
  // 814,940,160 B a token more, at the RTX 4090's 1,008 GB/s
  // 814,940,160 / 1008e9 = 0.000808 s a token at the bound.
  const Json& f16 = row(a, "F16")["speed"]["devices"][0];
  const Json& q8 = row(a, "Q8_0")["speed"]["devices"][0];
  EXPECT_EQ(f16["active_weight_bytes"], 1738817536u);
  EXPECT_EQ(q8["active_weight_bytes"], 923877376u);
  EXPECT_EQ(q8["kv_bytes"], 1073741824u);
  EXPECT_NEAR(f16["bound_seconds_per_token_end"].get<double>() - q8["bound_seconds_per_token_end"].get<double>(),
              814940160 / 1008e9, 1e-12);
  EXPECT_EQ(plans[11]["step"].get<std::string>().rfind("Q8_0 -> F16 (1013.9 MiB -> 1.86 GiB; -ngl 9 (all)): decode ", 0),
            0u)
      << plans[11]["step"];

  testing::CommandResult text =
      run_memfit({"recommend-quant", "-m", dir.path(), "--engine", "llamacpp", "--gpu", "rtx4090", "-c", "32768"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\nBy decode speed at 32768 tokens (docs/speed.md):\n  Q2_K (408.3 MiB; -ngl 9 (all)): "
                          "decode "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\n  Q8_0 -> F16 (1013.9 MiB -> 1.86 GiB; -ngl 9 (all)): decode "), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\nFastest: Q2_K, decode "), std::string::npos) << text.out;
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
