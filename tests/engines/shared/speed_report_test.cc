// The report's speed (engines/shared/speed_report.h), worked by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engines/shared/speed_report.h"
#include "memfit/hardware.h"
#include "memfit/model.h"
#include "memfit/published_runs.h"

namespace memfit {
namespace {

// An 8B dense model: 8,030,000,000 parameters, 32 layers, 32 x 128 query
// width, 8 x 128 KV width: K and V of a token are 2 x 32 x 1024 x 2 =
// 131,072 bytes.
SpeedModelShape dense_8b(uint64_t weight_bytes) {
  SpeedModelShape s;
  s.weight_bytes = weight_bytes;
  s.params = 8'030'000'000;
  s.active_params = 8'030'000'000;
  s.n_layers = 32;
  s.attention_width = 4096;
  s.kv_width = 1024;
  return s;
}

const DeviceThroughput kRtx4090{"rtx4090", 1008, 165.2, 660.6};  // data/hardware/gpus.tsv
const DeviceThroughput kM3Max40{"m3-max-64gb", 400, 14.32, 0};    // data/hardware/apple.tsv

// The bands the report reads: fitted on the committed published runs.
struct Bands {
  EfficiencyTable decode;
  EfficiencyTable prefill;
};
const Bands& bands() {
  static const Bands b = [] {
    const PublishedRuns* runs = *published_runs();
    const HardwareTable* table = *hardware_table();
    return Bands{*fit_published_efficiency(*runs, *table, SpeedPhase::kDecode),
                 *fit_published_efficiency(*runs, *table, SpeedPhase::kPrefill)};
  }();
  return b;
}

void expect_range(const SpeedRange& r, double bound, uint64_t layers, const EfficiencyBand& band) {
  const SpeedRange want = apply_efficiency(bound, layers, band);
  EXPECT_NEAR(r.bound, bound, bound * 1e-12);
  EXPECT_DOUBLE_EQ(r.median, want.median);
  EXPECT_DOUBLE_EQ(r.low, want.low);
  EXPECT_DOUBLE_EQ(r.high, want.high);
  EXPECT_EQ(r.efficiency.basis, band.basis);
}

TEST(SpeedReport, LlamaCppPlanOnAnRtx4090) {
  // Q4_K_M's 4.92 GB (4.9 bits a parameter: "under 8-bit"), all of it on
  // the GPU, n_ctx 4096: the cache at the end is 4096 x 131,072 =
  // 536,870,912 bytes.
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cuda:0", kRtx4090, 4'920'000'000, 536'870'912}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  ASSERT_EQ(s.unknown, "");
  // Decode: 1008e9 / 4.92e9 = 204.878 at the start; 1008e9 /
  // (4.92e9 + 536,870,912) = 1008e9 / 5,456,870,912 = 184.721 at the end.
  const EfficiencyBand decode = *bands().decode.find("cuda", "under 8-bit");
  expect_range(s.decode_start, 1008e9 / 4.92e9, 32, decode);
  expect_range(s.decode_end, 1008e9 / 5'456'870'912.0, 32, decode);
  EXPECT_NEAR(s.decode_start.bound, 204.878, 0.001);
  EXPECT_NEAR(s.decode_end.bound, 184.721, 0.001);
  // Prefill at the mean context 2048: 2 x 8.03e9 + 4 x 32 x 2048 x 4096 =
  // 17,133,741,824 FLOPs a token; at the INT8 peak the CUDA bands are
  // fitted against, 660.6e12 / that = 38,555.50 tokens a second.
  const EfficiencyBand prefill = *bands().prefill.find("cuda", "under 8-bit");
  expect_range(s.prefill, 660.6e12 / 17'133'741'824.0, 32, prefill);
  EXPECT_NEAR(s.prefill.bound, 38'555.50, 0.01);
  EXPECT_EQ(s.prefill_peak, ComputePeak::kInt8);
  // The first token: the 4096-token prompt at the modelled rate; its band
  // the other way round (the fastest prefill is the shortest wait).
  EXPECT_DOUBLE_EQ(s.ttft_s, 4096 / s.prefill.median);
  EXPECT_DOUBLE_EQ(s.ttft_low_s, 4096 / s.prefill.high);
  EXPECT_DOUBLE_EQ(s.ttft_high_s, 4096 / s.prefill.low);
  ASSERT_EQ(s.parts.size(), 1u);
  EXPECT_EQ(s.parts[0].active_weight_bytes, 4'920'000'000u);
  EXPECT_NEAR(s.parts[0].bound_start_s, 4.92e9 / 1008e9, 1e-15);
}

TEST(SpeedReport, AMixtureOfExpertsShapeNamesItsRoutedExperts) {
  // Qwen3-30B-A3B's config: 48 layers, hidden 2048, 128 experts of width
  // 768, 8 a token. Routed: 48 x 3 x 2048 x 768 x 128 = 28,991,029,248
  // parameters (moe-experts.tsv's); unused a token: the same x 120 / 128 =
  // 27,179,089,920, so 30,531,911,680 - that = 3,352,821,760 active, of
  // which 28,991,029,248 / 16 = 1,811,939,328 are the experts'.
  Model model;
  model.spec.analytical_params = 30'531'911'680;
  model.spec.geometry.layers = 48;
  model.spec.geometry.hidden = 2048;
  model.spec.geometry.heads = 32;
  model.spec.geometry.kv_heads = 4;
  model.spec.geometry.head_dim = 128;
  model.spec.geometry.intermediate = 6144;
  model.spec.moe.experts = 128;
  model.spec.moe.experts_per_token = 8;
  model.spec.moe.expert_intermediate = 768;
  SpeedModelShape shape = speed_shape(model, 18'554'258'718);
  EXPECT_EQ(shape.active_params, 3'352'821'760u);
  EXPECT_EQ(shape.expert_params, 28'991'029'248u);
  EXPECT_EQ(shape.active_expert_params(), 1'811'939'328u);
  // The bytes a token reads keep the share rule (no expert bytes given):
  // MixtureOfExpertsReadsOnlyTheActiveShare's 2,037,511,539.
  EXPECT_EQ(shape.active_weight_bytes(), 2'037'511'539u);
  // A llama.cpp plan's microbatch of 512 on CUDA: 32 tokens an expert in
  // MMQ's tile of 128, 4 times a dense product's cost.
  shape.microbatch_tokens = 512;
  shape.tile_tokens = llamacpp_prompt_tile_tokens("cuda");
  EXPECT_DOUBLE_EQ(shape.expert_tile_factor(), 4.0);
  // A dense model names none.
  model.spec.moe = {};
  EXPECT_EQ(speed_shape(model, 18'554'258'718).expert_params, 0u);
}

TEST(SpeedReport, MlxLmPlanOnAnM3Max) {
  // MLX 4bit's 4.5 GB on an M3 Max (40 cores, 400 GB/s, 14.32 TFLOPS), a
  // 512-token prompt then 1024 generated: the cache ends at 1536 x 131,072
  // = 201,326,592 bytes.
  SpeedPlan plan;
  plan.shape = dense_8b(4'500'000'000);
  plan.parts = {{"gpu", kM3Max40, 4'500'000'000, 201'326'592}};
  plan.compute = kM3Max40;
  plan.backend = "mlx";
  plan.context_tokens = 1536;
  plan.prompt_tokens = 512;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  ASSERT_EQ(s.unknown, "");
  // 400e9 / 4.5e9 = 88.889; 400e9 / 4,701,326,592 = 85.082.
  const EfficiencyBand decode = *bands().decode.find("mlx", "under 8-bit");
  expect_range(s.decode_start, 400e9 / 4.5e9, 32, decode);
  expect_range(s.decode_end, 400e9 / 4'701'326'592.0, 32, decode);
  EXPECT_NEAR(s.decode_end.bound, 85.082, 0.001);
  // Mean context 256: 2 x 8.03e9 + 4 x 32 x 256 x 4096 = 16,194,217,728
  // FLOPs; 14.32e12 / that = 884.266.
  const EfficiencyBand prefill = *bands().prefill.find("mlx", "under 8-bit");
  expect_range(s.prefill, 14.32e12 / 16'194'217'728.0, 32, prefill);
  EXPECT_NEAR(s.prefill.bound, 884.266, 0.001);
  EXPECT_EQ(s.prefill_peak, ComputePeak::kFp16);
  EXPECT_DOUBLE_EQ(s.ttft_s, 512 / s.prefill.median);
}

TEST(SpeedReport, AFirstCallAddsItsOneTimeCostToTheFirstToken) {
  // MlxLmPlanOnAnM3Max's plan with mlx-lm's first-call cost (0.2 / 0.35 /
  // 0.5 s, memfit/speed.h): the warm first token and its band stay, and
  // the first call's is each of them plus the cost, the low with the low.
  SpeedPlan plan;
  plan.shape = dense_8b(4'500'000'000);
  plan.parts = {{"gpu", kM3Max40, 4'500'000'000, 201'326'592}};
  plan.compute = kM3Max40;
  plan.backend = "mlx";
  plan.engine = "mlx-lm";
  plan.context_tokens = 1536;
  plan.prompt_tokens = 512;
  const PlanSpeed warm = estimate_plan_speed(plan, bands().decode, bands().prefill);
  EXPECT_FALSE(warm.first_call_ttft_s.has_value());
  EXPECT_FALSE(speed_json(warm)["time_to_first_token_s"].contains("first_call"));
  plan.first_call = kMlxLmFirstCall;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  EXPECT_DOUBLE_EQ(s.ttft_s, 512 / s.prefill.median);
  ASSERT_TRUE(s.first_call_ttft_s.has_value());
  EXPECT_DOUBLE_EQ(*s.first_call_ttft_s, s.ttft_s + 0.35);
  EXPECT_DOUBLE_EQ(s.first_call_ttft_low_s, s.ttft_low_s + 0.2);
  EXPECT_DOUBLE_EQ(s.first_call_ttft_high_s, s.ttft_high_s + 0.5);
  const nlohmann::ordered_json j = speed_json(s)["time_to_first_token_s"]["first_call"];
  EXPECT_DOUBLE_EQ(j["median"].get<double>(), *s.first_call_ttft_s);
  EXPECT_DOUBLE_EQ(j["high"].get<double>(), s.first_call_ttft_high_s);
  const std::string line = speed_text(s);
  EXPECT_NE(line.find(fmt::format("for 512 tokens, {:.2g} s ({:.2g}-{:.2g}) on a process's first call",
                                  *s.first_call_ttft_s, s.first_call_ttft_low_s,
                                  s.first_call_ttft_high_s)),
            std::string::npos)
      << line;
}

TEST(SpeedReport, OffloadedLayersAreReadAtTheHostsBandwidth) {
  // -ngl leaving 1.92 GB of weights and 136,870,912 bytes of cache on a
  // host read at 80 GB/s; 3 GB and 400,000,000 on the RTX 4090. At the
  // start: 1 / (3e9 / 1008e9 + 1.92e9 / 80e9) = 1 / (0.0029762 + 0.024) =
  // 37.0697; at the end: 1 / (3.4e9 / 1008e9 + 2,056,870,912 / 80e9) =
  // 34.3833.
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cuda:0", kRtx4090, 3'000'000'000, 400'000'000},
                {"cpu", {"cpu", 80, 0, 0}, 1'920'000'000, 136'870'912}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  ASSERT_EQ(s.unknown, "");
  EXPECT_NEAR(s.decode_start.bound, 1 / (3e9 / 1008e9 + 1.92e9 / 80e9), 1e-9);
  EXPECT_NEAR(s.decode_start.bound, 37.0697, 0.0001);
  EXPECT_NEAR(s.decode_end.bound, 34.3833, 0.0001);
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_NEAR(s.parts[1].bound_start_s, 0.024, 1e-12);
  // Prefill runs on the GPU whatever the split: the same bound as above.
  EXPECT_NEAR(s.prefill.bound, 38'555.50, 0.01);
}

TEST(SpeedReport, MixtureOfExpertsReadsItsActiveShareOnEachDevice) {
  // 20 GB of weights for 20e9 parameters of which 5e9 are active: each
  // part reads a quarter of what it holds: 10 GB on the GPU reads 2.5 GB,
  // 10 GB on the host (100 GB/s) 2.5 GB: 1 / (2.5e9 / 1008e9 + 2.5e9 /
  // 100e9) = 1 / (0.00248016 + 0.025) = 36.3898.
  SpeedPlan plan;
  plan.shape = dense_8b(20'000'000'000);
  plan.shape.params = 20'000'000'000;
  plan.shape.active_params = 5'000'000'000;
  plan.parts = {{"cuda:0", kRtx4090, 10'000'000'000, 0}, {"cpu", {"cpu", 100, 0, 0}, 10'000'000'000, 0}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 512;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  ASSERT_EQ(s.unknown, "");
  EXPECT_EQ(s.parts[0].active_weight_bytes, 2'500'000'000u);
  EXPECT_NEAR(s.decode_start.bound, 36.3898, 0.0001);
}

TEST(SpeedReport, AnEmbeddingPlanTimesThePromptAndDecodesNothing) {
  // The same 8B plan as on the RTX 4090 above, served for its vectors:
  // no decode figure at all, and no bandwidth read (the host's part is
  // of unknown bandwidth and still no "unknown"); prefill is the same
  // 660.6e12 / 17,133,741,824 = 38,555.50 tokens a second bound.
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cuda:0", kRtx4090, 3'000'000'000, 0}, {"cpu", {"cpu", 0, 0, 0}, 1'920'000'000, 0}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  plan.no_decode = "--runner pooling returns vectors and scores, not tokens";
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  EXPECT_EQ(s.unknown, "");
  EXPECT_EQ(s.no_decode, plan.no_decode);
  EXPECT_EQ(s.decode_end.median, 0);
  const EfficiencyBand prefill = *bands().prefill.find("cuda", "under 8-bit");
  expect_range(s.prefill, 660.6e12 / 17'133'741'824.0, 32, prefill);
  EXPECT_DOUBLE_EQ(s.ttft_s, 4096 / s.prefill.median);

  const nlohmann::ordered_json j = speed_json(s);
  EXPECT_TRUE(j["decode_tokens_per_second"].is_null());
  EXPECT_EQ(j["no_decode"], plan.no_decode);
  EXPECT_FALSE(j.contains("devices"));
  EXPECT_EQ(j["prefill_tokens_per_second"]["prompt_tokens"], 4096);
  EXPECT_DOUBLE_EQ(j["time_to_first_token_s"]["median"].get<double>(), s.ttft_s);

  const std::string line = speed_text(s);
  EXPECT_EQ(line.rfind("speed: no decode (--runner pooling returns vectors and scores, not tokens); prefill ", 0),
            0u) << line;
  EXPECT_NE(line.find("; the prompt's 4096 tokens in "), std::string::npos) << line;
  // "decode" once, in "no decode": no rate, no start or end of the context.
  EXPECT_EQ(line.find("decode", line.find("no decode") + 9), std::string::npos) << line;
  EXPECT_EQ(line.find(" at the start"), std::string::npos) << line;
}

TEST(SpeedReport, AnEmbeddingPlanWithoutAComputePeakSaysSo) {
  // On the host alone: no FP16 peak, so not even prefill has a figure.
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cpu", {"cpu", 100, 0, 0}, 4'920'000'000, 0}};
  plan.compute = {"cpu", 100, 0, 0};
  plan.backend = "cpu";
  plan.prompt_tokens = 512;
  plan.no_decode = "llama-server --embedding returns vectors and scores, not tokens";
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  EXPECT_EQ(speed_text(s),
            "speed: no decode (llama-server --embedding returns vectors and scores, not tokens); "
            "prefill unknown: the FP16 peak of cpu is not known\n");
  const nlohmann::ordered_json j = speed_json(s);
  EXPECT_TRUE(j["decode_tokens_per_second"].is_null());
  EXPECT_TRUE(j["prefill_tokens_per_second"].is_null());
  EXPECT_EQ(j["prefill_unknown"], "the FP16 peak of cpu is not known");
}

TEST(SpeedReport, NoKnownDeviceAsksForTheMachine) {
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cpu", {"cpu", 0, 0, 0}, 4'920'000'000, 536'870'912}};
  plan.compute = {"cpu", 0, 0, 0};
  plan.backend = "cpu";
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  EXPECT_EQ(s.unknown, "give --gpu or --mac");
  EXPECT_EQ(speed_text(s), "speed: unknown: give --gpu or --mac\n");
  const nlohmann::ordered_json j = speed_json(s);
  EXPECT_TRUE(j["decode_tokens_per_second"].is_null());
  EXPECT_TRUE(j["prefill_tokens_per_second"].is_null());
  EXPECT_TRUE(j["time_to_first_token_s"].is_null());
  EXPECT_EQ(j["unknown"], "give --gpu or --mac");
}

TEST(SpeedReport, HostLayersWithoutAHostBandwidthAreUnknownNotGuessed) {
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cuda:0", kRtx4090, 3'000'000'000, 0}, {"cpu", {"cpu", 0, 0, 0}, 1'920'000'000, 0}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  EXPECT_EQ(s.unknown,
            "the memory bandwidth of cpu (cpu) is not known, and it holds 1.79 GiB of the plan: "
            "give --host-bandwidth (memfit hardware --measure prints this host's)");
}

TEST(SpeedReport, HostLayersAtTheRequestsBandwidthAddTheirTime) {
  // docs/speed.md, "The host CPU": 3 GB on the RTX 4090 (1008 GB/s) and
  // 1.92 GB left on a host given as 60 GB/s, no cache: 3e9 / 1008e9 =
  // 0.00297619 s and 1.92e9 / 60e9 = 0.032 s a token, one after the
  // other: 1 / 0.03497619 = 28.5909 tokens a second at the bound.
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cuda:0", kRtx4090, 3'000'000'000, 0}, {"cpu", {"cpu", 60, 0}, 1'920'000'000, 0}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  ASSERT_EQ(s.unknown, "");
  EXPECT_NEAR(s.decode_start.bound, 28.5909, 0.0001);
  EXPECT_NEAR(s.parts[1].bound_start_s, 0.032, 1e-12);
  // The whole plan is slower than its GPU part alone (336 tokens a
  // second): the host's 0.032 s is 91.5 % of the token's time.
  EXPECT_LT(s.decode_start.bound, 1008e9 / 3e9);
  const nlohmann::ordered_json j = speed_json(s);
  EXPECT_EQ(j["devices"][1]["device"], "cpu");
  EXPECT_EQ(j["devices"][1]["bandwidth_gb_s"], 60.0);
}

TEST(SpeedReport, HostAloneHasDecodeButNoPrefillWithoutAnFp16Peak) {
  // The whole 4.92 GB and 536,870,912 bytes of cache on a 60 GB/s host,
  // its prompt on the CPU too: decode 60e9 / 4.92e9 = 12.1951 at the
  // start, 60e9 / 5,456,870,912 = 10.9953 at the end; no CPU has an FP16
  // figure, so prefill has none.
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cpu", {"cpu", 60, 0}, 4'920'000'000, 536'870'912}};
  plan.compute = {"cpu", 60, 0};
  plan.backend = "cpu";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  ASSERT_EQ(s.unknown, "");
  EXPECT_NEAR(s.decode_start.bound, 12.1951, 0.0001);
  EXPECT_NEAR(s.decode_end.bound, 10.9953, 0.0001);
  // No run is a CPU's: the band over every backend.
  EXPECT_EQ(s.decode_start.efficiency.basis, "all backends");
  EXPECT_EQ(s.prefill_unknown, "the FP16 peak of cpu is not known");
  const nlohmann::ordered_json j = speed_json(s);
  EXPECT_FALSE(j["decode_tokens_per_second"].is_null());
  EXPECT_TRUE(j["prefill_tokens_per_second"].is_null());
  EXPECT_TRUE(j["time_to_first_token_s"].is_null());
  EXPECT_EQ(j["prefill_unknown"], "the FP16 peak of cpu is not known");
  EXPECT_FALSE(j.contains("unknown"));
  const std::string line = speed_text(s);
  EXPECT_NE(line.find(" at 4096 tokens; prefill unknown: the FP16 peak of cpu is not known (all backends, "),
            std::string::npos)
      << line;
}

TEST(SpeedReport, AnEngineWithoutPublishedRunsSaysItsBandIsTheBackends) {
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"gpu:0", kRtx4090, 4'920'000'000, 536'870'912}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const std::string with_runs[] = {"llamacpp", "mlx-lm"};
  plan.engine = "mlxcel";
  const PlanSpeed mlxcel = estimate_plan_speed(plan, bands().decode, bands().prefill, with_runs);
  EXPECT_EQ(mlxcel.engine_basis, "no published mlxcel run: the band is fitted on other engines' runs");
  // The band is the backend's all the same: llama.cpp's CUDA runs.
  EXPECT_EQ(mlxcel.decode_start.efficiency.basis, bands().decode.find("cuda", "under 8-bit")->basis);
  EXPECT_EQ(speed_json(mlxcel)["engine_basis"], mlxcel.engine_basis);
  EXPECT_TRUE(speed_text(mlxcel).ends_with(" runs; no published mlxcel run: the band is fitted on "
                                           "other engines' runs)\n"))
      << speed_text(mlxcel);
  plan.engine = "llamacpp";
  const PlanSpeed llamacpp = estimate_plan_speed(plan, bands().decode, bands().prefill, with_runs);
  EXPECT_EQ(llamacpp.engine_basis, "");
  EXPECT_FALSE(speed_json(llamacpp).contains("engine_basis"));
}

TEST(SpeedReport, AVllmPlanTakesItsGroupsDecodeBandAndTheBackendsPrefill) {
  // Llama 3 8B in BF16 (16.06 GB, 16 bits a parameter: "16-bit") under
  // vLLM on an RTX 4090. Decode: the published vLLM/SGLang CUDA runs make
  // a group of their own, 1008e9 / 16.06e9 = 62.765 tokens a second at
  // the start. Prefill: the group has no published prefill run, so the
  // plan takes llama.cpp's CUDA band at the INT8 peak it is fitted
  // against, 660.6e12 / 17,133,741,824 = 38,555.50, and says so.
  SpeedPlan plan;
  plan.shape = dense_8b(16'060'000'000);
  plan.parts = {{"gpu:0", kRtx4090, 16'060'000'000, 536'870'912}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.engine = "vllm";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const std::string with_runs[] = {"llamacpp", "mlx-lm", "vllm", "sglang"};
  ASSERT_EQ(band_group(bands().decode, "cuda vllm/sglang", "cuda"), "cuda vllm/sglang");
  ASSERT_EQ(band_group(bands().prefill, "cuda vllm/sglang", "cuda"), "cuda");
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill, with_runs);
  ASSERT_EQ(s.unknown, "");
  expect_range(s.decode_start, 1008e9 / 16.06e9, 32, *bands().decode.find("cuda vllm/sglang", "16-bit"));
  EXPECT_NEAR(s.decode_start.bound, 62.765, 0.001);
  expect_range(s.prefill, 660.6e12 / 17'133'741'824.0, 32, *bands().prefill.find("cuda", "16-bit"));
  EXPECT_EQ(s.prefill_peak, ComputePeak::kInt8);
  EXPECT_EQ(s.engine_basis,
            "too few published vllm/sglang prefill runs on cuda: that band is fitted on other "
            "engines' runs");
  // llama.cpp on the same plan keeps its own CUDA bands and says nothing.
  plan.engine = "llamacpp";
  const PlanSpeed llamacpp = estimate_plan_speed(plan, bands().decode, bands().prefill, with_runs);
  expect_range(llamacpp.decode_start, 1008e9 / 16.06e9, 32, *bands().decode.find("cuda", "16-bit"));
  EXPECT_EQ(llamacpp.engine_basis, "");
}

TEST(SpeedReport, TextLineGivesTheBandsAndTheBasis) {
  SpeedPlan plan;
  plan.shape = dense_8b(4'920'000'000);
  plan.parts = {{"cuda:0", kRtx4090, 4'920'000'000, 536'870'912}};
  plan.compute = kRtx4090;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  const PlanSpeed s = estimate_plan_speed(plan, bands().decode, bands().prefill);
  const std::string line = speed_text(s);
  EXPECT_TRUE(line.starts_with("speed: decode ")) << line;
  EXPECT_NE(line.find(" at 4096 tokens; prefill "), std::string::npos) << line;
  EXPECT_NE(line.find("for 4096 tokens (" + s.decode_start.efficiency.basis), std::string::npos) << line;
  const nlohmann::ordered_json j = speed_json(s);
  EXPECT_DOUBLE_EQ(j["decode_tokens_per_second"]["start"]["median"].get<double>(), s.decode_start.median);
  EXPECT_EQ(j["decode_tokens_per_second"]["context_tokens"], 4096);
  EXPECT_EQ(j["prefill_tokens_per_second"]["prompt_tokens"], 4096);
  EXPECT_EQ(j["devices"][0]["device"], "cuda:0");
  EXPECT_EQ(j["devices"][0]["kv_bytes"], 536'870'912);
}

}  // namespace
}  // namespace memfit
