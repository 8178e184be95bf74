// The GPU backend's pool in Ollama's own engine (src/engines/ollama/own_pool.cc):
// the MMQ type gate of the NVIDIA Turing/Ampere rule, and the pool counted
// both in a GPU's compute record and in the graph the scheduler reserves
// before it places layers (plan.cc: llm/server.go createLayout reserves
// memory.GPUs[j].Graph, the pool included). On qwen3_8b_gguf
// (small_ggufs.h): 36 blocks of one Q4_K [4096, 4096] matrix, 9,437,184 B
// each, and a tied Q4_K token embedding of 350,060,544 B, the output layer.
#include "engines/ollama/own_pool.h"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/gguf_fixtures.h"
#include "support/json_request.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using json = nlohmann::json;

constexpr uint64_t kOwnPoolMiB = uint64_t{1} << 20;

TEST(OllamaOwnPool, TakesMmqIsMmqsTypeList) {
  EXPECT_TRUE(ollama::takes_mmq(GgmlType::kQ4_K));
  EXPECT_TRUE(ollama::takes_mmq(GgmlType::kQ8_0));
  EXPECT_TRUE(ollama::takes_mmq(GgmlType::kMXFP4));
  // cuBLAS on an F16 copy: IQ1_M, the ternary and the float types.
  EXPECT_FALSE(ollama::takes_mmq(GgmlType::kIQ1_M));
  EXPECT_FALSE(ollama::takes_mmq(GgmlType::kTQ1_0));
  EXPECT_FALSE(ollama::takes_mmq(GgmlType::kF16));
  EXPECT_FALSE(ollama::takes_mmq(GgmlType::kBF16));
}

// A model rebuilt from a GGUF header (its tensors typed by ggml's names).
Model own_pool_model(std::vector<SafetensorsTensor> tensors) {
  Model m;
  m.weights.source = WeightsSource::kGgufHeader;
  m.tensors = std::move(tensors);
  return m;
}

TEST(OllamaOwnPool, EveryMatrixMustTakeMmq) {
  const SafetensorsTensor norm{"blk.0.attn_norm.weight", "f32", {4096}, 16384};
  const SafetensorsTensor q4k{"blk.0.attn_q.weight", "q4_K", {4096, 4096}, 9437184};
  // A one-dimensional F32 norm is no matrix.
  EXPECT_TRUE(ollama::matrices_take_mmq(own_pool_model({norm, q4k})));
  EXPECT_FALSE(ollama::matrices_take_mmq(own_pool_model({norm, q4k, {"output.weight", "bf16", {4096, 100}, 819200}})));
  EXPECT_FALSE(ollama::matrices_take_mmq(own_pool_model({q4k, {"blk.1.ffn_down.weight", "iq1_m", {4096, 4096}, 0}})));
  // No tensor list: nothing known, no pool.
  EXPECT_FALSE(ollama::matrices_take_mmq(own_pool_model({})));
}

// qwen3_8b_gguf with block 0's matrix of `type`.
GgufWriter qwen3_8b_first_matrix(GgmlType type) {
  GgufWriter w = qwen3_8b_gguf_keys();
  w.add_tensor("token_embd.weight", GgmlType::kQ4_K, {4096, 151936});
  for (int layer = 0; layer < 36; ++layer) {
    w.add_tensor("blk." + std::to_string(layer) + ".attn_q.weight", layer == 0 ? type : GgmlType::kQ4_K,
                 {4096, 4096});
  }
  return w;
}

// Ollama v0.24.0's own engine, num_ctx 4096, flash attention on, an F16
// cache, on one GPU of `free` as discovery reads it; `arch` the inference
// compute line's compute= ("" for none).
json own_pool_request(const std::string& model, const std::string& free, const std::string& arch) {
  json r = {{"model", model},
            {"engine", "ollama"},
            {"memory_limit", "64GiB"},
            {"ollama_version", "0.24.0"},
            {"ollama_gpus_free", "CUDA0=" + free},
            {"num_ctx", "4096"},
            {"ollama_flash_attention", "true"}};
  if (!arch.empty()) r["ollama_gpu_arch"] = arch;
  return r;
}

