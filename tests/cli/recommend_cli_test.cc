// recommend-quant agrees with inspect for the same inputs, and picks the
// most precise mode that fits.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_checkpoints.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

TEST(RecommendQuantCli, AsIsRowEqualsInspectAndPreflight) {
  std::map<std::string, std::string> env = {{"MEMFIT_MEMORY_LIMIT", "12GiB"}};
  auto rec = run_memfit({"recommend-quant", "-m", kExample, "--json", "--max-tokens", "4096"}, env);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto ins = run_memfit({"inspect", "-m", kExample, "--json", "--max-tokens", "4096"}, env);
  nlohmann::json r = nlohmann::json::parse(rec.out);
  nlohmann::json i = nlohmann::json::parse(ins.out);
  ASSERT_EQ(r["candidates"].size(), 3u);
  EXPECT_EQ(r["candidates"][0]["mode"], "as-is");
  EXPECT_EQ(r["candidates"][0]["total_bytes"], i["total_bytes"]);
  EXPECT_EQ(r["candidates"][0]["weights_bytes"], i["weights_bytes"]);
  EXPECT_EQ(r["candidates"][0]["fits"], i["fits"]);
  // preflight generate with 3000 + 1096 = 4096 tokens: the same estimate.
  auto pre = run_memfit({"preflight", "generate", "-m", kExample, "--json", "--prompt-tokens",
                         "3000", "--max-tokens", "1096"},
                        env);
  ASSERT_EQ(pre.exit_code, 0) << pre.err;
  nlohmann::json p = nlohmann::json::parse(pre.out);
  EXPECT_EQ(p["inputs"]["max_tokens"], 4096);
  EXPECT_EQ(r["candidates"][0]["total_bytes"], p["total_bytes"]);
  EXPECT_EQ(r["candidates"][0]["weights_bytes"], p["weights_bytes"]);
  // 8,307,783,680 weights + 671,088,640 KV (40 x 2 x 8 x 128 x 2 B x 4096)
  // + 1,795,774,464 overhead (0.2 x 8,978,872,320) + 184,853,248 activation.
  EXPECT_EQ(p["total_bytes"], 10959500032u);
  // The checkpoint is already 4-bit: int8 is larger and never recommended;
  // as-is fits 12 GiB at 4096 tokens, so it is the answer.
  EXPECT_EQ(r["recommended"], "as-is");
}

// Every warning recommend-quant, fit and plot print on stderr is in their
// --json answer too: the example has no weight headers to price.
TEST(RecommendQuantCli, WarningsOnStderrAreInTheJson) {
  std::map<std::string, std::string> env = {{"MEMFIT_MEMORY_LIMIT", "12GiB"}};
  const std::string no_headers =
      "no *.safetensors headers to read: quantized sizes are estimated from the config's "
      "parameter count";
  auto rec = run_memfit({"recommend-quant", "-m", kExample, "--json"}, env);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  nlohmann::json r = nlohmann::json::parse(rec.out);
  EXPECT_NE(rec.err.find("memfit: warning: " + no_headers + "\n"), std::string::npos) << rec.err;
  EXPECT_NE(std::find(r["warnings"].begin(), r["warnings"].end(), no_headers), r["warnings"].end());
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"fit", "-m", kExample, "--json", "--solve", "max-tokens"},
           {"recommend-quant", "-m", kExample, "--json"}}) {
    auto run = run_memfit(args, env);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    nlohmann::json j = nlohmann::json::parse(run.out);
    // The example's index is unverified (no shard beside it): said on both.
    size_t printed = 0;
    for (const auto& w : j["warnings"]) {
      EXPECT_NE(run.err.find(w.get<std::string>()), std::string::npos) << w;
      ++printed;
    }
    EXPECT_GE(printed, 1u);
  }
}

