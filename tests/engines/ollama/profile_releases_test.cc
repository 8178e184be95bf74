// --ollama-version end to end (src/engines/ollama/releases.cc, plan.cc):
// the same request at two releases whose rules differ, on the golden
// GGUFs (tests/golden/models/make_models.py) on an RTX 4060. The llama
// GGUF: 4 blocks, 4 heads, 2 KV heads of 16, so K + V = 64 f16 elements
// = 128 B a layer a cell, 512 B a cell.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"
#include "support/json_request.h"
#include "support/paths.h"

namespace memfit {
namespace {

using json = nlohmann::json;

const std::string kModels = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/";

json on_rtx4060(std::string_view model, json fields) {
  json r = {{"model", kModels + std::string(model)},
            {"engine", "ollama"},
            {"gpu", "rtx4060"},
            {"memory_limit", "64GiB"}};
  r.update(fields);
  return r;
}

TEST(OllamaProfileReleases, OneCacheForEverySequenceBeforeV0115) {
  const json fields = {{"num_ctx", "1024"}, {"ollama_num_parallel", "4"}, {"ollama_flash_attention", "false"}};
  json pinned = fields;
  pinned["ollama_version"] = "0.24.0";
  const json now = testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", pinned));
  json at = fields;
  at["ollama_version"] = "0.5.12";
  const json old = testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", at));
  EXPECT_EQ(now["ollama"]["release"], "v0.24.0");
  EXPECT_EQ(old["ollama"]["release"], "v0.5.12");
  // The cells are num_ctx x parallel = 4096 either way: 4096 x 512 B =
  // 2 MiB.
  EXPECT_EQ(now["llamacpp"]["context"]["kv_bytes"], 2097152);
  EXPECT_EQ(old["llamacpp"]["context"]["kv_bytes"], 2097152);
  // v0.24.0: a stream of 1024 cells per sequence; v0.5.12's llama.cpp
  // (before b5913) one stream of all 4096.
  EXPECT_EQ(now["inputs"]["streams"], 4);
  EXPECT_EQ(now["inputs"]["n_ctx_seq"], 1024);
  EXPECT_EQ(old["inputs"]["streams"], 1);
  EXPECT_EQ(old["inputs"]["n_ctx_seq"], 4096);
  // The ubatch of 512 tokens attends over its stream's cells. The host's
  // F32 mask: 1024 cells x 128 tokens x 4 streams x 4 B = 2 MiB at
  // v0.24.0, 4096 x 512 x 4 B = 8 MiB at v0.5.12: +6 MiB on the host,
  // 2,234,368 -> 8,525,824 B. On the GPU the KQ scores, 4 heads x 1024 x
  // 128 x 4 streams x 4 B = 8 MiB against 4 x 4096 x 512 x 4 B = 32 MiB
  // (+24 MiB), and its copy of the mask (+6 MiB). v0.24.0's llama.cpp
  // (b7108) also keeps the KV store's indices on the host (#14959, from
  // b6051; v0.5.12's b5423 has none): k_idxs 8 x 512 = 4,096 and, flash
  // attention off, v_idxs one a V element, 8 x 512 x 32 = 131,072: 2,234,368
  // + 135,168 = 2,369,536, and the GPU's split copies them too. Every layer
  // on the GPU, its buffer is the split's replay (device_split): the copies
  // of the rows 4 x 512 x 64 = 131,072, positions 2,048, the indices, the
  // mask and out_ids 2,048 at the bottom, block 0's norm and Q product
  // (holes K's rows fit), the roped Q 131,072, then the scores on top:
  // v0.24.0 131,072 + 2,048 + 135,168 + 2,097,152 + 2,048 + 3 x 131,072 +
  // 8,388,608 = 11,149,312; v0.5.12 without the indices, the 8 MiB mask and
  // 32 MiB of scores 11,149,312 - 135,168 + 6 MiB + 24 MiB = 42,471,424.
  const json& now_gpu = now["llamacpp"]["devices"][0];
  const json& old_gpu = old["llamacpp"]["devices"][0];
  EXPECT_EQ(now_gpu["compute_bytes"], 11149312);
  EXPECT_EQ(old_gpu["compute_bytes"], 11149312 - 135168 + 30 * 1048576);
  EXPECT_EQ(now["llamacpp"]["devices"][1]["compute_bytes"], 2234368 + 135168);
  EXPECT_EQ(old["llamacpp"]["devices"][1]["compute_bytes"], 2234368 + 6 * 1048576);
}

TEST(OllamaProfileReleases, OlderDefaultsContextAndSequences) {
  // v0.5.7: num_ctx 2048 unless given, OLLAMA_NUM_PARALLEL unset is 4:
  // 8192 cells x 512 B = 4 MiB; n_batch 512 x 4, ubatch llama.cpp's 512.
  const json old = testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", {{"ollama_version", "v0.5.7"}}));
  EXPECT_EQ(old["ollama"]["num_ctx"], 2048);
  EXPECT_EQ(old["ollama"]["num_ctx_source"], "the release's default");
  EXPECT_EQ(old["ollama"]["parallel"], 4);
  EXPECT_NE(old.dump().find("OLLAMA_NUM_PARALLEL unset: Ollama v0.5.7 loads 4 sequences when they "
                            "fit on the GPUs whole, else 1"),
            std::string::npos);
  EXPECT_EQ(old["llamacpp"]["context"]["kv_bytes"], 4194304);
  EXPECT_EQ(old["inputs"]["n_batch"], 2048);
  EXPECT_EQ(old["inputs"]["n_ubatch"], 512);
  // Flash attention: off unless set before v0.12.4; auto at v0.24.0.
  EXPECT_EQ(old["ollama"]["flash_attention"], "off");
  // v0.24.0: the VRAM tier (4096 under 23 GiB), one sequence: 2 MiB.
  const json now = testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", json::object()));
  EXPECT_EQ(now["ollama"]["parallel"], 1);
  EXPECT_EQ(now["llamacpp"]["context"]["kv_bytes"], 2097152);
  EXPECT_EQ(now["ollama"]["flash_attention"], "auto");
}

TEST(OllamaProfileReleases, NoSequencesBeforeV0133) {
  // v0.1.28 reads no OLLAMA_NUM_PARALLEL: one sequence of num_ctx 1024,
  // 1024 x 512 B = 512 KiB, where v0.1.33 gives 4 x 1024 cells, 2 MiB.
  const json fields = {{"num_ctx", "1024"}, {"ollama_num_parallel", "4"}};
  json at = fields;
  at["ollama_version"] = "0.1.28";
  const json old = testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", at));
  EXPECT_EQ(old["ollama"]["parallel"], 1);
  EXPECT_EQ(old["llamacpp"]["context"]["kv_bytes"], 524288);
  EXPECT_NE(old.dump().find("OLLAMA_NUM_PARALLEL: Ollama v0.1.28 serves one sequence"), std::string::npos);
  at["ollama_version"] = "0.1.33";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", at))["llamacpp"]["context"]["kv_bytes"], 2097152);
}

TEST(OllamaProfileReleases, CellsPaddedTo32WithoutFlashAttentionBeforeV0132) {
  // num_ctx 1100, one sequence, flash attention off. v0.12.0's llama.cpp
  // pads to 32: 1120 cells x 512 B = 573,440 B; v0.24.0's to 256: 1280
  // cells, 655,360 B.
  const json fields = {{"num_ctx", "1100"}, {"ollama_flash_attention", "false"}};
  json at = fields;
  at["ollama_version"] = "0.12.0";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", at))["llamacpp"]["context"]["kv_bytes"], 573440);
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", fields))["llamacpp"]["context"]["kv_bytes"], 655360);
}

TEST(OllamaProfileReleases, LogitsForEveryBatchRowBeforeV0132) {
  // v0.1.31's llama.cpp (b2527, before #6122) keeps a row per batch token,
  // v0.1.32's a row per sequence; the runner's context asks for
  // embeddings (output_embeddings), so a row is 256 logits and the 64
  // floats of the embedding: 512 x (256 + 64) x 4 B = 655,360 B, then
  // 1 x 320 x 4 B = 1,280 B.
  const json fields = {{"num_ctx", "1024"}, {"ollama_num_parallel", "1"}};
  json at = fields;
  at["ollama_version"] = "0.1.31";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", at))["llamacpp"]["context"]["output_bytes"], 655360);
  at["ollama_version"] = "0.1.32";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("llama-dense.gguf", at))["llamacpp"]["context"]["output_bytes"], 1280);
}

