// `memfit inspect` as a whole process: exit statuses, stdout purity, one
// stderr line per error naming the file, and the JSON report's schema.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/gguf_fixtures.h"
#include "support/paths.h"
#include "support/run_command.h"

namespace memfit {
namespace {

namespace fs = std::filesystem;
using testing::run_memfit;

const std::string kExample = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
const std::map<std::string, std::string> k64GiBInspectCli = {{"MEMFIT_MEMORY_LIMIT", "64GiB"}};

class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (fs::temp_directory_path() / "memfit-cli-XXXXXX").string();
    path_ = mkdtemp(templ.data());
  }
  ~ScratchDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    fs::path p = fs::path(path_) / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(InspectCli, TextReportFitsAndExitsZero) {
  auto r = run_memfit({"inspect", "-m", kExample}, k64GiBInspectCli);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Weights"), std::string::npos);
  EXPECT_NE(r.out.find("KV detail: standard: 40 full_attention"), std::string::npos);
  EXPECT_NE(r.out.find("\nFITS: 10.96 GiB of 64.00 GiB"), std::string::npos) << r.out;
}

TEST(InspectCli, AGgufFileIsInspectedFromItsHeader) {
  // Qwen3-8B's geometry with one tensor, a Q4_K [4096, 151936] embedding:
  // 16 blocks x 144 B x 151,936 rows = 350,060,544 B, sparse on disk.
  ScratchDir dir;
  GgufWriter w = qwen3_8b_gguf_keys(/*training_context=*/false);
  w.add_tensor("token_embd.weight", GgmlType::kQ4_K, {4096, 151936});
  const std::string path = dir.path() + "/Qwen3-8B-Q4_K_M.gguf";
  w.write(path);
  // GGUF models default to the llama.cpp profile, whose --ctx-size 0 means
  // the training context, which this header does not declare.
  auto r = run_memfit({"inspect", "-m", path}, k64GiBInspectCli);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --ctx-size: the model declares no training context: give one\n");

  r = run_memfit({"inspect", "-m", path, "-c", "1000", "-np", "2"}, k64GiBInspectCli);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("(engine llamacpp)"), std::string::npos) << r.out;
  // 1,000 cells padded to 1,024, two streams of 512.
  EXPECT_NE(r.out.find("n_ctx 1024 (2 x 512 cells), n_seq 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact (gguf_header)"), std::string::npos) << r.out;
  // K + V: 36 layers x 1,024 cells x 8 x 128 x 2 B x 2 = 150,994,944 B = 144.0 MiB.
  EXPECT_NE(r.out.find("KV cache               144.0 MiB   36 layers"), std::string::npos) << r.out;
  // Logits: 2 sequences x 151,936 x 4 B = 1,215,488 B = 1.2 MiB.
  EXPECT_NE(r.out.find("Output buffer            1.2 MiB"), std::string::npos) << r.out;