TEST(RecommendQuantCli, PicksTheMostPreciseModeThatFits) {
  // 8 layers of 4096 x 4096 BF16 (32 MiB each) + embeddings 32000 x 4096 (250 MiB):
  // as is 8 x 33,554,432 + 262,144,000 = 530,579,456 B.
  TempDir dir;
  write_bf16_llama_checkpoint(dir);
  // int8: elements (8 x 16,777,216 + 131,072,000) = 265,289,728 x 1 + /64 x 4 = 16,580,608
  // = 281,870,336 B of weights. KV 8 x 2 x 8 x 128 x 2 B x 1024 = 33,554,432;
  // activation 2 x 1024 x 8192 x 2 + 32000 x 2 = 33,618,432.
  // as is: 1.2 x (530,579,456 + 33,554,432) + 33,618,432 = 710,579,098 > 600 MiB (629,145,600);
  // int8:  1.2 x (281,870,336 + 33,554,432) + 33,618,432 = 412,128,154: fits.
  auto r = run_memfit({"recommend-quant", "-m", dir.path(), "--json", "--max-tokens", "1024"},
                      {{"MEMFIT_MEMORY_LIMIT", "600MiB"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["candidates"][0]["weights_bytes"], 530579456u);
  EXPECT_EQ(j["candidates"][0]["total_bytes"], 710579098u);
  EXPECT_EQ(j["candidates"][1]["total_bytes"], 412128154u);
  EXPECT_EQ(j["candidates"][1]["weights_bytes"], 281870336u);
  EXPECT_EQ(j["candidates"][0]["fits"], false);
  EXPECT_EQ(j["candidates"][1]["fits"], true);
  EXPECT_EQ(j["recommended"], "int8");
  EXPECT_TRUE(j["candidates"][1]["max_tokens_that_fit"].get<uint64_t>() >= 1024u);
}

// It prices MLX quantizations of a safetensors checkpoint: a GGUF file
// (llamacpp by default) is refused, saying what to do instead (name the
// folder: recommend_gguf_repo_cli_test.cc); --engine llamacpp on a
// safetensors checkpoint ranks GGUF file types.
TEST(RecommendQuantCli, RefusesAGgufFileAndRanksGgufTypesOfACheckpointUnderLlamaCpp) {
  TempDir dir;
  const std::string gguf = dir.file_path("qwen3-8b.gguf");
  qwen3_8b_gguf().write(gguf);
  auto file = run_memfit({"recommend-quant", "-m", gguf}, {{"MEMFIT_MEMORY_LIMIT", "16GiB"}});
  EXPECT_EQ(file.exit_code, 2);
  EXPECT_EQ(file.out, "");
  EXPECT_EQ(file.err.substr(file.err.find("memfit: recommend-quant")),
            "memfit: recommend-quant prices MLX quantizations of a safetensors checkpoint (engine "
            "mlxcel), or each GGUF file of a folder of them: for a GGUF model, name its folder or "
            "its Hugging Face repo\n")
      << file.err;
  // Named, llamacpp ranks the GGUF file types llama-quantize would write
  // (recommend_gguf_types_cli_test.cc has the figures).
  auto named = run_memfit({"recommend-quant", "-m", kExample, "--engine", "llamacpp", "--json"},
                          {{"MEMFIT_MEMORY_LIMIT", "16GiB"}});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  nlohmann::json j = nlohmann::json::parse(named.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  ASSERT_EQ(j["candidates"].size(), 12u);
  EXPECT_EQ(j["candidates"][0]["file_type"], "F16");
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

// Each GGUF file type's row under llama.cpp carries the speed inspect
// gives at its placement, and "fastest" is the row that fits and ranks
// first by speed: fewest bytes at an unknown bandwidth (the host's), then
// the fastest decode at the end of the context.
TEST(RecommendQuantCli, LlamaCppRowsCarryTheirSpeedAndTheFastestRanksFirst) {
  const std::string qwen = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3/Qwen3-8B";
  auto rec = run_memfit({"recommend-quant", "-m", qwen, "--engine", "llamacpp", "--gpu", "rtx4060",
                         "-c", "8192", "--json"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const nlohmann::json r = nlohmann::json::parse(rec.out);
  const nlohmann::json* fastest = nullptr;
  for (const nlohmann::json& row : r["candidates"]) {
    if (!row["fits"]) continue;
    ASSERT_TRUE(row["decode_tokens_per_second"].is_number()) << row.dump();
    // Every layer on the GPU: nothing at an unknown bandwidth, and the
    // ranked figure is the report's decode at the end of the context.
    if (row["all_on_gpu"]) {
      EXPECT_EQ(row["not_counted"]["bytes_per_token"], 0);
      EXPECT_EQ(row["decode_tokens_per_second"], row["speed"]["decode_tokens_per_second"]["end"]["median"]);
    }
    auto faster = [](const nlohmann::json& a, const nlohmann::json& b) {
      const uint64_t ua = a["not_counted"]["bytes_per_token"], ub = b["not_counted"]["bytes_per_token"];
      if (ua != ub) return ua < ub;
      return a["decode_tokens_per_second"].get<double>() > b["decode_tokens_per_second"].get<double>();
    };
    if (fastest == nullptr || faster(row, *fastest)) fastest = &row;
  }
  ASSERT_NE(fastest, nullptr);
  EXPECT_EQ(r["fastest"], (*fastest)["file_type"]);
  // The recommendation is still the best quality that fits on the GPU.
  EXPECT_EQ(r["recommended"], "Q5_K_M");
  // The Q4_K_M row's speed is inspect's for that file at -ngl all.
  auto ins = run_memfit({"inspect", "-m", qwen, "--engine", "llamacpp", "--quant", "Q4_K_M", "--gpu",
                         "rtx4060", "-c", "8192", "--json"});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  const nlohmann::json i = nlohmann::json::parse(ins.out);
  for (const nlohmann::json& row : r["candidates"]) {
    if (row["file_type"] == "Q4_K_M") {
      EXPECT_EQ(row["speed"], i["speed"]);
    }
  }
}

// mlxcel lists its modes as asked (as-is, then --bits 4 8) and the
// recommendation is the most precise that fits (as-is on a 24 GB Mac);
// plans_by_speed lists them fastest first, int4, int8, as-is, each step
// with its cost.
TEST(RecommendQuantCli, MlxcelModesThatFitAreListedByDecodeSpeed) {
  const std::string qwen = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3/Qwen3-1.7B-MLX-bf16";
  std::vector<std::string> args = {"recommend-quant", "-m", qwen, "--mac", "m4-pro-24gb", "--bits", "4", "8",
                                   "--max-tokens", "8192"};
  auto text = run_memfit(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  args.push_back("--json");
  auto rec = run_memfit(args);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const nlohmann::json r = nlohmann::json::parse(rec.out);
  ASSERT_EQ(r["candidates"].size(), 3u);
  EXPECT_EQ(r["candidates"][0]["mode"], "as-is");
  EXPECT_EQ(r["candidates"][1]["mode"], "int4");
  EXPECT_EQ(r["recommended"], "as-is");
  EXPECT_EQ(r["fastest"], "int4");
  const nlohmann::json& plans = r["plans_by_speed"];
  ASSERT_EQ(plans.size(), 3u) << plans.dump(1);
  EXPECT_EQ(plans[0]["mode"], "int4");
  EXPECT_EQ(plans[1]["mode"], "int8");
  EXPECT_EQ(plans[2]["mode"], "as-is");
  EXPECT_TRUE(plans[0]["step"].is_null());
  // int4 -> int8: without headers both are priced on the config's
  // 1,720,567,808 parameters (the tied 151,936 x 2,048 embedding
  // 311,164,928, 28 layers of 50,331,648 matrix weights and 4,096 norm
  // weights, the final norm's 2,048), each group of 64 with a 2 B scale
  // and a 2 B bias (26,883,872 groups: 107,535,488 B):
  //   int4: 1,720,567,808 / 2 + 107,535,488 = 967,819,392 B
  //   int8: 1,720,567,808     + 107,535,488 = 1,828,103,296 B
  // 860,283,904 B a token more, the same cache at the end of 8,192 tokens
  // (28 layers x K and V x 8 heads x 128 x 2 B = 114,688 B a token:
  // 939,524,096 B); at the M4 Pro's 273 GB/s 860,283,904 / 273e9 =
  // 0.003151 s a token more at the bound.
  const nlohmann::json& int4 = r["candidates"][1];
  const nlohmann::json& int8 = r["candidates"][2];
  EXPECT_EQ(int4["weights_bytes"], 967819392u);
  EXPECT_EQ(int8["weights_bytes"], 1828103296u);
  const nlohmann::json& d4 = int4["speed"]["devices"][0];
  const nlohmann::json& d8 = int8["speed"]["devices"][0];
  EXPECT_EQ(d4["kv_bytes"], 939524096u);
  EXPECT_EQ(d8["kv_bytes"], 939524096u);
  EXPECT_NEAR(d8["bound_seconds_per_token_end"].get<double>() - d4["bound_seconds_per_token_end"].get<double>(),
              860283904 / 273e9, 1e-12);
  EXPECT_GT(plans[0]["decode_tokens_per_second"].get<double>(), plans[1]["decode_tokens_per_second"].get<double>());
  EXPECT_GT(plans[1]["decode_tokens_per_second"].get<double>(), plans[2]["decode_tokens_per_second"].get<double>());
  EXPECT_EQ(plans[1]["step"].get<std::string>().rfind("int4 -> int8 (923.0 MiB -> 1.70 GiB): decode ", 0), 0u)
      << plans[1]["step"];
  EXPECT_NE(text.out.find("\nBy decode speed at 8192 tokens (docs/speed.md):\n  int4 (923.0 MiB): decode "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\nRecommended: as-is, decode "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nFastest: int4, decode "), std::string::npos) << text.out;
}

}  // namespace
}  // namespace memfit
