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
    if (row["file_type"] == "Q4_K_M") EXPECT_EQ(row["speed"], i["speed"]);
  }
}

}  // namespace
}  // namespace memfit
