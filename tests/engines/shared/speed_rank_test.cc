// Plans ranked by decode speed (engines/shared/speed_rank.h), worked by
// hand: with a band of efficiency 1, no layer overhead and a median of 1
// (unit_table()), a plan decodes at exactly its bound, 1 / sum over its
// parts of (active weights + KV cache) / bandwidth.
#include <gtest/gtest.h>

#include <vector>

#include "engines/shared/speed_rank.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;

// 1,073.741824 GB/s moves 1,000 GiB a second: a part of N GiB takes
// N / 1000 s a token.
const DeviceThroughput kGpu{"test-gpu", 1073.741824, 100};
const DeviceThroughput kUnknownHost{"cpu", 0, 0};

// Four runs each exactly at their bound with no layers: the fit's edge
// solution is efficiency 1 and overhead 0, every ratio 1 (median, low and
// high), so a figure is its bound.
EfficiencyTable unit_table() {
  std::vector<EfficiencySample> samples;
  for (int i = 1; i <= 4; ++i) samples.push_back({"cuda", "under 8-bit", 0.01 * i, 0, 0.01 * i});
  return EfficiencyTable::fit(samples);
}

// A dense model (every parameter active) of 8,000,000,000 parameters and
// `weight_bytes` in all: 4 GiB is 4.3 bits a parameter, "under 8-bit".
SpeedPlan plan_of(std::vector<SpeedPlanPart> parts) {
  SpeedPlan plan;
  for (const SpeedPlanPart& p : parts) plan.shape.weight_bytes += p.weight_bytes;
  plan.shape.params = 8'000'000'000;
  plan.shape.active_params = 8'000'000'000;
  plan.shape.n_layers = 32;
  plan.shape.attention_width = 4096;
  plan.shape.kv_width = 1024;
  plan.parts = std::move(parts);
  plan.compute = kGpu;
  plan.backend = "cuda";
  plan.context_tokens = 4096;
  plan.prompt_tokens = 4096;
  return plan;
}

DecodeRank rank(std::vector<SpeedPlanPart> parts) {
  const EfficiencyTable table = unit_table();
  return rank_decode(plan_of(std::move(parts)), table, table);
}

TEST(SpeedRank, KnownPlansRankByDecodeAtTheEndOfTheContext) {
  // 4 GiB of weights and 1 GiB of cache: 5 GiB at 1,000 GiB/s is 200
  // tokens a second; 3 GiB and 1 GiB: 4 GiB, 250 a second.
  const DecodeRank slow = rank({{"cuda:0", kGpu, 4 * kGiB, 1 * kGiB}});
  const DecodeRank fast = rank({{"cuda:0", kGpu, 3 * kGiB, 1 * kGiB}});
  ASSERT_TRUE(slow.decode_tokens_per_second().has_value());
  EXPECT_NEAR(*slow.decode_tokens_per_second(), 200, 1e-9);
  EXPECT_NEAR(*fast.decode_tokens_per_second(), 250, 1e-9);
  EXPECT_TRUE(decodes_faster(fast, slow));
  EXPECT_FALSE(decodes_faster(slow, fast));
  EXPECT_FALSE(decodes_faster(slow, slow));
  EXPECT_EQ(slow.unknown_bytes, 0u);
  EXPECT_EQ(decode_rank_text(slow), "200 tok/s");
  EXPECT_EQ(decode_step_text(fast, slow), "decode 250 -> 200 tok/s");
}

TEST(SpeedRank, TheCacheCountsAtTheEndNotAtTheStart) {
  // Both read 4 GiB of weights at the start (250 a second); at the end
  // one reads 1 GiB of cache more: 4 + 0.25 = 4.25 GiB (235.29 a second)
  // against 4 + 1.25 = 5.25 GiB (190.48 a second).
  const DecodeRank q4 = rank({{"cuda:0", kGpu, 4 * kGiB, kGiB / 4}});
  const DecodeRank f16 = rank({{"cuda:0", kGpu, 4 * kGiB, 5 * kGiB / 4}});
  EXPECT_NEAR(q4.speed.decode_start.median, 250, 1e-9);
  EXPECT_NEAR(f16.speed.decode_start.median, 250, 1e-9);
  EXPECT_NEAR(*q4.decode_tokens_per_second(), 1000 / 4.25, 1e-9);
  EXPECT_NEAR(*f16.decode_tokens_per_second(), 1000 / 5.25, 1e-9);
  EXPECT_TRUE(decodes_faster(q4, f16));
  EXPECT_EQ(decode_step_text(q4, f16), "decode 235 -> 190 tok/s");
}

