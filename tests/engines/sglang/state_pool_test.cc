// SGLang's state pool of hybrid models (src/engines/sglang/state_pool.h)
// worked by hand on the fixtures: the state per request of a gated
// delta-net (Qwen3-Next) and a Mamba-2 model (Falcon-H1, Granite 4 hybrid)
// at TP 1 and 2, the split of the rest by --mamba-full-memory-ratio, and a
// whole plan (docs/engine-sglang.md, "Hybrid models").
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engines/sglang/plan.h"
#include "engines/sglang/state_pool.h"
#include "memfit/memfit.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit::sglang {
namespace {

using json = nlohmann::json;

// Qwen3-Next fixture: 48 layers, every 4th full attention (12), 36 gated
// delta-net layers of 16 key heads and 32 value heads of 128, kernel 4.
// Per layer: conv (32 x 128 + 2 x 16 x 128 = 8192 channels) x 3 x 2 B =
// 49,152 B; delta state 32 x 128 x 128 x 4 B (float32) = 2,097,152 B.
// x 36 layers: conv 1,769,472 + 75,497,472 = 77,266,944 B a request.
constexpr uint64_t kQwen3NextState = 77266944;

TEST(SglangStateCell, GatedDeltaNetConvIsSixteenBitStateIsSsmDtype) {
  const ModelSpec spec = testing::fixture_spec("qwen3-next-interval");
  Result<StateCell> c = state_cell(spec, 1, 4);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->layers, 36u);
  EXPECT_EQ(c->conv_bytes, 1769472u);
  EXPECT_EQ(c->temporal_bytes, 75497472u);
  EXPECT_EQ(c->bytes, kQwen3NextState);
  EXPECT_FALSE(c->unpriced);
  // TP 2: half of each, (24,576 + 1,048,576) x 36 = 38,633,472.
  Result<StateCell> tp2 = state_cell(spec, 2, 4);
  ASSERT_TRUE(tp2.ok());
  EXPECT_EQ(tp2->bytes, 38633472u);
  // --mamba-ssm-dtype bfloat16: the delta state at 2 B, 1,048,576 a layer;
  // (49,152 + 1,048,576) x 36 = 39,518,208.
  Result<StateCell> bf16 = state_cell(spec, 1, 2);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->bytes, 39518208u);
}

TEST(SglangStateCell, FalconH1GroupsGrowToTpWhenTpDoesNotDivideThem) {
  // Falcon-H1 fixture: a Mamba-2 mixer beside the attention in all 24
  // layers; 24 heads of 128 (d_ssm 3072), 1 group, state 256, kernel 4.
  // TP 1: conv (3072 + 2 x 1 x 256 = 3584) x 3 x 2 B = 21,504; temporal
  // 24 x 128 x 256 x 4 B = 3,145,728; 3,167,232 a layer, x 24 = 76,013,568.
  const ModelSpec spec = testing::fixture_spec("falcon-h1-parallel");
  Result<StateCell> c = state_cell(spec, 1, 4);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->layers, 24u);
  EXPECT_EQ(c->bytes, 76013568u);
  // TP 2: the one group grows to 2 (extra_groups_for_head_shards): conv
  // (3072 + 2 x 2 x 256) / 2 = 2048 x 3 x 2 B = 12,288; temporal 12 x 128
  // x 256 x 4 B = 1,572,864; 1,585,152 x 24 = 38,043,648.
  Result<StateCell> tp2 = state_cell(spec, 2, 4);
  ASSERT_TRUE(tp2.ok());
  EXPECT_EQ(tp2->bytes, 38043648u);
  // TP 5 divides neither 24 heads nor SGLang's divide() lets it through.
  Result<StateCell> tp5 = state_cell(spec, 5, 4);
  ASSERT_FALSE(tp5.ok());
  EXPECT_EQ(tp5.error().field(), "tensor_parallel");
}

