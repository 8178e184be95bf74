// memfit recommend-quant -m <folder of GGUF models>: one row per model,
// each the estimate inspect gives for that file alone with the same flags,
// and the most precise that fits; the same for a Hugging Face name whose
// snapshot the cache holds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/gguf_fixtures.h"
#include "support/hf_cache_writer.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

// Qwen3-8B's geometry in Q8_0: 4,096 elements a row are 128 blocks of 34 B
// = 4,352 B; the token embedding [4096, 151936] is 661,225,472 B and each
// of the 36 [4096, 4096] matrices 17,825,792 B, 641,728,512 B in all:
// 1,302,953,984 B of weights.
GgufWriter qwen3_8b_q8_0_gguf() {
  GgufWriter w = qwen3_8b_gguf_keys();
  w.add_tensor("token_embd.weight", GgmlType::kQ8_0, {4096, 151936});
  for (int layer = 0; layer < 36; ++layer) {
    w.add_tensor("blk." + std::to_string(layer) + ".attn_q.weight", GgmlType::kQ8_0, {4096, 4096});
  }
  return w;
}

// The same in F16: 2 B an element; the token embedding 1,244,659,712 B
// and each matrix 33,554,432 B, 1,207,959,552 B in all: 2,452,619,264 B.
GgufWriter qwen3_8b_f16_gguf() {
  GgufWriter w = qwen3_8b_gguf_keys();
  w.add_tensor("token_embd.weight", GgmlType::kF16, {4096, 151936});
  for (int layer = 0; layer < 36; ++layer) {
    w.add_tensor("blk." + std::to_string(layer) + ".attn_q.weight", GgmlType::kF16, {4096, 4096});
  }
  return w;
}