TEST(OllamaProfileReleases, RunnerByRelease) {
  // qwen3moe: llama.cpp's runner until Ollama's engine took it in v0.12.2.
  const json fields = {{"num_ctx", "1024"}};
  json at = fields;
  at["ollama_version"] = "0.12.1";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("qwen3moe.gguf", at))["ollama"]["runner"], "llama.cpp");
  at["ollama_version"] = "0.12.2";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("qwen3moe.gguf", at))["ollama"]["runner"], "ollama");
  at["ollama_version"] = "0.24.0";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("qwen3moe.gguf", at))["ollama"]["runner"], "ollama");
  // From v0.30.0 (the default, v0.32.15) llama-server runs every GGUF model.
  at["ollama_version"] = "0.30.0";
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("qwen3moe.gguf", at))["ollama"]["runner"], "llama-server");
  EXPECT_EQ(testing::run_request_texts_ok(on_rtx4060("qwen3moe.gguf", fields))["ollama"]["runner"], "llama-server");
}

TEST(OllamaProfileReleases, TheOwnEnginesSchedulerReservesItsOwnGraph) {
  // qwen3moe runs on Ollama's own engine, whose scheduler sees the graph
  // the engine reserves (runner/ollamarunner/runner.go
  // reserveWorstCaseGraph), not llama.cpp's: at num_ctx 1024 the layout's
  // graph is the replay the GPU's compute record prices, 3,674,240 B
  // (engine_graph.cc; llama.cpp's largest phase, 1,990,656 B, before).
  const json j = testing::run_request_texts_ok(on_rtx4060("qwen3moe.gguf", {{"num_ctx", "1024"}, {"ollama_version", "0.24.0"}}));
  EXPECT_EQ(j["ollama"]["runner"], "ollama");
  EXPECT_EQ(j["ollama"]["graph_full_bytes"], 3674240);
  EXPECT_EQ(j["ollama"]["graph_partial_bytes"], 3674240);
  EXPECT_EQ(j["llamacpp"]["devices"][0]["compute_bytes"], 3674240);
}

