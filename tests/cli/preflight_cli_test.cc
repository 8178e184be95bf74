// `memfit preflight generate|serve`: KV length, slot arithmetic, the paged
// KV budget, exit 3 when it does not fit, --force. Figures are for the
// bundled Qwen3-14B-MLX-4bit (see tests/engines/mlxcel/estimate_test.cc) and,
// for llama-server, the Qwen3-8B GGUF of tests/support/small_ggufs.h.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
const std::map<std::string, std::string> k64GiB = {{"MEMFIT_MEMORY_LIMIT", "64GiB"}};

TEST(PreflightGenerate, KvLengthIsPromptPlusNewTokens) {
  // 7000 + 1192 = 8192 tokens: the default inspect figures, total 11,764,806,400.
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                       "--max-tokens", "1192", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["max_tokens"], 8192);
  EXPECT_EQ(j["total_bytes"], 11764806400u);
  EXPECT_EQ(j["preflight"]["mode"], "generate");
  EXPECT_EQ(j["preflight"]["fits"], true);
  EXPECT_EQ(j["preflight"]["forced"], false);
}

TEST(PreflightGenerate, DoesNotFitExitsThreeAfterTheBreakdown) {
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                       "--max-tokens", "1192"},
                      {{"MEMFIT_MEMORY_LIMIT", "8GiB"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("DOES NOT FIT"), std::string::npos);
  auto forced = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                            "--max-tokens", "1192", "--force", "--json"},
                           {{"MEMFIT_MEMORY_LIMIT", "8GiB"}});
  EXPECT_EQ(forced.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(forced.out);
  EXPECT_EQ(j["preflight"]["fits"], false);
  EXPECT_EQ(j["preflight"]["forced"], true);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "7000",
                        "--max-tokens", "1192", "--no-memory-check"},
                       {{"MEMFIT_MEMORY_LIMIT", "8GiB"}})
                .exit_code,
            0);
}

TEST(PreflightGenerate, FallbackWeightsDoNotPassTheGate) {
  // An empty folder: no config.json, no weights, so the loader prices the
  // fallback 7B x 2 bytes = 14,000,000,000 B, well inside 64 GiB.
  TempDir empty;
  auto r = run_memfit({"preflight", "generate", "-m", empty.path(), "--prompt-tokens", "5",
                       "--max-tokens", "5"},
                      k64GiB);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("DOES NOT FIT: fallback weights: no config.json and no weight files"),
            std::string::npos)
      << r.out;
  auto json = run_memfit({"preflight", "generate", "-m", empty.path(), "--prompt-tokens", "5",
                          "--max-tokens", "5", "--json"},
                         k64GiB);
  EXPECT_EQ(json.exit_code, 3);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["preflight"]["fits"], false);
  EXPECT_NE(j["preflight"]["refused"].get<std::string>().find("--allow-fallback"),
            std::string::npos);
  // --allow-fallback: the seed's behaviour, the figures decide.
  auto allowed = run_memfit({"preflight", "generate", "-m", empty.path(), "--prompt-tokens", "5",
                             "--max-tokens", "5", "--allow-fallback", "--json"},
                            k64GiB);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  nlohmann::json a = nlohmann::json::parse(allowed.out);
  EXPECT_EQ(a["preflight"]["fits"], true);
  EXPECT_FALSE(a["preflight"].contains("refused"));
}

TEST(PreflightGenerate, PromptFileCountsItsBytes) {
  std::string path = (std::filesystem::temp_directory_path() / "memfit-prompt.txt").string();
  std::ofstream(path) << std::string(1000, 'x');
  // 1000 bytes + 24 new = 1024 tokens: 40 x 2 x 8 x 128 x 2 B x 1024 = 167,772,160.
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--prompt-file", path,
                       "--max-tokens", "24", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kv_bytes_total"], 167772160u);
  EXPECT_NE(r.err.find("counted as 1000 prompt tokens"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(PreflightGenerate, UsageErrors) {
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--max-tokens", "5"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "5"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-tokens", "5",
                        "--prompt-file", "/etc/hostname", "--max-tokens", "5"})
                .exit_code,
            2);
  EXPECT_EQ(run_memfit({"preflight", "generate", "-m", kExample, "--prompt-file", "/nonexistent",
                        "--max-tokens", "5"})
                .exit_code,
            2);
}

