// `--engine mlx-lm` on the command line: preflight generate's JSON and text
// for the bundled Qwen3-14B-MLX-4bit (weights from its index's total_size,
// read back from the report), the schema, and the commands that refuse it
// with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kExampleMlxlmCli = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
const std::map<std::string, std::string> k64GiB = {{"MEMFIT_MEMORY_LIMIT", "64GiB"}};

TEST(MlxLmCli, PreflightGeneratePrintsThePeakAsTotalBytes) {
  auto r = run_memfit({"preflight", "generate", "-m", kExampleMlxlmCli, "--engine", "mlx-lm",
                       "--prompt-tokens", "2048", "--max-tokens", "128", "--json"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "mlx-lm");
  EXPECT_EQ(j["inputs"]["prompt_tokens"], 2048);
  EXPECT_EQ(j["inputs"]["max_tokens"], 128);
  EXPECT_EQ(j["inputs"]["full_chunks"], 0);
  EXPECT_EQ(j["inputs"]["last_chunk_tokens"], 2048);
  const nlohmann::json& m = j["mlxlm"];
  EXPECT_EQ(m["peak_phase"], "last_chunk");
  // Qwen3-14B: 40 layers x 2 x 8 x 128 x 2 B = 163,840 B per token; the
  // prompt's 2048 slots: 335,544,320 B. No --mlx-lm-version: the current
  // release (0.31.3) computes the logits of the prompt's final token only,
  // 151,936 x 2 B = 303,872 B (before 0.27.0 the whole chunk's, 2048 x
  // 151,936 x 2 = 622,329,856: tests/engines/mlxlm/releases_test.cc); the
  // widest pass is the chunk's first 2047 tokens (the final one runs alone),
  // so the MLP's 2047 x 17,408 x 2 x 3 = 213,805,056. The transient is the
  // run-ahead replay (tests/engines/mlxlm/estimate_test.cc works one by
  // hand), pinned.
  EXPECT_EQ(m["kv_bytes"], 335544320u);
  EXPECT_EQ(m["phases"]["last_chunk"]["logits_bytes"], 303872u);
  EXPECT_EQ(m["phases"]["last_chunk"]["mlp_bytes"], 213805056u);
  EXPECT_EQ(m["transient_bytes"], 758798336u);  // the run-ahead replay (engine test)
  const uint64_t weights = j["weights_bytes"];
  EXPECT_EQ(j["total_bytes"], weights + 335544320u + 758798336u);
  EXPECT_EQ(m["figures"]["kv_bytes"], "exact");
  EXPECT_EQ(m["figures"]["transient_bytes"], "modelled");
  EXPECT_EQ(m["kv_capacity_tokens"], 2304);  // 2176 tokens, in steps of 256
  EXPECT_EQ(j["preflight"]["fits"], true);
  TempDir dir;
  auto check = testing::check_report_schema(dir.write_file("report.json", r.out));
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST(MlxLmCli, TextNamesTheTermsAndTheWiredLimit) {
  auto r = run_memfit({"preflight", "generate", "-m", kExampleMlxlmCli, "--engine", "mlxlm",
                       "--prompt-tokens", "4096", "--max-tokens", "16", "--prefill-step-size",
                       "1024", "--kv-bits", "4"},
                      k64GiB);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(engine mlx-lm)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--prefill-step-size 1024 (3 full chunks, then 1024 tokens), KV 4-bit, group 64"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mx.get_peak_memory()"), std::string::npos);
  EXPECT_NE(r.out.find("sudo sysctl iogpu.wired_limit_mb="), std::string::npos);
  EXPECT_NE(r.out.find("mx.set_wired_limit("), std::string::npos);
}

