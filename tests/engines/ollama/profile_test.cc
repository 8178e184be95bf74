// The ollama profile end to end (src/engines/ollama/profile.cc, fit.cc):
// a request through the library's JSON entry point and the fit hook, on
// the golden llama GGUF (4 blocks, 2 KV heads of 16, trained for 4096
// tokens; tests/golden/models/make_models.py) on an RTX 4060 (8188 MiB).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"
#include "memfit/request_field.h"
#include "support/command_hooks.h"
#include "support/json_request.h"
#include "support/paths.h"

namespace memfit {
namespace {

using json = nlohmann::json;

const std::string kLlama = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/llama-dense.gguf";

json on_rtx4060(json fields) {
  json r = {{"model", kLlama}, {"engine", "ollama"}, {"gpu", "rtx4060"}, {"memory_limit", "64GiB"}};
  r.update(fields);
  return r;
}

TEST(OllamaProfile, EightGigabyteTierContextWholeOnTheGpu) {
  const json j = testing::run_request_texts_ok(on_rtx4060({{"ollama_version", "0.24.0"}}));
  EXPECT_EQ(j["engine"], "ollama");
  // 8188 MiB < 23 GiB: 4096, which is also the model's trained context.
  EXPECT_EQ(j["ollama"]["num_ctx"], 4096);
  EXPECT_EQ(j["ollama"]["num_ctx_source"], "the VRAM tier");
  EXPECT_EQ(j["ollama"]["runner"], "llama.cpp");
  // 4 blocks and the output layer, all on the GPU.
  EXPECT_EQ(j["ollama"]["gpu_layers"], 5);
  EXPECT_EQ(j["ollama"]["total_layers"], 5);
  // K + V: 2 x 2 heads x 16 = 64 elements x 2 B x 4 layers = 512 B a
  // token; 4096 cells: 2 MiB.
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 2097152);
  EXPECT_EQ(j["inputs"]["n_ubatch"], 512);
}

TEST(OllamaProfile, ParallelMultipliesTheCellsAndTheBatch) {
  const json j = testing::run_request_texts_ok(on_rtx4060({{"ollama_num_parallel", "4"}, {"ollama_version", "0.24.0"}}));
  // num_ctx 4096 x 4 sequences = 16384 cells: 4 x 2 MiB.
  EXPECT_EQ(j["ollama"]["kv_cells"], 16384);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 8388608);
  // n_batch = num_batch x parallel = 512 x 4; n_ubatch = num_batch.
  EXPECT_EQ(j["inputs"]["n_seq"], 4);
  EXPECT_EQ(j["inputs"]["n_batch"], 2048);
  EXPECT_EQ(j["inputs"]["n_ubatch"], 512);
}

TEST(OllamaProfile, TheRunnersReserveEveryTokensOutputRow) {
  // Ollama's runners set no n_outputs_max (llama.cpp #23861, b9460, is
  // newer than any build they vendor): the prompt graph keeps all 512
  // tokens' logits, and the inputs name no limit.
  for (const char* release : {"0.24.0", "0.5.7"}) {
    const json j = testing::run_request_texts_ok(on_rtx4060({{"ollama_version", release}}));
    EXPECT_EQ(j["inputs"]["n_ubatch"], 512) << release;
    EXPECT_FALSE(j["inputs"].contains("n_outputs_max")) << release;
  }
}

TEST(OllamaProfile, NumCtxPastTheTrainedContextIsLowered) {
  const json j = testing::run_request_texts_ok(on_rtx4060({{"num_ctx", "8192"}}));
  EXPECT_EQ(j["ollama"]["num_ctx"], 4096);
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 2097152);
}

TEST(OllamaProfile, QuantizedCacheWithFlashAttentionHalvesTheKv) {
  const json j = testing::run_request_texts_ok(on_rtx4060({{"ollama_kv_cache_type", "q8_0"}, {"ollama_flash_attention", "true"}}));
  EXPECT_EQ(j["ollama"]["kv_cache_type"], "q8_0");
  // q8_0: 34 bytes per 32 elements; 64 elements a layer-token are 2
  // blocks, 68 B x 4 layers x 4096 cells = 1114112 B.
  EXPECT_EQ(j["llamacpp"]["context"]["kv_bytes"], 1114112);
}

TEST(OllamaProfile, LlamaCppFlagsAndCacheTypesAreRefused) {
  char* response = nullptr;
  json r = on_rtx4060({{"ctx_size", "4096"}});
  EXPECT_NE(memfit_run_request_json(r.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response), MEMFIT_OK);
  EXPECT_NE(std::string(response).find("ctx_size"), std::string::npos) << response;
  memfit_string_free(response);
}

TEST(OllamaProfile, FitSolvesTheLargestNumCtxUpToTheTrainedContext) {
  EstimateRequest r;
  r.model = kLlama;
  r.engine = "ollama";
  r.machine.gpu = {"rtx4060"};
  r.memory_limit_bytes = 64ull << 30;
  Result<CommandAnswer> a = testing::ask_hook(r, EngineCommand::kFit, json::object());
  ASSERT_TRUE(a.ok()) << a.error().message();
  // The whole model and 4096 cells fit 8 GB many times: the trained
  // context caps the answer.
  EXPECT_EQ(a->json["solve"], "num-ctx");
  EXPECT_EQ(a->json["num_ctx"], 4096);
  EXPECT_NE(a->text.find("ollama serve"), std::string::npos) << a->text;
  EXPECT_NE(a->text.find("PARAMETER num_ctx 4096"), std::string::npos) << a->text;
}

}  // namespace
}  // namespace memfit