TEST(SglangStateCell, Lfm2ShortConvIsAConvOnlyStateOfHiddenOverTp) {
  // LFM2 fixture: 4 layers, 3 short-conv ("conv") and 1 full attention,
  // hidden 1024, conv_L_cache 3. SGLang's configs/lfm2.py pools each conv
  // layer as Mamba2StateShape(intermediate = hidden, state 0): conv
  // 1024 / TP x (3 - 1) x 2 B (bf16), no temporal state.
  // TP 1: 1024 x 2 x 2 = 4,096 a layer, x 3 = 12,288 a request.
  const ModelSpec spec = testing::fixture_spec("lfm2-layer-types");
  Result<StateCell> c = state_cell(spec, 1, 4);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->layers, 3u);
  EXPECT_EQ(c->conv_bytes, 12288u);
  EXPECT_EQ(c->temporal_bytes, 0u);
  EXPECT_EQ(c->bytes, 12288u);
  EXPECT_FALSE(c->unpriced);
  EXPECT_TRUE(prices_state(spec));
  // TP 2: 512 x 2 x 2 = 2,048 a layer, x 3 = 6,144; --mamba-ssm-dtype
  // does not enter (no temporal state).
  Result<StateCell> tp2 = state_cell(spec, 2, 2);
  ASSERT_TRUE(tp2.ok());
  EXPECT_EQ(tp2->bytes, 6144u);
  // TP 3 does not divide the 1024 channels (divide() asserts).
  Result<StateCell> tp3 = state_cell(spec, 3, 4);
  ASSERT_FALSE(tp3.ok());
  EXPECT_EQ(tp3.error().field(), "tensor_parallel");
}

TEST(SglangStateCell, Lfm2700mMatchesThePrintedConvPool) {
  // LFM2-700M (tests/data/corpus/lfm2/LFM2-700M): 16 layers, attention at
  // 2, 5, 8, 10, 12, 14, so 10 conv layers; hidden 1536, conv_L_cache 3.
  // 1536 x 2 x 2 B = 6,144 a layer, x 10 = 61,440 a request. The
  // never-seen log tests/data/logs/sglang/sglang-obsidian-lfm2-700m-
  // bench-16gb.log printed "max_mamba_cache_size: 85292, conv_state size:
  // 4.88GB": 85,292 x 61,440 = 5,240,340,480 B = 4.880 GiB.
  Result<StateCell> c = state_cell(testing::corpus_spec("lfm2/LFM2-700M"), 1, 4);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->layers, 10u);
  EXPECT_EQ(c->bytes, 61440u);
}

TEST(SglangStateCell, GraniteHybridPricesItsMambaLayersOnly) {
  // Granite 4 hybrid fixture: 36 Mamba-2 layers and 4 attention layers;
  // 48 heads, d_ssm = 2 x 1536 = 3072 (head 64), 1 group, state 128,
  // kernel 4. Conv (3072 + 256) x 3 x 2 B = 19,968; temporal 48 x 64 x 128
  // x 4 B = 1,572,864; 1,592,832 a layer, x 36 = 57,341,952.
  Result<StateCell> c = state_cell(testing::fixture_spec("granite-hybrid"), 1, 4);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->layers, 36u);
  EXPECT_EQ(c->bytes, 57341952u);
}

TEST(SglangStateCell, NemotronHRealConfigAtTpOneAndEight) {
  // NVIDIA-Nemotron-3-Nano-30B-A3B: 23 Mamba-2 layers ('M' in
  // hybrid_override_pattern) of 64 heads of 64 (d_ssm 4096), 8 groups,
  // state 128, kernel 4. TP 1: conv (4096 + 2 x 8 x 128 = 6144) x 3 x 2 B
  // = 36,864; temporal 64 x 64 x 128 x 4 B = 2,097,152; 2,134,016 a
  // layer, x 23 = 49,082,368. TP 8 (divides the 8 groups): conv 768 x 3
  // x 2 B = 4,608; temporal 8 x 64 x 128 x 4 B = 262,144; 266,752 x 23 =
  // 6,135,296.
  const ModelSpec spec = testing::corpus_spec("nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  Result<StateCell> c = state_cell(spec, 1, 4);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->layers, 23u);
  EXPECT_EQ(c->bytes, 49082368u);
  Result<StateCell> tp8 = state_cell(spec, 8, 4);
  ASSERT_TRUE(tp8.ok());
  EXPECT_EQ(tp8->bytes, 6135296u);
}

TEST(SglangStateCell, MambaOneStateIsNotPricedAndSaysSo) {
  // Jamba's Mamba-1 mixers: SGLang's rule for them was not read.
  Result<StateCell> c = state_cell(testing::fixture_spec("jamba-period"), 1, 4);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bytes, 0u);
  EXPECT_TRUE(c->unpriced);
  EXPECT_FALSE(prices_state(testing::fixture_spec("jamba-period")));
  EXPECT_TRUE(prices_state(testing::fixture_spec("qwen3-next-interval")));
}