uint64_t fit_graph_bytes(const json& j) { return j["ollama"]["graph_full_bytes"].get<uint64_t>(); }

TEST(OllamaOwnPool, AmpereFitsGraphHoldsThePoolOfAnMmqModel) {
  TempDir dir;
  const std::string q4k = dir.file_path("q4k.gguf"), f16 = dir.file_path("f16.gguf"), iq1m = dir.file_path("iq1m.gguf");
  qwen3_8b_first_matrix(GgmlType::kQ4_K).write(q4k);
  qwen3_8b_first_matrix(GgmlType::kF16).write(f16);
  qwen3_8b_first_matrix(GgmlType::kIQ1_M).write(iq1m);
  const json plain = testing::run_request_texts_ok(own_pool_request(q4k, "24GiB", ""));
  ASSERT_EQ(plain["ollama"]["runner"], "ollama");
  ASSERT_EQ(plain["ollama"]["flash_attention"], "on");
  // An A5000 (8.6), 512 tokens, 32 heads over 8 KV heads, 4,096 cells:
  // ncols2 4, ncols1 16, 512 / 16 x 32 / 4 = 256 tiles; 256 x 64 x (4 + 128)
  // float2s x 8 B = 69,206,016 B (33 x 2 MiB), above the down product's
  // q8_1 rows (512 x 12,288 / 32 x 36 + 128 x 144 = 7,096,320 B).
  EXPECT_EQ(fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(q4k, "24GiB", "8.6"))),
            fit_graph_bytes(plain) + 69206016u);
  // An F16 or IQ1_M matrix multiplies through cuBLAS: no pool replayed.
  const uint64_t f16_plain = fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(f16, "24GiB", "")));
  EXPECT_EQ(fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(f16, "24GiB", "8.6"))), f16_plain);
  const uint64_t iq1m_plain = fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(iq1m, "24GiB", "")));
  EXPECT_EQ(fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(iq1m, "24GiB", "8.6"))), iq1m_plain);
  // Ada (8.9) takes stream-k's blocks, not replayed.
  EXPECT_EQ(fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(q4k, "24GiB", "8.9"))),
            fit_graph_bytes(plain));
}

TEST(OllamaOwnPool, ThePoolLeavesFewerLayersOnTheGpu) {
  TempDir dir;
  const std::string q4k = dir.file_path("q4k.gguf");
  qwen3_8b_first_matrix(GgmlType::kQ4_K).write(q4k);
  const uint64_t graph = fit_graph_bytes(testing::run_request_texts_ok(own_pool_request(q4k, "24GiB", "")));
  // A block is 9,437,184 B of weights and 4,096 cells x 1,024 x 2 B x 2
  // (K and V) = 16,777,216 B of cache: 25 MiB. Free: the minimum 457 MiB,
  // the graph and 760 MiB. Without the pool the layout keeps 760 MiB for
  // layers: the output layer (350,060,544 B) and floor(426.2 / 25) = 17
  // blocks is not all 37, so without it floor(760 / 25) = 30 blocks. With
  // the pool's 66 MiB: floor(694 / 25) = 27 blocks.
  const std::string free = std::to_string(457 * kOwnPoolMiB + graph + 760 * kOwnPoolMiB) + "B";
  const json without = testing::run_request_texts_ok(own_pool_request(q4k, free, ""));
  EXPECT_EQ(without["ollama"]["gpu_layers"], 30);
  EXPECT_EQ(without["ollama"]["scheduler"][0]["weights_bytes"], 30u * 9437184u);
  EXPECT_EQ(without["ollama"]["scheduler"][0]["cache_bytes"], 30u * 16777216u);
  const json with = testing::run_request_texts_ok(own_pool_request(q4k, free, "8.6"));
  EXPECT_EQ(with["ollama"]["gpu_layers"], 27);
  EXPECT_EQ(with["ollama"]["scheduler"][0]["graph_bytes"], graph + 69206016u);
}

}  // namespace
}  // namespace memfit