TEST(PreflightGenerate, LlamaCppContextIsPromptPlusNewTokensUnlessGiven) {
  // 3,000 + 1,000 = 4,000 tokens, padded to 4,096 cells. Qwen3-14B: K + V
  // = 40 layers x 4,096 cells x 2 x 8 x 128 x 2 B = 671,088,640 B.
  auto r = run_memfit({"preflight", "generate", "-m", kExample, "--engine", "llamacpp",
                       "--prompt-tokens", "3000", "--max-tokens", "1000", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["inputs"]["ctx_size"], 4000);
  EXPECT_EQ(j["inputs"]["n_ctx"], 4096);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 671088640u);
  EXPECT_EQ(j["preflight"]["fits"], true);
  // -c wins: 8,192 cells, twice the KV.
  r = run_memfit({"preflight", "generate", "-m", kExample, "--engine", "llamacpp",
                  "--prompt-tokens", "3000", "--max-tokens", "1000", "-c", "8192", "--json"},
                 k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["n_ctx"], 8192);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 1342177280u);
}

TEST(PreflightServe, SlotsAndThePagedKvBudget) {
  // ctx 32768 over 4 slots: 8192 per slot, batch 4.
  // kv 1,342,177,280 x 4 = 5,368,709,120; activation 2 x 4 x 2048 x 22528 x 2
  // + 4 x 151936 x 2 = 739,412,992; overhead 0.2 x (8,307,783,680 + 5,368,709,120)
  // = 2,735,298,560; total 17,151,204,352.
  // auto KV budget: floor((68,719,476,736 - 739,412,992) / 1.2) - 8,307,783,680
  //   = 56,650,053,120 - 8,307,783,680 = 48,342,269,440.
  // workspace (batch 4): 2 x (128 + 4) x 128 x 129 x 4 = 17,436,672.
  // blocks: floor((48,342,269,440 - 17,436,672) / (32 x 163,840)) = 9217.
  // prompt cache: min(68,719,476,736 - 17,151,204,352, 5,368,709,120) = 5,368,709,120.
  auto r = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["max_tokens"], 8192);
  EXPECT_EQ(j["inputs"]["batch"], 4);
  EXPECT_EQ(j["total_bytes"], 17151204352u);
  const nlohmann::json& s = j["serve"];
  EXPECT_EQ(s["active_slots"], 4);
  EXPECT_EQ(s["effective_context"], 8192);
  EXPECT_EQ(s["kv_cache_budget_bytes"], 48342269440u);
  EXPECT_EQ(s["kv_block_size"], 32);
  EXPECT_EQ(s["kv_blocks"], 9217);
  EXPECT_EQ(s["per_slot_overhead_bytes"], 17436672u);
  EXPECT_EQ(s["prompt_cache_capacity_bytes"], 5368709120u);
  EXPECT_EQ(j["preflight"]["mode"], "serve");
}

TEST(PreflightServe, MaxBatchSizeWinsAndNoBatchIsOneSlot) {
  auto r = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                       "--n-parallel", "8", "--max-batch-size", "2", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["serve"]["effective_context"], 16384);
  auto one = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                         "--no-batch", "--json"},
                        k64GiB);
  EXPECT_EQ(nlohmann::json::parse(one.out)["serve"]["active_slots"], 1);
  EXPECT_EQ(nlohmann::json::parse(one.out)["serve"]["effective_context"], 32768);
  // ctx 0: 8192 per slot.
  auto zero = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "0", "--json"},
                         k64GiB);
  EXPECT_EQ(nlohmann::json::parse(zero.out)["serve"]["effective_context"], 8192);
}