StateCell qwen3_next_cell() {
  StateCell c;
  c.bytes = kQwen3NextState;
  return c;
}

TEST(SglangStatePool, RatioGivesTheStatesRTimesTheKvPoolsShare) {
  // 10 GiB left: 10,737,418,240 x 0.9 / 1.9 = 5,086,145,482.1 B for the
  // states, / 77,266,944 = 65.8: 65 slots, 5,022,351,360 B.
  const StatePool pool = size_state_pool(10ull << 30, qwen3_next_cell(), StateSettings{}, std::nullopt, 1);
  EXPECT_TRUE(pool.from_ratio);
  EXPECT_EQ(pool.slots, 65u);
  EXPECT_EQ(pool.bytes, 5022351360ull);
  EXPECT_EQ(pool.slots_per_request, 3u);
}

TEST(SglangStatePool, ExplicitSizeIsSplitOverDpAttentionRanks) {
  StateSettings s;
  s.max_mamba_cache_size = 100;
  // 100 slots, whatever is left; under DP attention of 4: 25 a rank.
  EXPECT_EQ(size_state_pool(0, qwen3_next_cell(), s, std::nullopt, 1).slots, 100u);
  EXPECT_EQ(size_state_pool(0, qwen3_next_cell(), s, std::nullopt, 4).slots, 25u);
  EXPECT_FALSE(size_state_pool(0, qwen3_next_cell(), s, std::nullopt, 1).from_ratio);
}

TEST(SglangStatePool, WithoutRadixCacheOneSlotPerRequest) {
  StateSettings s;
  s.disable_radix_cache = true;
  // --max-running-requests 48: 48 slots, one a request; none given: 512.
  const StatePool given = size_state_pool(10ull << 30, qwen3_next_cell(), s, 48, 1);
  EXPECT_EQ(given.slots, 48u);
  EXPECT_EQ(given.slots_per_request, 1u);
  EXPECT_EQ(size_state_pool(10ull << 30, qwen3_next_cell(), s, std::nullopt, 1).slots, 512u);
}

Model qwen3_next_model(uint64_t weight_bytes) {
  Model m;
  m.has_config = true;
  m.spec = testing::fixture_spec("qwen3-next-interval");
  m.weights.bytes = weight_bytes;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  return m;
}

