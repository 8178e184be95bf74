// SGLang's plan as the speed estimate reads it
// (src/engines/sglang/speed_plan.h): one rank's weights and one request's
// KV bytes, by hand.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engines/sglang/speed_plan.h"
#include "memfit/memfit.h"
#include "support/paths.h"

namespace memfit::sglang {
namespace {

using json = nlohmann::json;

TEST(SglangSpeedPlan, RequestKvIsEveryTokenOfEachFullLayer) {
  // Llama-3.1-8B at TP 1: 8 KV heads x 128 x 2 (K, V) x 2 bytes x 32
  // layers = 131,072 bytes a token; 8192 tokens: 1,073,741,824 bytes.
  Plan plan;
  plan.settings.context_length = 8192;
  plan.cell.bytes = 131'072;
  plan.cell.full_layers = 32;
  plan.cell.layer_bytes = 4096;
  EXPECT_EQ(request_kv_bytes(ModelSpec{}, plan), 1'073'741'824u);
}

TEST(SglangSpeedPlan, SlidingWindowLayersHoldTheirWindowOnly) {
  // 2 full layers and 4 of a 1024-token window, 4096 bytes a layer-token,
  // 8192 tokens: 2 x 4096 x 8192 + 4 x 4096 x 1024 = 67,108,864 +
  // 16,777,216 = 83,886,080 bytes.
  ModelSpec spec;
  spec.layers = {LayerCache{LayerKind::kFullAttention, 2048, 0, 0, 0},
                 LayerCache{LayerKind::kSlidingWindow, 2048, 0, 1024, 0},
                 LayerCache{LayerKind::kSlidingWindow, 2048, 0, 1024, 0},
                 LayerCache{LayerKind::kFullAttention, 2048, 0, 0, 0},
                 LayerCache{LayerKind::kSlidingWindow, 2048, 0, 1024, 0},
                 LayerCache{LayerKind::kSlidingWindow, 2048, 0, 1024, 0}};
  Plan plan;
  plan.settings.context_length = 8192;
  plan.cell.bytes = 6 * 4096;
  plan.cell.full_layers = 2;
  plan.cell.swa_layers = 4;
  plan.cell.layer_bytes = 4096;
  plan.cell.full_bytes = 2 * 4096;
  plan.cell.swa_bytes = 4 * 4096;
  EXPECT_EQ(request_kv_bytes(spec, plan), 83'886'080u);
  // A context inside the window: every layer holds all of it, 6 x 4096 x 512.
  plan.settings.context_length = 512;
  EXPECT_EQ(request_kv_bytes(spec, plan), 12'582'912u);
}

json run_json_speed_plan(const json& request) {
  char* response = nullptr;
  const memfit_status status =
      memfit_run_request_json(request.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response);
  json body = json::parse(response);
  memfit_string_free(response);
  EXPECT_EQ(status, MEMFIT_OK) << body.dump();
  return body;
}

TEST(SglangSpeedPlan, ReportReadsOneRanksWeightsAtTheGpusBandwidth) {
  const std::string model = std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B";
  for (const char* tp : {"1", "2"}) {
    SCOPED_TRACE(std::string("TP ") + tp);
    const json j = run_json_speed_plan({{"model", model}, {"engine", "sglang"}, {"gpu", "h100"},
                             {"context_length", "8192"}, {"tensor_parallel", tp}});
    const json& speed = j["speed"];
    ASSERT_FALSE(speed["decode_tokens_per_second"].is_null()) << speed.dump();
    ASSERT_EQ(speed["devices"].size(), 1u);
    const json& rank = speed["devices"][0];
    // One rank's weights (the ranks read theirs at once) and one request
    // of 8192 tokens: 131,072 bytes a token at TP 1, 65,536 at TP 2 (4 of
    // the 8 KV heads a rank).
    // The rank's weights less the allocator's rounding, which no token
    // reads: none at TP 1; at TP 2 the two vocabulary shards of 501 MiB
    // sit in 502 MiB segments, 2 MiB (allocator_rounding.h); and less the
    // float32 rotary cache's second half, 131,072 x 128 x 2 = 33,554,432 B
    // (held_weights.h: the speed estimate keeps the shared rule's cache).
    const uint64_t rounding = (std::string(tp) == "1" ? 0u : 2'097'152u) + 33'554'432u;
    EXPECT_EQ(rank["weight_bytes"].get<uint64_t>(), j["weights_bytes"].get<uint64_t>() - rounding);
    EXPECT_EQ(rank["kv_bytes"], std::string(tp) == "1" ? 1'073'741'824u : 536'870'912u);
    // The H100 SXM: 3350 GB/s (data/hardware/gpus.tsv).
    EXPECT_EQ(rank["bandwidth_gb_s"], 3350.0);
    const double weights = static_cast<double>(j["weights_bytes"].get<uint64_t>() - rounding);
    EXPECT_DOUBLE_EQ(rank["bound_seconds_per_token_start"].get<double>(), weights / 3350e9);
    EXPECT_NEAR(speed["decode_tokens_per_second"]["start"]["bound"].get<double>(), 3350e9 / weights,
                1e-9 * 3350e9 / weights);
    EXPECT_EQ(speed["decode_tokens_per_second"]["context_tokens"], 8192);
    EXPECT_EQ(speed["prefill_tokens_per_second"]["prompt_tokens"], 8192);
    // Decode reads the vLLM/SGLang group's band (published-runs.tsv has
    // SGLang and vLLM runs); prefill, with no published run of the group,
    // llama.cpp's CUDA band, and the report says so (docs/speed.md).
    EXPECT_EQ(speed["prefill_tokens_per_second"]["peak"], "int8");
    EXPECT_EQ(speed["engine_basis"],
              "too few published vllm/sglang prefill runs on cuda: that band is fitted on other "
              "engines' runs");
  }
}

}  // namespace
}  // namespace memfit::sglang