TEST(PreflightServe, KvBudgetNoneAndBytes) {
  auto none = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                          "--kv-cache-budget", "none", "--json"},
                         k64GiB);
  EXPECT_TRUE(nlohmann::json::parse(none.out)["serve"]["kv_cache_budget_bytes"].is_null());
  // 1 GiB: floor((1,073,741,824 - 17,436,672) / 5,242,880) = 201.
  auto bytes = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                           "--kv-cache-budget", "1GiB", "--json"},
                          k64GiB);
  EXPECT_EQ(nlohmann::json::parse(bytes.out)["serve"]["kv_blocks"], 201);
}

TEST(PreflightServe, ErrorsAndVerdicts) {
  // 1000 over 4 slots is 250 tokens per slot: a usage error.
  auto tiny = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "1000"});
  EXPECT_EQ(tiny.exit_code, 2);
  EXPECT_EQ(tiny.err,
            "memfit: --ctx-size: 1000 over 4 slots leaves 250 tokens per slot, under the 512 a "
            "slot needs; raise the context size or lower the slot count\n");
  EXPECT_EQ(run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768",
                        "--kv-cache-budget", "lots"})
                .exit_code,
            2);
  // total 17,151,204,352 > 15 GiB = 16,106,127,360.
  EXPECT_EQ(run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768"},
                       {{"MEMFIT_MEMORY_LIMIT", "15GiB"}})
                .exit_code,
            3);
  EXPECT_EQ(run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768", "--force"},
                       {{"MEMFIT_MEMORY_LIMIT", "15GiB"}})
                .exit_code,
            0);
  EXPECT_EQ(run_memfit({"preflight"}).exit_code, 2);
}

TEST(PreflightServe, NParallelIsAlsoSpelledParallelAndNp) {
  // One flag, three names: the same slots as --n-parallel 8.
  std::string expected;
  for (const char* flag : {"--n-parallel", "--parallel", "-np"}) {
    auto r = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768", flag, "8",
                         "--json"},
                        k64GiB);
    ASSERT_EQ(r.exit_code, 0) << flag << r.err;
    const nlohmann::json serve = nlohmann::json::parse(r.out)["serve"];
    EXPECT_EQ(serve["active_slots"], 8) << flag;
    EXPECT_EQ(serve["effective_context"], 4096) << flag;
  }
  // llama.cpp's own settings are refused under mlxcel.
  auto r = run_memfit({"preflight", "serve", "-m", kExample, "--ctx-size", "32768", "-b", "512"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(r.err.find("memfit: --")),
            "memfit: --batch-size: is a llama.cpp setting: give engine llamacpp\n");
}

// llama-server (a GGUF model's default engine): -c is the total context,
// split over --parallel slots. Qwen3-8B's f16 KV is 36 layers x 2 x 8 KV
// heads x 128 x 2 B = 147,456 B per cell; its logits 4 B x 151,936 =
// 607,744 B per sequence.
class LlamaServerPreflight : public ::testing::Test {
 protected:
  void SetUp() override { qwen3_8b_gguf().write(gguf_); }

  testing::CommandResult serve(std::vector<std::string> args, const std::string& limit = "16GiB") const {
    std::vector<std::string> all = {"preflight", "serve", "-m", gguf_, "--memory-limit", limit};
    all.insert(all.end(), args.begin(), args.end());
    return run_memfit(all);
  }

  nlohmann::json inspect(std::vector<std::string> args) const {
    std::vector<std::string> all = {"inspect", "-m", gguf_, "--json"};
    all.insert(all.end(), args.begin(), args.end());
    auto r = run_memfit(all);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  }