  // The mlxcel profile, asked for by name, prices the same geometry.
  r = run_memfit({"inspect", "-m", path, "--engine", "mlxcel"}, k64GiBInspectCli);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gguf_header"), std::string::npos) << r.out;
  // 36 layers x 2 x 8 x 128 x 2 B = 147,456 B per token.
  EXPECT_NE(r.out.find("KV per token: 147456 B fp16"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(InspectCli, DoesNotFitStillExitsZero) {
  auto r = run_memfit({"inspect", "-m", kExample}, {{"MEMFIT_MEMORY_LIMIT", "4G"}});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("DOES NOT FIT: 10.96 GiB needed, 4.00 GiB available"), std::string::npos)
      << r.out;
}

TEST(InspectCli, JsonStdoutIsExactlyOneObjectWithTheSumInvariant) {
  auto r = run_memfit({"inspect", "-m", kExample, "--json"}, k64GiBInspectCli);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  // The hand-computed figures of tests/engines/mlxcel/estimate_test.cc.
  EXPECT_EQ(j["total_bytes"], 11764806400u);
  EXPECT_EQ(j["weights_bytes"].get<uint64_t>() + j["kv_bytes_total"].get<uint64_t>() +
                j["headroom_bytes"].get<uint64_t>(),
            j["total_bytes"].get<uint64_t>());
  EXPECT_EQ(j["budget_bytes"], 64ull << 30);
  EXPECT_EQ(j["budget_source"], "explicit");
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["weights_source"], "safetensors_index");
  EXPECT_EQ(j["inputs"]["max_tokens"], 8192);
  // The unverified-index warning goes to stderr, never stdout.
  EXPECT_NE(r.err.find("memfit: warning: "), std::string::npos);
}

TEST(InspectCli, RequestOptionsReachTheEstimate) {
  auto r = run_memfit({"inspect", "-m", kExample, "--json", "--max-tokens", "1000", "--batch",
                       "2", "--kv-cache-mode", "int8", "--quant", "int4"},
                      k64GiBInspectCli);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  // 40 x 2 x 8 x 128 x 1 B x 1024 (1000 rounded) x 2 = 167,772,160.
  EXPECT_EQ(j["kv_bytes_total"], 167772160u);
  EXPECT_EQ(j["inputs"]["kv_cache_mode"], "int8");
  EXPECT_EQ(j["inputs"]["quant"], "int4");
  auto same = run_memfit({"inspect", "-m", kExample, "--json", "--max-tokens", "1000", "--batch",
                          "2", "--cache-type-k", "int8", "--cache-type-v", "int8"},
                         k64GiBInspectCli);
  EXPECT_EQ(nlohmann::json::parse(same.out)["kv_bytes_total"], 167772160u);
}

TEST(InspectCli, MemoryLimitFlagBeatsTheEnvironment) {
  auto r = run_memfit({"inspect", "-m", kExample, "--json", "--memory-limit", "48GB"},
                      {{"MEMFIT_MEMORY_LIMIT", "4G"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["budget_bytes"], 48'000'000'000u);  // 48 x 10^9
}

TEST(InspectCli, MissingModelIsOneLineAndExitOne) {
  auto r = run_memfit({"inspect", "-m", "/nonexistent/model", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "memfit: '/nonexistent/model': no such file or folder\n");
}

TEST(InspectCli, ConfigThatIsNotJsonNamesTheFile) {
  ScratchDir dir;
  std::string config = dir.write("config.json", "{\"num_hidden_layers\": 32,");
  auto r = run_memfit({"inspect", "-m", dir.path(), "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  // 25 characters, then the end: line 1, column 26.
  EXPECT_EQ(r.err, "memfit: '" + config + "': not valid JSON: parse error at line 1, column 26: "
                   "syntax error while parsing object key - unexpected end of input; expected "
                   "string literal\n");
}

TEST(InspectCli, MissingGeometryNamesTheFileAndTheField) {
  ScratchDir dir;
  std::string config = dir.write("config.json", R"({"model_type":"llama","hidden_size":8})");
  auto r = run_memfit({"inspect", "-m", dir.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "memfit: '" + config +
                       "': missing geometry: no layer count (num_hidden_layers, n_layers, "
                       "num_layers or n_layer)\n");
}

TEST(InspectCli, HostileSafetensorsHeaderNamesTheFile) {
  ScratchDir dir;
  dir.write("config.json", R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4})");
  // Header length 2^60: far past the end of a 16-byte file.
  std::string bytes("\x00\x00\x00\x00\x00\x00\x00\x10{}      ", 16);
  std::string file = dir.write("model.safetensors", bytes);
  auto r = run_memfit({"inspect", "-m", dir.path(), "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("memfit: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
}

TEST(InspectCli, ConfigTextInTheReportAndWarningsIsEscaped) {
  ScratchDir dir;
  dir.write("config.json",
            R"({"model_type":"x\u001b[2J","num_hidden_layers":2,"hidden_size":64,)"
            R"("num_attention_heads":4,"quantization_config":{"quant_method":"q\nq"}})");
  auto r = run_memfit({"inspect", "-m", dir.path()}, k64GiBInspectCli);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model_type x\\x1b[2J, family x\\x1b[2J, layout standard\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Quantization: q\\nq"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("model_type 'x\\x1b[2J' is not one memfit knows"), std::string::npos)
      << r.err;
  for (const std::string& text : {r.out, r.err}) {
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
  }
}

TEST(InspectCli, NoWeightsNoConfigFallsBackLoudly) {
  ScratchDir dir;
  auto r = run_memfit({"inspect", "-m", dir.path(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["weights_source"], "fallback");
  EXPECT_EQ(j["weights_bytes"], 14000000000u);  // 7e9 x 2
  EXPECT_NE(r.err.find("ASSUMING a 7B model"), std::string::npos);
  EXPECT_EQ(j["kv_detail"], "unavailable: no model geometry");
}

TEST(InspectCli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_memfit({"inspect"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"inspect", "-m", kExample, "--batch", "0"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"inspect", "-m", kExample, "--max-tokens", "abc"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"inspect", "-m", kExample, "--bogus"}).exit_code, 2);
  EXPECT_EQ(run_memfit({"inspect", "-m", kExample, "--quant", "int3"}).exit_code, 2);
  EXPECT_EQ(run_memfit({}).exit_code, 2);
  auto mode = run_memfit({"inspect", "-m", kExample, "--kv-cache-mode", "fp8", "--json"});
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_EQ(mode.out, "");
  EXPECT_EQ(mode.err, "memfit: --kv-cache-mode: 'fp8': expected fp16 or int8\n");
  auto half = run_memfit({"inspect", "-m", kExample, "--cache-type-k", "int8"});
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_EQ(half.err, "memfit: --cache-type-k: and --cache-type-v go together: give both or neither\n");
}

TEST(InspectCli, JsonReportMatchesTheShippedSchema) {
  if (std::system("python3 -c 'import jsonschema' 2>/dev/null") != 0) {
    GTEST_FAIL() << "python3 with jsonschema is required (apt-get install python3-jsonschema)";
  }
  ScratchDir dir;
  // Each engine's report: mlxcel's by default, llama.cpp's when asked.
  for (const std::string engine : {"auto", "llamacpp"}) {
    for (const std::string& model :
         {kExample, std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3_5/Qwen3.5-27B",
          std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/gemma3/gemma-3-1b-it",
          std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/mamba/mamba-2.8b-hf-finetune"}) {
      std::vector<std::string> args = {"inspect", "-m", model, "--json"};
      if (engine == "llamacpp") args.insert(args.end(), {"--engine", "llamacpp", "-c", "4096"});
      auto r = run_memfit(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["engine"], engine == "auto" ? "mlxcel" : "llamacpp");
      std::string report = dir.write("report.json", r.out);
      auto check = testing::check_report_schema(report);
      EXPECT_EQ(check.exit_code, 0) << model << "\n" << check.err;
    }
  }
}

TEST(InspectCli, SchemaRejectsAReportWithoutTotal) {
  // The schema is not vacuous: dropping a required field fails validation.
  ScratchDir dir;
  auto r = run_memfit({"inspect", "-m", kExample, "--json"});
  nlohmann::json j = nlohmann::json::parse(r.out);
  j.erase("total_bytes");
  std::string report = dir.write("report.json", j.dump());
  auto check = testing::check_report_schema(report);
  EXPECT_NE(check.exit_code, 0);
  // Nor is its llama.cpp branch: a llamacpp report without its breakdown.
  r = run_memfit({"inspect", "-m", kExample, "--engine", "llamacpp", "-c", "4096", "--json"});
  j = nlohmann::json::parse(r.out);
  j["llamacpp"].erase("compute_bytes");
  report = dir.write("llamacpp.json", j.dump());
  check = testing::check_report_schema(report);
  EXPECT_NE(check.exit_code, 0);
}

}  // namespace
}  // namespace memfit