TEST(MlxLmCli, InspectTakesTheSameFlags) {
  // inspect --prompt-tokens 2048 --max-tokens 128: preflight generate's figure.
  auto inspect = run_memfit({"inspect", "-m", kExampleMlxlmCli, "--engine", "mlx-lm", "--prompt-tokens",
                             "2048", "--max-tokens", "128", "--kv-bits", "8", "--json"},
                            k64GiB);
  auto generate = run_memfit({"preflight", "generate", "-m", kExampleMlxlmCli, "--engine", "mlx-lm",
                              "--prompt-tokens", "2048", "--max-tokens", "128", "--kv-bits", "8",
                              "--json"},
                             k64GiB);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  ASSERT_EQ(generate.exit_code, 0) << generate.err;
  nlohmann::json a = nlohmann::json::parse(inspect.out), b = nlohmann::json::parse(generate.out);
  EXPECT_EQ(a["total_bytes"], b["total_bytes"]);
  EXPECT_EQ(a["inputs"]["kv_bits"], 8);
  // 8 bits, group 64: 2,048 B packed + 32 groups x 2 x 2 B = 2,176 B per
  // token and layer; 40 layers x 2048 slots at the last chunk.
  EXPECT_EQ(a["mlxlm"]["kv_bytes"], 40ull * 2048 * 2176);
}

// fit and plot answer under mlx-lm (src/engines/mlxlm/solver.h,
// plot_command.cc): the largest --max-tokens, or --batch-size, in 64 GiB;
// the peak against --prompt-tokens.
TEST(MlxLmCli, FitSolvesMaxTokensAndBatch) {
  auto fit = run_memfit({"fit", "-m", kExampleMlxlmCli, "--engine", "mlx-lm", "--solve", "max-tokens"}, k64GiB);
  EXPECT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_EQ(fit.out.rfind("Largest max-tokens that fits 64.00 GiB (explicit): ", 0), 0u) << fit.out;
  auto batch = run_memfit({"fit", "-m", kExampleMlxlmCli, "--engine", "mlx-lm", "--solve", "batch", "--json"},
                          k64GiB);
  EXPECT_EQ(batch.exit_code, 0) << batch.err;
  const nlohmann::json j = nlohmann::json::parse(batch.out);
  EXPECT_EQ(j["solve"], "batch");
  EXPECT_TRUE(j["value"].is_number()) << batch.out;
  auto plot = run_memfit({"plot", "-m", kExampleMlxlmCli, "--engine", "mlx-lm", "--out", "/dev/null"}, k64GiB);
  EXPECT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(plot.out.rfind("wrote /dev/null: --prompt-tokens 256 to ", 0), 0u) << plot.out;
}

TEST(MlxLmCli, ServeRefusesItWithOneLine) {
  // The registry's one refusal, naming the engines that answer each command.
  auto serve = run_memfit({"preflight", "serve", "-m", kExampleMlxlmCli, "--engine", "mlx-lm", "-c", "8192"},
                          k64GiB);
  EXPECT_EQ(serve.exit_code, 2);
  EXPECT_NE(serve.err.find("mlx-lm is not priced by preflight serve; preflight serve takes mlxcel "
                            "or llamacpp"),
            std::string::npos)
      << serve.err;
  auto other = run_memfit({"preflight", "generate", "-m", kExampleMlxlmCli, "--prompt-tokens", "5",
                           "--max-tokens", "5", "--kv-bits", "4"},
                          k64GiB);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.err, "memfit: --kv-bits: is an mlx-lm setting: give engine mlx-lm\n");
}

TEST(MlxLmCli, KvBitsOnARotatingCacheIsAUsageError) {
  // mlx-lm's RotatingKVCache.to_quantized raises: the run cannot happen.
  auto r = run_memfit({"preflight", "generate", "-m", kExampleMlxlmCli, "--engine", "mlx-lm",
                       "--prompt-tokens", "2048", "--max-tokens", "128", "--max-kv-size", "1024",
                       "--kv-bits", "4"},
                      k64GiB);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --kv-bits: mlx-lm cannot quantize a rotating cache (RotatingKVCache), "
                   "which --max-kv-size puts every layer on\n");
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