  // inspect's total with the flags, less the compute a library run
  // reserves and plus llama-server's: inspect keeps the library's
  // n_outputs_max (n_batch, every token an output row), the server one row
  // a slot (llama.cpp #23861), and nothing else differs.
  uint64_t inspect_total(std::vector<std::string> args, uint64_t server_compute_bytes) const {
    const nlohmann::json j = inspect(std::move(args));
    if (!j.contains("total_bytes")) return 0;
    return j["total_bytes"].get<uint64_t>() - j["llamacpp"]["compute_bytes"].get<uint64_t>() +
           server_compute_bytes;
  }

  TempDir dir_;
  const std::string gguf_ = dir_.file_path("qwen3-8b.gguf");
};

TEST_F(LlamaServerPreflight, ParallelAutoIsFourSlotsSharingOneCache) {
  auto r = serve({"-c", "16384", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["inputs"]["n_seq"], 4);
  EXPECT_EQ(j["inputs"]["streams"], 1);
  EXPECT_EQ(j["inputs"]["n_ctx"], 16384);
  // KV 16,384 x 147,456 = 2,415,919,104; logits 4 x 607,744 = 2,430,976.
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 2415919104u);
  EXPECT_EQ(j["llamacpp"]["context"]["output_bytes"], 2430976u);
  EXPECT_EQ(j["llamacpp"]["context_bytes"], 2418350080u);
  EXPECT_EQ(j["serve"], (nlohmann::json{{"active_slots", 4},
                                        {"effective_context", 16384},
                                        {"kv_unified", true},
                                        {"flags", {"-c", "16384", "-np", "4", "--kv-unified"}}}));
  EXPECT_EQ(j["preflight"]["mode"], "serve");
  EXPECT_EQ(j["preflight"]["fits"], true);
  // The same as inspect with those flags, and the server's prompt cache
  // at its default limit, 8,192 MiB (a line of its own; this model keeps
  // no checkpoints).
  EXPECT_EQ(j["llamacpp"]["extras_bytes"], 8589934592u);
  const uint64_t compute = j["llamacpp"]["compute_bytes"].get<uint64_t>();
  EXPECT_EQ(j["total_bytes"], inspect_total({"-c", "16384", "-np", "4", "--kv-unified", "--cache-ram",
                                             "8192", "--memory-limit", "16GiB"},
                                            compute));
  // The server's four output rows: its prompt graph keeps 4 rows of
  // logits, where inspect's (the library's) keeps the ubatch's 512: the
  // replayed buffer is then 327,944,192 B, the logits over the last
  // layer's tail 4 x 512 x (151,936 + 2 x 4,096) = 327,942,144 of it; the
  // server's is below that one term.
  EXPECT_EQ(j["inputs"]["n_outputs_max"], 4);
  const nlohmann::json library =
      inspect({"-c", "16384", "-np", "4", "--kv-unified", "--cache-ram", "8192", "--memory-limit", "16GiB"});
  EXPECT_EQ(library["llamacpp"]["compute_bytes"], 327'944'192u);
  EXPECT_FALSE(library["inputs"].contains("n_outputs_max"));
  EXPECT_LT(compute, 327'942'144u);

  auto text = serve({"-c", "16384"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\npreflight serve: 4 slots of 16384 cells (one unified cache)\n"
                          "llama-server flags: -c 16384 -np 4 --kv-unified\n"),
            std::string::npos)
      << text.out;
}