class RecommendGgufRepoCli : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = dir_.make_dir("Qwen3-8B-GGUF");
    // Sparse files: the data section is 689,799,168 B and 1,302,953,984 B,
    // every tensor a multiple of 32 B (no padding between them).
    q4_bytes_ = qwen3_8b_gguf().write(folder_ + "/Qwen3-8B-Q4_K_M.gguf");
    q8_bytes_ = qwen3_8b_q8_0_gguf().write(folder_ + "/Qwen3-8B-Q8_0.gguf");
  }

  nlohmann::json recommend(const std::string& model, const std::string& limit) {
    auto r = run_memfit({"recommend-quant", "-m", model, "-c", "4096", "--repack", "none",
                         "--memory-limit", limit, "--json"},
                        env_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  uint64_t inspect_total(const std::string& file) {
    auto r = run_memfit({"inspect", "-m", file, "-c", "4096", "--repack", "none",
                         "--memory-limit", "64GiB", "--json"},
                        env_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["total_bytes"].get<uint64_t>();
  }

  TempDir dir_;
  std::string folder_;
  uint64_t q4_bytes_ = 0;
  uint64_t q8_bytes_ = 0;
  std::map<std::string, std::string> env_;
};

TEST_F(RecommendGgufRepoCli, EachRowIsInspectsAnswerAndTheLargestFittingIsRecommended) {
  EXPECT_EQ(q4_bytes_ - qwen3_8b_gguf().header().size(), 689'799'168u);
  EXPECT_EQ(q8_bytes_ - qwen3_8b_q8_0_gguf().header().size(), 1'302'953'984u);
  const uint64_t q4_total = inspect_total(folder_ + "/Qwen3-8B-Q4_K_M.gguf");
  const uint64_t q8_total = inspect_total(folder_ + "/Qwen3-8B-Q8_0.gguf");

  nlohmann::json j = recommend(folder_, "64GiB");
  ASSERT_EQ(j["models"].size(), 2u);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["ctx_size"], 4096);
  EXPECT_EQ(j["models"][0]["file"], "Qwen3-8B-Q4_K_M.gguf");
  EXPECT_EQ(j["models"][0]["quant"], "Q4_K_M");
  EXPECT_EQ(j["models"][0]["main_type"], "q4_K");
  EXPECT_EQ(j["models"][0]["size_bytes"], q4_bytes_);
  EXPECT_EQ(j["models"][0]["total_bytes"], q4_total);
  EXPECT_EQ(j["models"][1]["file"], "Qwen3-8B-Q8_0.gguf");
  EXPECT_EQ(j["models"][1]["quant"], "Q8_0");
  EXPECT_EQ(j["models"][1]["size_bytes"], q8_bytes_);
  EXPECT_EQ(j["models"][1]["total_bytes"], q8_total);
  EXPECT_EQ(j["recommended"], "Qwen3-8B-Q8_0.gguf");

  // A budget between the two totals: only Q4_K_M fits.
  j = recommend(folder_, std::to_string((q4_total + q8_total) / 2) + "B");
  EXPECT_EQ(j["models"][0]["fits"], true);
  EXPECT_EQ(j["models"][1]["fits"], false);
  EXPECT_EQ(j["recommended"], "Qwen3-8B-Q4_K_M.gguf");
  j = recommend(folder_, "1MiB");
  EXPECT_EQ(j["recommended"], nullptr);
}

TEST_F(RecommendGgufRepoCli, TheTableNamesEachFileAndTheChoice) {
  auto r = run_memfit({"recommend-quant", "-m", folder_, "-c", "4096", "--repack", "none",
                       "--memory-limit", "64GiB"},
                      env_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 GGUF models, llama.cpp at 4096 tokens of context, 1 sequence"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  Qwen3-8B-Q4_K_M.gguf  Q4_K_M    q4_K"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nRecommended: Qwen3-8B-Q8_0.gguf\n"), std::string::npos) << r.out;
}

// On a GPU of known bandwidth each file gets its decode speed, and the
// files that fit are listed fastest first with each step's cost: in path
// order F16, Q4_K_M, Q8_0; by speed Q4_K_M, Q8_0, F16 (the fewer bytes a
// token reads, the faster). The recommendation stays the most precise.
TEST_F(RecommendGgufRepoCli, OnAKnownGpuTheFilesAreRankedByDecodeSpeed) {
  qwen3_8b_f16_gguf().write(folder_ + "/Qwen3-8B-F16.gguf");
  const std::vector<std::string> args = {"recommend-quant", "-m", folder_, "-c", "4096", "--repack", "none",
                                         "--gpu", "rtx4090"};
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  auto r = run_memfit(json_args, env_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["models"].size(), 3u);
  EXPECT_EQ(j["models"][0]["file"], "Qwen3-8B-F16.gguf");
  EXPECT_EQ(j["recommended"], "Qwen3-8B-F16.gguf");
  EXPECT_EQ(j["fastest"], "Qwen3-8B-Q4_K_M.gguf");
  const nlohmann::json& plans = j["plans_by_speed"];
  ASSERT_EQ(plans.size(), 3u) << plans.dump(1);
  EXPECT_EQ(plans[0]["file"], "Qwen3-8B-Q4_K_M.gguf");
  EXPECT_EQ(plans[1]["file"], "Qwen3-8B-Q8_0.gguf");
  EXPECT_EQ(plans[2]["file"], "Qwen3-8B-F16.gguf");
  EXPECT_TRUE(plans[0]["step"].is_null());
  EXPECT_GT(plans[0]["decode_tokens_per_second"].get<double>(), plans[1]["decode_tokens_per_second"].get<double>());
  EXPECT_GT(plans[1]["decode_tokens_per_second"].get<double>(), plans[2]["decode_tokens_per_second"].get<double>());
  // Every layer on the GPU, each file's whole cache there at the end of
  // 4,096 tokens: 4,096 x 147,456 B = 603,979,776 B. The Q8_0 file reads
  // 1,302,953,984 - 689,799,168 = 613,154,816 B more a token than the
  // Q4_K_M file (its 36 matrices, and the token embedding the tied output
  // layer reads on the GPU): 613,154,816 / 1008e9 s more a token.
  const nlohmann::json& q4 = j["models"][1]["speed"]["devices"][0];
  const nlohmann::json& q8 = j["models"][2]["speed"]["devices"][0];
  EXPECT_EQ(q4["kv_bytes"], 603979776u);
  EXPECT_EQ(q8["kv_bytes"], 603979776u);
  EXPECT_NEAR(q8["bound_seconds_per_token_end"].get<double>() - q4["bound_seconds_per_token_end"].get<double>(),
              613154816 / 1008e9, 1e-12);
  EXPECT_EQ(j["models"][1]["decode_tokens_per_second"], plans[0]["decode_tokens_per_second"]);

  auto text = run_memfit(args, env_);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::string& out = text.out;
  EXPECT_NE(out.find("\nBy decode speed at 4096 tokens (docs/speed.md):\n  Q4_K_M ("), std::string::npos) << out;
  EXPECT_NE(out.find("\n  Q4_K_M -> Q8_0 ("), std::string::npos) << out;
  EXPECT_NE(out.find("\n  Q8_0 -> F16 ("), std::string::npos) << out;
  EXPECT_NE(out.find("\nRecommended: Qwen3-8B-F16.gguf, decode "), std::string::npos) << out;
  EXPECT_NE(out.find("\nFastest: Qwen3-8B-Q4_K_M.gguf, decode "), std::string::npos) << out;
}

// --engine mlxcel keeps its old meaning: one GGUF model's shapes re-priced
// at MLX widths (a folder of two is then ambiguous, as inspect says).
TEST_F(RecommendGgufRepoCli, EngineMlxcelIsNotTheFolderTable) {
  auto r = run_memfit({"recommend-quant", "-m", folder_, "--engine", "mlxcel", "--memory-limit",
                       "64GiB", "--json"},
                      env_);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("holds 2 GGUF models"), std::string::npos) << r.err;
}

TEST_F(RecommendGgufRepoCli, AHuggingFaceNameReadsItsCachedSnapshot) {
  const std::string hub = dir_.make_dir("hub");
  HfCacheWriter cache(hub);
  const std::string c = fake_commit('c');
  cache.add_gguf("unsloth/Qwen3-8B-GGUF", c, "Qwen3-8B-Q4_K_M.gguf", qwen3_8b_gguf());
  cache.add_gguf("unsloth/Qwen3-8B-GGUF", c, "Qwen3-8B-Q8_0.gguf", qwen3_8b_q8_0_gguf());
  cache.set_ref("unsloth/Qwen3-8B-GGUF", "main", c);
  env_["HF_HUB_CACHE"] = hub;
  nlohmann::json by_name = recommend("unsloth/Qwen3-8B-GGUF", "64GiB");
  nlohmann::json by_folder = recommend(folder_, "64GiB");
  ASSERT_EQ(by_name["models"].size(), 2u);
  EXPECT_EQ(by_name["models"], by_folder["models"]);
  EXPECT_EQ(by_name["recommended"], "Qwen3-8B-Q8_0.gguf");
}

}  // namespace
}  // namespace memfit