// The report's second line names the engine and why; --compare prices
// every engine, one line each, the default (mlxcel for safetensors) marked.
TEST(MlxLmCli, InspectSaysWhichEngineAndComparesThemAll) {
  auto chosen = run_memfit({"inspect", "-m", kExampleMlxlmCli}, k64GiB);
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  const size_t second = chosen.out.find('\n') + 1;
  EXPECT_EQ(chosen.out.substr(second, chosen.out.find('\n', second) - second),
            "priced by mlxcel: the default for models that are not GGUF; --engine names another "
            "(llamacpp, mlx-lm, vllm, sglang, ollama)");
  auto named = run_memfit({"inspect", "-m", kExampleMlxlmCli, "--engine", "mlx-lm"}, k64GiB);
  EXPECT_NE(named.out.find("\npriced by mlx-lm: named by --engine\n"), std::string::npos) << named.out;
  auto compare = run_memfit({"inspect", "-m", kExampleMlxlmCli, "--compare"}, k64GiB);
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_EQ(compare.out.rfind("Each engine's price of this request (* the engine inspect uses):\n* mlxcel ", 0),
            0u)
      << compare.out;
  EXPECT_NE(compare.out.find("\n  mlx-lm "), std::string::npos) << compare.out;
  auto json = run_memfit({"inspect", "-m", kExampleMlxlmCli, "--compare", "--json"}, k64GiB);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["compare"].size(), 6u);
  EXPECT_EQ(j["compare"][0]["engine"], "mlxcel");
  EXPECT_EQ(j["compare"][0]["chosen"], true);
  EXPECT_EQ(j["compare"][2]["engine"], "mlx-lm");
  EXPECT_EQ(j["compare"][2]["priced"], true);
}

// recommend-quant under mlx-lm on a 24 GB M4 Pro (Qwen3-8B's config): the
// as-is row is inspect's figure at the same flags, the recommendation the
// first row that fits and shrinks the checkpoint, each row with the
// commands that make and run it, and the heading says how rows are ranked.
TEST(MlxLmCli, RecommendQuantOnA24GbMac) {
  const std::string qwen = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3/Qwen3-8B";
  const std::vector<std::string> flags = {"-m", qwen, "--engine", "mlx-lm", "--mac",
                                          "m4-pro-24gb", "--prompt-tokens", "4096",
                                          "--max-tokens", "512"};
  std::vector<std::string> args = {"recommend-quant"};
  args.insert(args.end(), flags.begin(), flags.end());
  auto text = run_memfit(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Rows best quality first: more bits first (a mixed recipe by the mean "
                          "bits of its quantized weights), then smaller groups first, then the "
                          "faster decode.\n"
                          "Recommended: the best-quality mode that fits; decode at the end of the "
                          "context (4608 tokens).\n"),
            std::string::npos)
      << text.out;
  args.push_back("--json");
  auto rec = run_memfit(args);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<std::string> inspect_args = {"inspect"};
  inspect_args.insert(inspect_args.end(), flags.begin(), flags.end());
  inspect_args.push_back("--json");
  auto ins = run_memfit(inspect_args);
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  nlohmann::json r = nlohmann::json::parse(rec.out), i = nlohmann::json::parse(ins.out);
  const nlohmann::json& rows = r["candidates"];
  ASSERT_EQ(rows.size(), 23u);  // as-is, 6 widths x 3 groups, 4 recipes
  EXPECT_EQ(rows[0]["mode"], "as-is");
  EXPECT_EQ(rows[0]["total_bytes"], i["total_bytes"]);
  EXPECT_EQ(rows[0]["fits"], i["fits"]);
  // The as-is row's speed is inspect's at the same settings.
  EXPECT_EQ(rows[0]["speed"], i["speed"]);
  // The fastest row that fits and shrinks the checkpoint: no other such
  // row decodes faster.
  double fastest = 0;
  std::string fastest_mode;
  for (const auto& row : rows) {
    if (!row["fits"] || !row["smaller_than_source"]) continue;
    if (row["decode_tokens_per_second"].get<double>() > fastest) {
      fastest = row["decode_tokens_per_second"];
      fastest_mode = row["mode"];
    }
  }
  EXPECT_EQ(r["fastest"], fastest_mode);
  std::string first_fit;
  for (const auto& row : rows) {
    if (row["fits"] && row["smaller_than_source"]) {
      first_fit = row["mode"];
      break;
    }
  }
  EXPECT_EQ(r["recommended"], first_fit);
  EXPECT_EQ(rows[1]["mode"], "8-bit g32");
  EXPECT_EQ(rows[1]["generate_command"],
            "mlx_lm.generate --model Qwen3-8B-8bit-g32 --max-tokens 512 --prompt -");
}