TEST_F(LlamaServerPreflight, GivenParallelSplitsTheContextIntoACacheEach) {
  auto r = serve({"-c", "16384", "-np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // 2 streams of 8,192 cells: the same KV, 2 sequences of logits.
  EXPECT_EQ(j["inputs"]["streams"], 2);
  EXPECT_EQ(j["inputs"]["n_ctx_seq"], 8192);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 2415919104u);
  EXPECT_EQ(j["llamacpp"]["context"]["output_bytes"], 1215488u);
  EXPECT_EQ(j["serve"]["effective_context"], 8192);
  EXPECT_EQ(j["serve"]["kv_unified"], false);
  EXPECT_EQ(j["serve"]["flags"], nlohmann::json::array({"-c", "16384", "-np", "2"}));
  // --parallel is the same flag.
  auto same = serve({"-c", "16384", "--parallel", "2", "--json"});
  EXPECT_EQ(nlohmann::json::parse(same.out)["serve"], j["serve"]);
}

TEST_F(LlamaServerPreflight, ContextZeroIsTheTrainingContextForEachStream) {
  // -np 2, a cache each: 2 x 40,960 = 81,920 cells, KV 81,920 x 147,456 =
  // 12,079,595,520 B; the flags say -c 81920 (-c 0 would mean the same to
  // the server, not to the other tools).
  auto r = serve({"-c", "0", "-np", "2", "--json"}, "64GiB");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["ctx_size"], 81920);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 12079595520u);
  EXPECT_EQ(j["serve"]["effective_context"], 40960);
  EXPECT_EQ(j["serve"]["flags"], nlohmann::json::array({"-c", "81920", "-np", "2"}));
  // One unified cache (parallel auto): 40,960 cells for all four slots.
  r = serve({"-c", "0", "--json"}, "64GiB");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["ctx_size"], 40960);
  EXPECT_EQ(j["serve"]["effective_context"], 40960);
}

TEST_F(LlamaServerPreflight, VerdictsAndForce) {
  auto priced = serve({"-c", "16384", "-np", "2", "--json"});
  ASSERT_EQ(priced.exit_code, 0) << priced.err;
  const nlohmann::json p = nlohmann::json::parse(priced.out);
  const uint64_t total =
      inspect_total({"-c", "16384", "-np", "2", "--cache-ram", "8192", "--memory-limit", "16GiB"},
                    p["llamacpp"]["compute_bytes"].get<uint64_t>());
  EXPECT_EQ(p["total_bytes"], total);
  EXPECT_EQ(serve({"-c", "16384", "-np", "2"}, std::to_string(total) + "B").exit_code, 0);
  auto over = serve({"-c", "16384", "-np", "2"}, std::to_string(total - 1) + "B");
  EXPECT_EQ(over.exit_code, 3);
  EXPECT_NE(over.out.find("DOES NOT FIT"), std::string::npos) << over.out;
  auto forced =
      serve({"-c", "16384", "-np", "2", "--force", "--json"}, std::to_string(total - 1) + "B");
  EXPECT_EQ(forced.exit_code, 0);
  const nlohmann::json j = nlohmann::json::parse(forced.out);
  EXPECT_EQ(j["preflight"]["fits"], false);
  EXPECT_EQ(j["preflight"]["forced"], true);
}

TEST_F(LlamaServerPreflight, MlxcelServerFlagsAreUsageErrors) {
  const std::string tail =
      ": is an mlxcel server setting; llama-server takes --ctx-size, --parallel, --batch-size, "
      "--ubatch-size, --cache-type-k/-v, --flash-attn, --swa-full and --kv-unified\n";
  for (const auto& [args, flag] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--max-batch-size", "2"}, "--max-batch-size"},
           {{"--no-batch"}, "--no-batch"},
           {{"--kv-cache-budget", "none"}, "--kv-cache-budget"},
           {{"--kv-block-size", "16"}, "--kv-block-size"}}) {
    std::vector<std::string> all = {"-c", "16384"};
    all.insert(all.end(), args.begin(), args.end());
    auto r = serve(all);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_EQ(r.out, "") << flag;
    EXPECT_EQ(r.err, "memfit: " + flag + tail);
  }
  // --tensor-parallel is mlxcel's too.
  EXPECT_EQ(serve({"-c", "16384", "--tensor-parallel", "2"}).exit_code, 2);
}

}  // namespace
}  // namespace memfit
