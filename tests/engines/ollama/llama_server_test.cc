// Ollama from v0.30.0 (the default, v0.32.15) starts llama-server
// (llm/llama_server.go) and leaves the layers to llama.cpp's --fit
// (src/engines/ollama/llama_server.cc, fit_layers), on the golden GGUFs
// (tests/golden/models/make_models.py). llama-dense: 4 blocks, 2 KV heads
// of 16, so K + V = 64 f16 elements = 128 B a layer a cell; num_ctx 4096
// x 8 sequences = 32,768 cells: 4,194,304 B of KV a block. qwen3moe has
// the same cache a block. A GPU given 1044 MiB free has a --fit target
// of 1044 - 1024 = 20 MiB = 20,971,520 B; 1046 MiB: 23,068,672 B.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/json_request.h"
#include "support/paths.h"

namespace memfit {
namespace {

using json = nlohmann::json;

const std::string kModels = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/";

json request(std::string_view model, std::string_view gpus, json fields = json::object()) {
  json r = {{"model", kModels + std::string(model)},
            {"engine", "ollama"},
            {"memory_limit", "64GiB"},
            {"ollama_gpus_free", std::string(gpus)},
            {"num_ctx", "4096"},
            {"ollama_num_parallel", "8"}};
  r.update(fields);
  return r;
}

TEST(OllamaProfileLlamaServer, TheDefaultIsTheNewestReleaseWithLlamaServersFlags) {
  const json j = testing::run_request_texts_ok(request("llama-dense.gguf", "CUDA0=1044MiB"));
  EXPECT_EQ(j["ollama"]["release"], "v0.32.15");
  EXPECT_EQ(j["ollama"]["runner"], "llama-server");
  // -c 4096 x 8 -np 8: a stream of 4096 cells a slot.
  EXPECT_EQ(j["inputs"]["n_ctx"], 32768);
  EXPECT_EQ(j["inputs"]["streams"], 8);
  EXPECT_EQ(j["inputs"]["kv_unified"], false);
  // num_batch unset: 32,768 cells is past 4096, not past 32,768: 1024
  // (releases_test.cc works the headroom out for this GPU), passed as
  // -b 1024 -ub 1024 (not num_batch x parallel as v0.24.0's runner).
  EXPECT_EQ(j["ollama"]["num_batch"], 1024);
  EXPECT_EQ(j["inputs"]["n_batch"], 1024);
  EXPECT_EQ(j["inputs"]["n_ubatch"], 1024);
  // llama-server reserves one output row a slot (#23861, b9460), keeps
  // llama.cpp's default windows and asks for no embeddings: the output
  // buffer is 8 rows of logits alone.
  EXPECT_EQ(j["inputs"]["n_outputs_max"], 8);
  EXPECT_EQ(j["inputs"]["swa_full"], false);
  EXPECT_EQ(j["inputs"]["flash_attn"], "auto");
}

TEST(OllamaProfileLlamaServer, FitFillsTheGpuWithTheOutputLayerAndTheLastBlocks) {
  const json j = testing::run_request_texts_ok(request("llama-dense.gguf", "CUDA0=1044MiB"));
  // Every layer does not fit 20 MiB (the cache alone is 4 x 4,194,304 B =
  // 16 MiB, with a compute buffer of 13,638,144 B). Two layers, the output
  // layer and block 3 (the build offloads the output layer first): the
  // compute buffer, one block's KV and 41,216 B of weights = 17,873,664 B
  // <= 20,971,520; three: 13,638,144 + 2 x 4,194,304 + 64,256 =
  // 22,091,008 B > 20,971,520.
  EXPECT_EQ(j["ollama"]["layers_by"], "llama.cpp --fit");
  EXPECT_EQ(j["ollama"]["gpu_layers"], 2);
  const json& gpu = j["llamacpp"]["devices"][0];
  EXPECT_EQ(gpu["device"], "cuda:0");
  EXPECT_EQ(gpu["blocks"], 1);
  EXPECT_EQ(gpu["output_layer"], true);
  EXPECT_EQ(gpu["context_bytes"], 4194304);
  EXPECT_EQ(gpu["total_bytes"], 17873664);
  EXPECT_EQ(gpu["usable_bytes"], 20971520);
  // num_gpu 3 is -ngl 3 as given: no --fit, over the target.
  const json given = testing::run_request_texts_ok(request("llama-dense.gguf", "CUDA0=1044MiB", {{"num_gpu", "3"}}));
  EXPECT_EQ(given["ollama"]["layers_by"], "num_gpu");
  EXPECT_EQ(given["llamacpp"]["devices"][0]["total_bytes"], 22091008);
  EXPECT_EQ(given["llamacpp"]["devices"][0]["fits"], false);
}

TEST(OllamaProfileLlamaServer, OneGpuRunsAModelItsPredictionFits) {
  // Ollama's prediction, the file and 16,777,216 B of f16 cache, is within
  // 80 % of either GPU: the one with the more free memory (cuda:1, 1046
  // MiB) runs it alone, its --fit target 22 MiB: three layers (the output
  // layer, blocks 2 and 3) 13,638,144 + 2 x 4,194,304 + 64,256 =
  // 22,091,008 B <= 23,068,672; a fourth block's cache passes it.
  const json j = testing::run_request_texts_ok(request("llama-dense.gguf", "CUDA0=1044MiB,CUDA1=1046MiB"));
  EXPECT_EQ(j["ollama"]["gpu_layers"], 3);
  const json& d = j["llamacpp"]["devices"];
  ASSERT_EQ(d.size(), 2u) << d.dump(1);
  EXPECT_EQ(d[0]["device"], "cuda:1");
  EXPECT_EQ(d[0]["total_bytes"], 22091008);
  EXPECT_EQ(d[1]["device"], "cpu");
}

TEST(OllamaProfileLlamaServer, FitFillsTheLastGpuFirst) {
  // OLLAMA_SCHED_SPREAD: both GPUs of 1044 MiB. The last (cuda:1) takes
  // the output layer and blocks 2 and 3 (its compute buffer 10,506,368 B
  // + 2 x 4,194,304 B + 64,256 B of weights = 18,959,232 B <= 20,971,520;
  // a third block's 4,194,304 B more would pass it), then cuda:0 block 1
  // (13,638,144 + 4,194,304 + 23,040 = 17,855,488 B; two blocks' cache and
  // compute, 22,026,752 B, pass it); block 0 stays on the host: -ngl 4,
  // -ts 1,3.
  const json j =
      testing::run_request_texts_ok(request("llama-dense.gguf", "CUDA0=1044MiB,CUDA1=1044MiB", {{"ollama_sched_spread", "true"}}));
  EXPECT_EQ(j["ollama"]["gpu_layers"], 4);
  const json& d = j["llamacpp"]["devices"];
  ASSERT_EQ(d.size(), 3u) << d.dump(1);
  EXPECT_EQ(d[0]["blocks"], 1);
  EXPECT_EQ(d[0]["total_bytes"], 17855488);
  EXPECT_EQ(d[1]["blocks"], 2);
  EXPECT_EQ(d[1]["output_layer"], true);
  EXPECT_EQ(d[1]["total_bytes"], 18959232);
  EXPECT_EQ(d[2]["device"], "cpu");
  EXPECT_EQ(d[2]["blocks"], 1);
}

TEST(OllamaProfileLlamaServer, FitKeepsAMoeModelsDenseOnlyLayersOnTheGpu) {
  // qwen3moe at 1046 MiB (target 23,068,672 B): every layer is 25.4 MiB,
  // and with every expert on the host the cache alone (16 MiB) and the
  // compute buffer pass the target, so step 3's dense-only fill stands:
  // three layers (block 2 full, block 3's experts on the host) need
  // 2 x 4,194,304 + 15,731,200 = 24,119,808 B of cache and compute, past
  // it; two (the output layer and block 3, "1 overflowing": its index is
  // past the output layer's, so no rule matches it and its experts stay)
  // 4,194,304 + 15,731,200 + 42,624 = 19,968,128 B.
  const json j = testing::run_request_texts_ok(request("qwen3moe.gguf", "CUDA0=1046MiB"));
  EXPECT_EQ(j["ollama"]["gpu_layers"], 2);
  EXPECT_EQ(j["llamacpp"]["devices"][0]["total_bytes"], 19968128);
}

TEST(OllamaProfileLlamaServer, OlderReleasesKeepTheirScheduler) {
  const json j = testing::run_request_texts_ok(request("llama-dense.gguf", "CUDA0=1044MiB", {{"ollama_version", "0.24.0"}}));
  EXPECT_EQ(j["ollama"]["runner"], "llama.cpp");
  EXPECT_EQ(j["ollama"]["layers_by"], "scheduler");
  // n_batch = num_batch x parallel = 512 x 8.
  EXPECT_EQ(j["inputs"]["n_batch"], 4096);
}

}  // namespace
}  // namespace memfit