TEST(SglangPlan, HybridStatePoolComesOutOfTheRestBeforeTheKvPool) {
  // Qwen3-Next fixture, 20 GB of weights (TP 1 keeps them whole; no rope
  // cache: the fixture declares no context), an 80 GiB GPU at 0.85, a
  // context of 32,768. Free before the load 85,899,345,920 - 1,200 MiB =
  // 84,641,054,720; after it 64,641,054,720; reserved 84,641,054,720 x
  // 0.15 = 12,696,158,208; rest 51,944,896,512. States: x 0.9 / 1.9 =
  // 24,605,477,295.2 / 77,266,944 = 318 slots, 24,570,888,192 B. KV: 12
  // full layers x 2 heads x 256 x 2 (K, V) x 2 B = 24,576 B a token;
  // 27,374,008,320 / 24,576 = 1,113,851 tokens, 27,374,002,176 B.
  // Requests: 1,113,851 / 32,768 x 512 = 17,404 -> 4096, capped at
  // 318 / 3 = 106; their table 106 x 32,772 x 4 = 13,895,328.
  Settings s;
  s.gpu_total_bytes = 80ull << 30;
  s.mem_fraction_static = 0.85;
  s.context_length = 32768;
  Result<Plan> p = plan_sglang(qwen3_next_model(20000000000ull), {}, s);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->weights_bytes, 20000000000ull);
  EXPECT_EQ(p->reserved_bytes, 12696158208ull);
  EXPECT_EQ(p->state.bytes, kQwen3NextState);
  EXPECT_EQ(p->state_pool.slots, 318u);
  EXPECT_EQ(p->state_pool.bytes, 24570888192ull);
  EXPECT_EQ(p->cell.bytes, 24576u);
  EXPECT_EQ(p->max_total_num_tokens, 1113851u);
  EXPECT_EQ(p->kv_pool_bytes, 27374002176ull);
  EXPECT_EQ(p->max_running_requests, 106u);
  EXPECT_EQ(p->req_to_token_bytes, 13895328u);
  EXPECT_TRUE(p->starts);
  EXPECT_TRUE(p->serves_request);
}

TEST(SglangPlan, StateSlotsPastTheRestLeaveNoPool) {
  // --max-mamba-cache-size 1000: 1000 x 77,266,944 = 77.3 GB, past the
  // 51.9 GB rest above: SGLang's rest goes negative, no token pool.
  Settings s;
  s.gpu_total_bytes = 80ull << 30;
  s.mem_fraction_static = 0.85;
  s.context_length = 32768;
  s.state.max_mamba_cache_size = 1000;
  Result<Plan> p = plan_sglang(qwen3_next_model(20000000000ull), {}, s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->max_total_num_tokens, 0u);
  EXPECT_FALSE(p->starts);
}

json run_json(const json& request, bool expect_ok = true) {
  char* response = nullptr;
  const memfit_status status =
      memfit_run_request_json(request.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response);
  json body = json::parse(response);
  memfit_string_free(response);
  EXPECT_EQ(status == MEMFIT_OK, expect_ok) << body.dump();
  return body;
}

const std::string kSource = MEMFIT_SOURCE_DIR;

TEST(SglangProfile, StateFieldsOnAModelWithoutStateAreRefusedByName) {
  const json r = {{"model", kSource + "/tests/data/corpus/llama3/Meta-Llama-3.1-8B"},
                  {"engine", "sglang"},
                  {"memory_limit", "80GiB"},
                  {"mamba_full_memory_ratio", "0.5"}};
  const json j = run_json(r, false);
  EXPECT_NE(j.dump().find("mamba_full_memory_ratio"), std::string::npos) << j.dump();
}

TEST(SglangProfile, HybridReportCarriesTheStatePool) {
  // The same plan as above through the JSON entry point: the fixture's
  // config only (no weights: modelled), so only the state figures, which
  // do not depend on the weights, are asserted.
  const json r = {{"model", kSource + "/tests/data/fixtures/qwen3-next-interval"},
                  {"engine", "sglang"},
                  {"memory_limit", "80GiB"},
                  {"context_length", "32768"},
                  {"mamba_ssm_dtype", "bfloat16"}};
  const json j = run_json(r);
  // bfloat16 delta state: 39,518,208 B a request (above).
  EXPECT_EQ(j["mamba_state_bytes_per_request"], 39518208);
  EXPECT_EQ(j["mamba_state_layers"], 36);
  EXPECT_EQ(j["mamba_ssm_dtype"], "bfloat16");
  EXPECT_EQ(j["mamba_pool_bytes"].get<uint64_t>(), j["max_mamba_cache_size"].get<uint64_t>() * 39518208ull);
  EXPECT_NE(j["launch_command"].get<std::string>().find("--mamba-ssm-dtype bfloat16"), std::string::npos);
}

}  // namespace
}  // namespace memfit::sglang
