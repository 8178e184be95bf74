// The model's own limits (issue 29): a context past what the model was
// trained for (the config's context, engines/shared/trained_context.h) is
// a warning under every engine, and under vLLM the refusal vLLM itself
// gives.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/corpus.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

// Qwen3-14B-MLX-4bit and Qwen3-8B declare max_position_embeddings 40960
// and no rope_scaling: 40,960 tokens.
const std::string kMlx = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";
const std::string kQwen3_8B = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/qwen3/Qwen3-8B";
const std::map<std::string, std::string> k1TiB = {{"MEMFIT_MEMORY_LIMIT", "1TiB"}};

TEST(TrainedContext, PastItIsAWarningUnderMlxcel) {
  auto past = run_memfit({"inspect", "-m", kMlx, "--max-tokens", "200000"}, k1TiB);
  EXPECT_EQ(past.exit_code, 0) << past.err;
  EXPECT_NE(past.err.find("--max-tokens 200000 is past the 40960 tokens this model was trained "
                          "for"),
            std::string::npos)
      << past.err;
  auto at = run_memfit({"inspect", "-m", kMlx, "--max-tokens", "40960"}, k1TiB);
  EXPECT_EQ(at.exit_code, 0) << at.err;
  EXPECT_EQ(at.err.find("trained for"), std::string::npos) << at.err;
}

TEST(TrainedContext, PastItIsAWarningUnderMlxLm) {
  // 8192 prompt + 40000 generated = 48,192 tokens in the cache > 40,960.
  auto r = run_memfit({"inspect", "-m", kMlx, "--engine", "mlx-lm", "--prompt-tokens", "8192",
                       "--max-tokens", "40000"},
                      k1TiB);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--prompt-tokens + --max-tokens = 48192 is past the 40960 tokens"),
            std::string::npos)
      << r.err;
}

TEST(TrainedContext, PastTheGgufContextLengthIsAWarningUnderLlamaCpp) {
  // The test GGUF declares qwen3.context_length 40960 (llama.cpp's n_ctx_train).
  TempDir dir;
  const std::string gguf = dir.file_path("qwen3-8b.gguf");
  qwen3_8b_gguf().write(gguf);
  auto r = run_memfit({"inspect", "-m", gguf, "-c", "200000"}, k1TiB);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--ctx-size 200000 is past the 40960 tokens"), std::string::npos) << r.err;
}

TEST(TrainedContext, PastTheDerivedMaxModelLenIsVllmsRefusal) {
  auto r = run_memfit({"inspect", "-m", kQwen3_8B, "--engine", "vllm", "--max-model-len", "200000"},
                      k1TiB);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("memfit: --max-model-len: 200000: vLLM refuses to start: \"User-specified "
                       "max_model_len (200000) is greater than the derived max_model_len (40960"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"), std::string::npos) << r.err;
  EXPECT_EQ(run_memfit({"inspect", "-m", kQwen3_8B, "--engine", "vllm", "--max-model-len", "40960"},
                       k1TiB)
                .exit_code,
            0);
}

// Qwen2.5-3B-Instruct's config with the rope_scaling its model card adds
// for long context (yarn, factor 4, original 32768), in `dir`.
std::string qwen25_yarn(const TempDir& dir) {
  nlohmann::json config = nlohmann::json::parse(
      testing::read_test_data("corpus/qwen2_5/Qwen2.5-3B-Instruct/config.json"));
  config["rope_scaling"] = {
      {"factor", 4.0}, {"original_max_position_embeddings", 32768}, {"type", "yarn"}};
  dir.write_file("Qwen2.5-3B-yarn/config.json", config.dump());
  return dir.file_path("Qwen2.5-3B-yarn");
}

TEST(TrainedContext, VllmDerivesTheLengthFromRopeScaling) {
  // vLLM's derived max_model_len: original 32,768 x yarn factor 4 =
  // 131,072; 131,072 starts, 131,073 is refused.
  TempDir dir;
  const std::string model = qwen25_yarn(dir);
  auto at = run_memfit({"inspect", "-m", model, "--engine", "vllm", "--max-model-len", "131072"},
                       k1TiB);
  EXPECT_EQ(at.exit_code, 0) << at.err;
  EXPECT_EQ(at.err.find("trained for"), std::string::npos) << at.err;
  auto past = run_memfit(
      {"inspect", "-m", model, "--engine", "vllm", "--max-model-len", "131073"}, k1TiB);
  EXPECT_EQ(past.exit_code, 2) << past.err;
  EXPECT_NE(past.err.find("greater than the derived max_model_len (131072: its config's rope "
                          "scaling: original 32768 x yarn factor 4)\"; give at most 131072"),
            std::string::npos)
      << past.err;
}

TEST(TrainedContext, LlamaCppTakesTheDeclaredContextWhateverTheScaling) {
  // llama.cpp's n_ctx_train is the context_length convert_hf_to_gguf writes
  // (max_position_embeddings, 32,768): -c 65536 warns though yarn reaches
  // 131,072; mlxcel takes the scaled 131,072 and says nothing at 65,536.
  TempDir dir;
  const std::string model = qwen25_yarn(dir);
  auto llamacpp =
      run_memfit({"inspect", "-m", model, "--engine", "llamacpp", "-c", "65536"}, k1TiB);
  EXPECT_EQ(llamacpp.exit_code, 0) << llamacpp.err;
  EXPECT_NE(llamacpp.err.find("--ctx-size 65536 is past the 32768 tokens this model was trained "
                              "for (its config's context)"),
            std::string::npos)
      << llamacpp.err;
  auto mlxcel = run_memfit({"inspect", "-m", model, "--max-tokens", "65536"}, k1TiB);
  EXPECT_EQ(mlxcel.exit_code, 0) << mlxcel.err;
  EXPECT_EQ(mlxcel.err.find("trained for"), std::string::npos) << mlxcel.err;
  auto json = run_memfit({"inspect", "-m", model, "--max-tokens", "65536", "--json"}, k1TiB);
  EXPECT_NE(json.out.find("\"context_limit_tokens\": 131072"), std::string::npos) << json.out;
}

}  // namespace
}  // namespace memfit