// The modes that fit and shrink the checkpoint, fastest first with each
// step's cost (docs/speed.md, "Plans chosen for speed"): on the 24 GB M4
// Pro the rows' quality order puts every 3-bit mode before mixed_2_6
// (3.00 > 2.78 mean bits), yet mixed_2_6 reads fewer bytes a token than
// 3-bit g64 and ranks before it.
TEST(MlxLmCli, RecommendQuantListsTheModesThatFitByDecodeSpeed) {
  const std::string qwen = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3/Qwen3-8B";
  std::vector<std::string> args = {"recommend-quant", "-m", qwen, "--engine", "mlx-lm", "--mac", "m4-pro-24gb",
                                   "--prompt-tokens", "4096", "--max-tokens", "512"};
  auto text = run_memfit(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  args.push_back("--json");
  auto rec = run_memfit(args);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const nlohmann::json r = nlohmann::json::parse(rec.out);
  const nlohmann::json& plans = r["plans_by_speed"];
  ASSERT_EQ(plans.size(), 22u);  // every row but as-is (16 GiB does not fit)
  auto at = [&plans](std::string_view mode) {
    for (size_t i = 0; i < plans.size(); ++i) {
      if (plans[i]["mode"] == mode) return i;
    }
    ADD_FAILURE() << "no plan " << mode;
    return plans.size();
  };
  EXPECT_LT(at("mixed_2_6"), at("3-bit g64"));
  EXPECT_EQ(plans[0]["mode"], r["fastest"]);
  EXPECT_TRUE(plans[0]["step"].is_null());
  for (size_t i = 1; i < plans.size(); ++i) {
    EXPECT_GE(plans[i - 1]["decode_tokens_per_second"].get<double>(),
              plans[i]["decode_tokens_per_second"].get<double>())
        << plans[i];
  }
  // The first step, 2-bit g128 -> 2-bit g64: a group carries a 2 B scale
  // and a 2 B bias, so groups of 64 read 4/64 - 4/128 = 1/32 B a weight
  // more; over the config's 8,190,726,144 parameters (all priced
  // quantized without headers) 255,960,192 B a token more, the same cache
  // at the end of 4,608 tokens; at the M4 Pro's 273 GB/s
  // 255,960,192 / 273e9 = 0.000938 s a token more at the bound.
  EXPECT_EQ(plans[0]["mode"], "2-bit g128");
  EXPECT_EQ(plans[1]["mode"], "2-bit g64");
  EXPECT_EQ(plans[1]["step"].get<std::string>().rfind("2-bit g128 -> 2-bit g64 (2.15 GiB -> 2.38 GiB): decode ", 0), 0u)
      << plans[1]["step"];
  const nlohmann::json* g128 = nullptr;
  const nlohmann::json* g64 = nullptr;
  for (const auto& row : r["candidates"]) {
    if (row["mode"] == "2-bit g128") g128 = &row["speed"]["devices"][0];
    if (row["mode"] == "2-bit g64") g64 = &row["speed"]["devices"][0];
  }
  ASSERT_TRUE(g128 != nullptr && g64 != nullptr);
  EXPECT_EQ((*g64)["active_weight_bytes"].get<uint64_t>() - (*g128)["active_weight_bytes"].get<uint64_t>(), 255960192u);
  EXPECT_EQ((*g64)["kv_bytes"], (*g128)["kv_bytes"]);
  EXPECT_NEAR((*g64)["bound_seconds_per_token_end"].get<double>() - (*g128)["bound_seconds_per_token_end"].get<double>(),
              255960192 / 273e9, 1e-12);
  EXPECT_NE(text.out.find("\nBy decode speed at 4608 tokens (docs/speed.md):\n  2-bit g128 (2.15 GiB): decode "),
            std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace memfit