TEST(OllamaProfileReleases, OlderLayerPlacementIsNamed) {
  // A GPU with 460 MiB free keeps 457 MiB (MinimumMemory) and has no room
  // for the graph: no layer on it. Before v0.12.11 the llama.cpp runner's
  // layers were llm/memory.go's, which memfit does not replay: it says so.
  json r = {{"model", kModels + "llama-dense.gguf"}, {"engine", "ollama"}, {"memory_limit", "64GiB"},
            {"ollama_gpus_free", "CUDA0=460MiB"}, {"num_ctx", "1024"}, {"ollama_version", "0.12.10"}};
  const json old = testing::run_request_texts_ok(r);
  EXPECT_EQ(old["ollama"]["gpu_layers"], 0);
  EXPECT_NE(old.dump().find("Ollama v0.12.10 placed the llama.cpp runner's layers by llm/memory.go's "
                            "estimate"),
            std::string::npos);
  r["ollama_version"] = "0.12.11";
  EXPECT_EQ(testing::run_request_texts_ok(r).dump().find("llm/memory.go"), std::string::npos);
}

TEST(OllamaProfileReleases, LaterReleasesAreRefused) {
  char* response = nullptr;
  const json r = on_rtx4060("llama-dense.gguf", {{"ollama_version", "0.33.0"}});
  EXPECT_NE(memfit_run_request_json(r.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response), MEMFIT_OK);
  EXPECT_NE(std::string(response).find("ollama_version"), std::string::npos) << response;
  memfit_string_free(response);
}

}  // namespace
}  // namespace memfit
