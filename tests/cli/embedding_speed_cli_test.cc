// An embedding or reranking model decodes no token (docs/speed.md, "A
// model that decodes nothing"): under vLLM's pooling runner, llama.cpp's
// --embedding, SGLang and Ollama on a pooling model the speed line has no
// decode figure, only the prompt's prefill and its time, and the JSON's
// decode is null with the reason. The same models served to generate keep
// their decode figures (each test fails if the engine's check is lost).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/gguf_fixtures.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;
using Json = nlohmann::json;

const std::string kDenseGguf = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/llama-dense.gguf";

// all-MiniLM-L6-v2's geometry (tests/model/config/embedding_models_test.cc
// counts its 22,713,216 parameters by hand): an encoder, BertModel.
constexpr std::string_view kMiniLm = R"({"architectures": ["BertModel"],
    "model_type": "bert", "hidden_size": 384, "num_hidden_layers": 6,
    "num_attention_heads": 12, "intermediate_size": 1536, "vocab_size": 30522,
    "max_position_embeddings": 512})";

// A Qwen3 decoder under a bare model class (Qwen3Model): a pooling
// architecture (embedding.by_architecture), its KV cache kept.
std::string qwen3_config(std::string_view architecture) {
  return std::string(R"({"architectures": [")") + std::string(architecture) + R"("], "model_type": "qwen3",
      "hidden_size": 1024, "num_hidden_layers": 28, "num_attention_heads": 16,
      "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072,
      "vocab_size": 151669, "max_position_embeddings": 32768})";
}

Json inspect_json(std::vector<std::string> args) {
  args.insert(args.begin(), "inspect");
  args.push_back("--json");
  testing::CommandResult r = run_memfit(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? Json::parse(r.out)["speed"] : Json::object();
}

std::string speed_line(std::vector<std::string> args) {
  args.insert(args.begin(), "inspect");
  testing::CommandResult r = run_memfit(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("speed: ");
  return at == std::string::npos ? r.out : r.out.substr(at);
}

void expect_no_decode(const Json& speed, std::string_view why) {
  EXPECT_TRUE(speed["decode_tokens_per_second"].is_null()) << speed.dump();
  EXPECT_EQ(speed["no_decode"], why) << speed.dump();
  EXPECT_FALSE(speed.contains("unknown")) << speed.dump();
  EXPECT_FALSE(speed["prefill_tokens_per_second"].is_null()) << speed.dump();
  EXPECT_FALSE(speed["time_to_first_token_s"].is_null()) << speed.dump();
}

TEST(EmbeddingSpeedCli, VllmPoolingRunnerTimesThePromptOnly) {
  TempDir dir;
  dir.write_file("minilm/config.json", kMiniLm);
  const std::string model = dir.file_path("minilm");
  const Json s = inspect_json({"-m", model, "--engine", "vllm", "--gpu", "h100"});
  expect_no_decode(s, "--runner pooling returns vectors and scores, not tokens");
  // The prompt is the whole --max-model-len, 512 (max_position_embeddings).
  // Prefill at its mean context 256: 2 x 22,713,216 + 4 x 6 layers x 256 x
  // 384 (12 heads of 32) = 47,785,728 FLOPs a token; at the H100's INT8
  // peak (the CUDA bands' basis) 1,978.9e12 / 47,785,728 = 41,411,946.26
  // tokens a second.
  EXPECT_EQ(s["prefill_tokens_per_second"]["prompt_tokens"], 512);
  EXPECT_NEAR(s["prefill_tokens_per_second"]["bound"].get<double>(), 41'411'946.26, 0.01);
  EXPECT_EQ(s["prefill_tokens_per_second"]["peak"], "int8");
  EXPECT_FALSE(s.contains("devices"));
  const std::string line = speed_line({"-m", model, "--engine", "vllm", "--gpu", "h100"});
  EXPECT_EQ(line.rfind("speed: no decode (--runner pooling returns vectors and scores, not tokens); prefill ", 0),
            0u)
      << line;
  EXPECT_NE(line.find("; the prompt's 512 tokens in "), std::string::npos) << line;
  EXPECT_EQ(line.find(" at the start"), std::string::npos) << line;
}

TEST(EmbeddingSpeedCli, LlamaCppEmbeddingHasNoDecodeAndGenerationKeepsIt) {
  const std::vector<std::string> args = {"-m", kDenseGguf, "--engine", "llamacpp", "--gpu", "rtx4090"};
  std::vector<std::string> embedding = args;
  embedding.push_back("--embedding");
  expect_no_decode(inspect_json(embedding), "llama-server --embedding returns vectors and scores, not tokens");
  EXPECT_EQ(speed_line(embedding).rfind("speed: no decode (llama-server --embedding ", 0), 0u);
  // Without --embedding the same model decodes.
  const Json generate = inspect_json(args);
  EXPECT_FALSE(generate["decode_tokens_per_second"].is_null()) << generate.dump();
  EXPECT_FALSE(generate.contains("no_decode"));
}

// A solver's ranking by decode speed has nothing to rank: it says why.
TEST(EmbeddingSpeedCli, LlamaCppFitUnderEmbeddingRanksNoPlanByDecode) {
  testing::CommandResult r = run_memfit({"fit", "-m", kDenseGguf, "--engine", "llamacpp", "--gpu", "rtx4090",
                                         "--embedding", "--solve", "gpu-layers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nPlans by decode speed: none (llama-server --embedding returns vectors and scores, "
                       "not tokens)\n"),
            std::string::npos)
      << r.out;
}

TEST(EmbeddingSpeedCli, SglangOnAPoolingArchitectureHasNoDecode) {
  TempDir dir;
  dir.write_file("embed/config.json", qwen3_config("Qwen3Model"));
  dir.write_file("causal/config.json", qwen3_config("Qwen3ForCausalLM"));
  const std::vector<std::string> tail = {"--engine", "sglang", "--gpu", "h100", "--context-length", "8192"};
  std::vector<std::string> embed = {"-m", dir.file_path("embed")};
  embed.insert(embed.end(), tail.begin(), tail.end());
  const Json s = inspect_json(embed);
  expect_no_decode(s, "an embedding or reranking model: SGLang returns vectors and scores, not tokens");
  EXPECT_EQ(s["prefill_tokens_per_second"]["prompt_tokens"], 8192);
  std::vector<std::string> causal = {"-m", dir.file_path("causal")};
  causal.insert(causal.end(), tail.begin(), tail.end());
  EXPECT_FALSE(inspect_json(causal)["decode_tokens_per_second"].is_null());
}

TEST(EmbeddingSpeedCli, OllamaOnAGgufThatDeclaresAPoolingTypeHasNoDecode) {
  TempDir dir;
  const std::string embed = dir.file_path("embed.gguf");
  const std::string causal = dir.file_path("causal.gguf");
  GgufWriter pooled = qwen3_8b_gguf();
  pooled.add_u32("qwen3.pooling_type", 1);  // mean
  pooled.write(embed);
  qwen3_8b_gguf().write(causal);
  expect_no_decode(inspect_json({"-m", embed, "--engine", "ollama", "--gpu", "rtx4090"}),
                   "an embedding model: Ollama returns vectors (/api/embed), not tokens");
  EXPECT_FALSE(inspect_json({"-m", causal, "--engine", "ollama", "--gpu", "rtx4090"})["decode_tokens_per_second"]
                   .is_null());
}

}  // namespace
}  // namespace memfit