TEST(SpeedRank, FewerBytesOnAnUnknownHostRankFirst) {
  // The host's bandwidth is not known. Plan A: 3 GiB on the GPU (333.3 a
  // second without the host) and 1 GiB on the host; plan B: 3.5 GiB on
  // the GPU (285.7) and 0.5 GiB on the host. B reads less at the unknown
  // bandwidth, so it ranks first although its known part is slower.
  const DecodeRank a = rank({{"cuda:0", kGpu, 3 * kGiB, 0}, {"cpu", kUnknownHost, kGiB, 0}});
  const DecodeRank b = rank({{"cuda:0", kGpu, 7 * kGiB / 2, 0}, {"cpu", kUnknownHost, kGiB / 2, 0}});
  EXPECT_EQ(a.unknown_bytes, kGiB);
  EXPECT_EQ(b.unknown_bytes, kGiB / 2);
  EXPECT_EQ(a.unknown_devices, std::vector<std::string>{"cpu"});
  EXPECT_NEAR(*a.decode_tokens_per_second(), 1000.0 / 3, 1e-9);
  EXPECT_NEAR(*b.decode_tokens_per_second(), 1000 / 3.5, 1e-9);
  EXPECT_TRUE(decodes_faster(b, a));
  EXPECT_FALSE(decodes_faster(a, b));
  // The whole plan's speed is not guessed: the report's reason stays.
  EXPECT_EQ(a.speed.unknown,
            "the memory bandwidth of cpu (cpu) is not known, and it holds 1.00 GiB of the plan: give "
            "--host-bandwidth (memfit hardware --measure prints this host's)");
  EXPECT_EQ(decode_rank_text(a),
            "at most 333 tok/s (cpu's 1.00 GiB a token at an unknown bandwidth not counted)");
  EXPECT_EQ(decode_step_text(a, b),
            "decode at most 333 tok/s (cpu's 1.00 GiB a token at an unknown bandwidth not counted) -> "
            "at most 286 tok/s (cpu's 512.0 MiB a token at an unknown bandwidth not counted)");
}

TEST(SpeedRank, AKnownPlanRanksBeforeOneWithHostBytes) {
  // All 4 GiB on the GPU (250 a second) against 3 GiB there (333.3
  // without the host) and 1 GiB on the host.
  const DecodeRank on_gpu = rank({{"cuda:0", kGpu, 4 * kGiB, 0}, {"cpu", kUnknownHost, 0, 0}});
  const DecodeRank split = rank({{"cuda:0", kGpu, 3 * kGiB, 0}, {"cpu", kUnknownHost, kGiB, 0}});
  EXPECT_EQ(on_gpu.unknown_bytes, 0u);
  EXPECT_TRUE(on_gpu.speed.unknown.empty());
  EXPECT_TRUE(decodes_faster(on_gpu, split));
  EXPECT_EQ(decode_step_text(on_gpu, split),
            "decode 250 tok/s -> at most 333 tok/s (cpu's 1.00 GiB a token at an unknown bandwidth "
            "not counted)");
}

TEST(SpeedRank, NoKnownDeviceHasNoFigure) {
  const DecodeRank none = rank({{"cpu", kUnknownHost, 4 * kGiB, 0}});
  EXPECT_FALSE(none.decode_tokens_per_second().has_value());
  EXPECT_EQ(none.unknown_bytes, 4 * kGiB);
  EXPECT_EQ(decode_rank_text(none), "unknown: give --gpu or --mac");
  const DecodeRank known = rank({{"cuda:0", kGpu, 4 * kGiB, 0}});
  EXPECT_TRUE(decodes_faster(known, none));
  const nlohmann::ordered_json j = decode_rank_json(none);
  EXPECT_TRUE(j["decode_tokens_per_second"].is_null());
  EXPECT_EQ(j["not_counted"]["bytes_per_token"], 4 * kGiB);
  EXPECT_EQ(j["not_counted"]["devices"], nlohmann::ordered_json::array({"cpu"}));
}

TEST(SpeedRank, AMixtureReadsOnlyItsActiveShareOnTheHost) {
  // 8 GiB of weights of which a token uses a quarter (2 of 8 billion
  // parameters active): the host's 4 GiB are read as 1 GiB a token, the
  // GPU's 4 GiB as 1 GiB (1,000 a second).
  SpeedPlan plan = plan_of({{"cuda:0", kGpu, 4 * kGiB, 0}, {"cpu", kUnknownHost, 4 * kGiB, 0}});
  plan.shape.active_params = 2'000'000'000;
  const EfficiencyTable table = unit_table();
  const DecodeRank r = rank_decode(plan, table, table);
  EXPECT_EQ(r.unknown_bytes, kGiB);
  EXPECT_NEAR(*r.decode_tokens_per_second(), 1000, 1e-9);
}

TEST(SpeedRank, APlanThatDecodesNothingHasNoDecodeFigure) {
  // 4 GiB at 1,000 GiB/s would be 250 tokens a second; an embedding plan
  // decodes none, and says why instead of a figure.
  SpeedPlan plan = plan_of({{"cuda:0", kGpu, 4 * kGiB, 0}});
  plan.no_decode = "llama-server --embedding returns vectors and scores, not tokens";
  const EfficiencyTable table = unit_table();
  const DecodeRank r = rank_decode(plan, table, table);
  EXPECT_FALSE(r.decode_tokens_per_second().has_value());
  EXPECT_EQ(decode_rank_text(r), "none (llama-server --embedding returns vectors and scores, not tokens)");
  EXPECT_TRUE(decode_rank_json(r)["decode_tokens_per_second"].is_null());
  // A plan with a figure ranks before it.
  EXPECT_TRUE(decodes_faster(rank({{"cuda:0", kGpu, 4 * kGiB, 0}}), r));
}

}  // namespace
}  // namespace memfit
