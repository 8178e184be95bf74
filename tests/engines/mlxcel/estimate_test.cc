// estimate_mlxcel(): every term of the mlxcel profile (docs/engine-mlxcel.md) on
// Qwen3-14B-MLX-4bit, the README's example (40 layers, 8 kv heads x 128,
// hidden 5120, intermediate 17408, vocab 151936, weights 8,307,783,680 B
// from its index).
//
// Default figures at 8192 tokens, batch 1, fp16:
//   kv         40 x 2 x 8 x 128 x 2 B x 8192        = 1,342,177,280
//   overhead   0.20 x (8,307,783,680 + 1,342,177,280) = 1,929,992,192
//   activation 2.0 x 1 x min(8192, 2048) x (5120 + 17408) x 2 = 184,549,376
//              + logits 1 x 151936 x 2 = 303,872     =   184,853,248
//   headroom   1,929,992,192 + 184,853,248            = 2,114,845,440
//   total      8,307,783,680 + 1,342,177,280 + 2,114,845,440 = 11,764,806,400
#include <gtest/gtest.h>

#include "engines/mlxcel/decode_workspace.h"
#include "memfit/environment.h"
#include "memfit/mlxcel.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using Vars = std::map<std::string, std::string>;

constexpr uint64_t kWeights = 8307783680;
constexpr uint64_t kTotal = 11764806400;

Model qwen3_14b() {
  Model m;
  m.path = "Qwen3-14B-MLX-4bit";
  m.has_config = true;
  m.spec = testing::corpus_spec("mlx/Qwen3-14B-MLX-4bit");
  m.weights.bytes = kWeights;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  return m;
}

struct Outcome {
  MlxcelEstimate e;
  std::vector<std::string> warnings;
};

Outcome run(std::map<std::string, std::string> env, MlxcelInputs inputs = {},
        Platform platform = {HostOs::kLinux, Backend::kDefault, 0},
        MemoryBudget budget = {64ull << 30, 64ull << 30, BudgetSource::kExplicit}) {
  Outcome r;
  MlxcelSettings settings = mlxcel_settings_from_environment(MapEnvironment(std::move(env)), r.warnings);
  Result<MlxcelEstimate> e = estimate_mlxcel(qwen3_14b(), inputs, settings, platform, budget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  if (e.ok()) r.e = *e;
  return r;
}

TEST(MlxcelEstimate, DefaultsMatchTheHandComputedBreakdown) {
  Outcome r = run({});
  EXPECT_EQ(r.e.kv.total_bytes, 1342177280u);
  EXPECT_EQ(r.e.allocator_overhead_bytes, 1929992192u);
  EXPECT_EQ(r.e.activation_bytes, 184853248u);
  EXPECT_EQ(r.e.backend_inflight_bytes, 0u);
  EXPECT_EQ(r.e.headroom_bytes, 2114845440u);
  EXPECT_EQ(r.e.total_bytes, kTotal);
  EXPECT_EQ(r.e.weights_bytes + r.e.kv.total_bytes + r.e.headroom_bytes, r.e.total_bytes);
  EXPECT_EQ(r.e.headroom_factor_micros, 1200000u);
  EXPECT_TRUE(r.e.fits);
  EXPECT_TRUE(r.warnings.empty());
  // Paged family qwen3: 2 x (ceil(1024 / 8) + 1) x (8 x 16) x (128 + 1) x 4 = 17,040,384.
  EXPECT_EQ(r.e.per_slot_overhead_bytes, 17040384u);
}

TEST(MlxcelEstimate, FitsIsTotalAtMostBudget) {
  EXPECT_TRUE(run({}, {}, {}, {kTotal, kTotal, BudgetSource::kExplicit}).e.fits);
  EXPECT_FALSE(run({}, {}, {}, {kTotal - 1, kTotal, BudgetSource::kExplicit}).e.fits);
  // FITS never changes the figures.
  EXPECT_EQ(run({}, {}, {}, {1, 1, BudgetSource::kExplicit}).e.total_bytes, kTotal);
}

TEST(MlxcelEstimate, HeadroomFactorAppliesToWeightsAndKvOnly) {
  // 1.5: 0.5 x 9,649,960,960 = 4,824,980,480; activation unchanged.
  Outcome r = run({{"MEMFIT_HEADROOM_FACTOR", "1.5"}});
  EXPECT_EQ(r.e.allocator_overhead_bytes, 4824980480u);
  EXPECT_EQ(r.e.activation_bytes, 184853248u);
  EXPECT_EQ(r.e.headroom_factor_micros, 1500000u);
}

TEST(MlxcelEstimate, HeadroomFactorAtOrBelowOneSwitchesTheTermOff) {
  for (const char* factor : {"1", "1.0", "0.5", "0.000001"}) {
    Outcome r = run({{"MEMFIT_HEADROOM_FACTOR", factor}});
    EXPECT_EQ(r.e.allocator_overhead_bytes, 0u) << factor;
    EXPECT_TRUE(r.warnings.empty()) << factor;
    // 8,307,783,680 + 1,342,177,280 + 184,853,248 = 9,834,814,208
    EXPECT_EQ(r.e.total_bytes, 9834814208u) << factor;
  }
}

TEST(MlxcelEstimate, InvalidHeadroomFactorWarnsAndUsesTheDefault) {
  for (const char* factor : {"0", "-2", "abc", ""}) {
    Outcome r = run({{"MEMFIT_HEADROOM_FACTOR", factor}});
    EXPECT_EQ(r.e.allocator_overhead_bytes, 1929992192u) << factor;
    ASSERT_EQ(r.warnings.size(), 1u) << factor;
  }
  EXPECT_EQ(run({{"MEMFIT_HEADROOM_FACTOR", "-2"}}).warnings[0],
            "MEMFIT_HEADROOM_FACTOR: '-2' is not positive; using the default 1.20");
}

TEST(MlxcelEstimate, ActivationMultiplier) {
  // 3.0 x 2048 x 22528 x 2 = 276,824,064 + 303,872 = 277,127,936.
  EXPECT_EQ(run({{"MEMFIT_ACTIVATION_MULT", "3"}}).e.activation_bytes, 277127936u);
  // 0.5 x 2048 x 22528 x 2 = 46,137,344 + 303,872 = 46,441,216.
  EXPECT_EQ(run({{"MEMFIT_ACTIVATION_MULT", "0.5"}}).e.activation_bytes, 46441216u);
  Outcome bad = run({{"MEMFIT_ACTIVATION_MULT", "-1"}});
  EXPECT_EQ(bad.e.activation_bytes, 184853248u);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0], "MEMFIT_ACTIVATION_MULT: '-1' is not positive; using the default 2.0");
}

TEST(MlxcelEstimate, PrefillChunk) {
  // 0 = no chunking: 2 x 8192 x 22528 x 2 = 738,197,504 + 303,872 = 738,501,376.
  EXPECT_EQ(run({{"MEMFIT_PREFILL_CHUNK", "0"}}).e.activation_bytes, 738501376u);
  // 512: 2 x 512 x 22528 x 2 = 46,137,344 + 303,872 = 46,441,216.
  EXPECT_EQ(run({{"MEMFIT_PREFILL_CHUNK", "512"}}).e.activation_bytes, 46441216u);
  Outcome bad = run({{"MEMFIT_PREFILL_CHUNK", "lots"}});
  EXPECT_EQ(bad.e.activation_bytes, 184853248u);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0],
            "MEMFIT_PREFILL_CHUNK: 'lots' is not a token count; using the default 2048");
}

TEST(MlxcelEstimate, EnvironmentTextInAWarningIsEscaped) {
  Outcome bad = run({{"MEMFIT_PREFILL_CHUNK", "1\r\n2"}});
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0],
            "MEMFIT_PREFILL_CHUNK: '1\\r\\n2' is not a token count; using the default 2048");
}

TEST(MlxcelEstimate, ActivationUsesTheRequestedContextNotTheRoundedOne) {
  // No chunking, 1000 tokens: 2 x 1000 x 22528 x 2 = 90,112,000 + 303,872 = 90,415,872
  // (the KV cache rounds to 1024; the activation does not).
  MlxcelInputs in;
  in.max_tokens = 1000;
  Outcome r = run({{"MEMFIT_PREFILL_CHUNK", "0"}}, in);
  EXPECT_EQ(r.e.activation_bytes, 90415872u);
  EXPECT_EQ(r.e.kv.rounded_tokens, 1024u);
}

TEST(MlxcelEstimate, BatchScalesKvActivationAndLogits) {
  // batch 4: kv 1,342,177,280 x 4 = 5,368,709,120;
  // activation 2 x 4 x 2048 x 22528 x 2 = 738,197,504 + logits 4 x 151936 x 2 = 1,215,488
  // = 739,412,992.
  MlxcelInputs in;
  in.batch = 4;
  Outcome r = run({}, in);
  EXPECT_EQ(r.e.kv.total_bytes, 5368709120u);
  EXPECT_EQ(r.e.activation_bytes, 739412992u);
}

TEST(MlxcelEstimate, Int8KvHalvesTheCache) {
  MlxcelInputs in;
  in.kv_element = KvElement::kInt8;
  Outcome r = run({}, in);
  EXPECT_EQ(r.e.kv.total_bytes, 671088640u);  // 1,342,177,280 / 2
  // overhead 0.2 x (8,307,783,680 + 671,088,640) = 1,795,774,464
  EXPECT_EQ(r.e.allocator_overhead_bytes, 1795774464u);
}

TEST(MlxcelEstimate, MlxcelAliasesAreAcceptedAndMemfitNamesWin) {
  EXPECT_EQ(run({{"MLXCEL_HEADROOM_FACTOR", "1.5"}}).e.allocator_overhead_bytes, 4824980480u);
  EXPECT_EQ(run({{"MLXCEL_HEADROOM_FACTOR", "1.5"}, {"MEMFIT_HEADROOM_FACTOR", "1.2"}})
                .e.allocator_overhead_bytes,
            1929992192u);
  EXPECT_EQ(run({{"MLXCEL_ACTIVATION_MULT", "3"}}).e.activation_bytes, 277127936u);
  EXPECT_EQ(run({{"MLXCEL_PREFILL_CHUNK", "512"}}).e.activation_bytes, 46441216u);
}

TEST(MlxcelEstimate, MemoryLimitFromEnvironment) {
  std::vector<std::string> warnings;
  MlxcelSettings s =
      mlxcel_settings_from_environment(MapEnvironment(Vars{{"MEMFIT_MEMORY_LIMIT", "48GB"}}), warnings);
  EXPECT_EQ(s.memory_limit_bytes, 48'000'000'000u);  // 48 x 10^9
  s = mlxcel_settings_from_environment(MapEnvironment(Vars{{"MLXCEL_MEMORY_LIMIT", "512MiB"}}), warnings);
  EXPECT_EQ(s.memory_limit_bytes, 536870912u);
  s = mlxcel_settings_from_environment(MapEnvironment(Vars{{"MEMFIT_MEMORY_LIMIT", "none"}}), warnings);
  EXPECT_FALSE(s.memory_limit_bytes.has_value());
  EXPECT_TRUE(warnings.empty());
  s = mlxcel_settings_from_environment(MapEnvironment(Vars{{"MEMFIT_MEMORY_LIMIT", "lots"}}), warnings);
  EXPECT_FALSE(s.memory_limit_bytes.has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "MEMFIT_MEMORY_LIMIT: memory size 'lots': expected a number and its unit: B, KB, MB, "
            "GB, TB (10^3 ...), KiB, MiB, GiB, TiB (2^10 ...); ignored");
}

TEST(MlxcelEstimate, RocmReservesTheInFlightBudget) {
  Platform rocm{HostOs::kLinux, Backend::kRocm, 0};
  // 1024 MiB = 1,073,741,824 by default.
  Outcome r = run({}, {}, rocm);
  EXPECT_EQ(r.e.backend_inflight_bytes, 1073741824u);
  EXPECT_EQ(r.e.total_bytes, kTotal + 1073741824u);
  EXPECT_EQ(run({{"MLX_ROCM_MAX_INFLIGHT_MB", "256"}}, {}, rocm).e.backend_inflight_bytes,
            268435456u);
  EXPECT_EQ(run({{"MLX_ROCM_MAX_INFLIGHT_MB", "0"}}, {}, rocm).e.backend_inflight_bytes, 0u);
  // Not ROCm: nothing, whatever the variable says.
  EXPECT_EQ(run({{"MLX_ROCM_MAX_INFLIGHT_MB", "256"}}).e.backend_inflight_bytes, 0u);
}

TEST(MlxcelEstimate, HostShadowOnlyOnWindowsRocm) {
  // One f32 logit row 151936 x 4 = 607,744 + token ids 8192 x 4 = 32,768 = 640,512.
  Platform win_rocm{HostOs::kWindows, Backend::kRocm, 0};
  Outcome r = run({}, {}, win_rocm, {64ull << 30, 1ull << 30, BudgetSource::kExplicit});
  EXPECT_EQ(r.e.host_shadow_bytes, 640512u);
  EXPECT_TRUE(r.e.host_shadow_fits);
  EXPECT_TRUE(r.e.fits);
  // Not added to the total: weights + kv + headroom + in-flight 1 GiB only.
  EXPECT_EQ(r.e.total_bytes, kTotal + 1073741824u);
  // Host RAM too small for the shadow: DOES NOT FIT though the device budget holds.
  Outcome tight = run({}, {}, win_rocm, {64ull << 30, 640511, BudgetSource::kExplicit});
  EXPECT_FALSE(tight.e.host_shadow_fits);
  EXPECT_FALSE(tight.e.fits);
  EXPECT_EQ(run({}, {}, {HostOs::kLinux, Backend::kRocm, 0}).e.host_shadow_bytes, 0u);
  EXPECT_EQ(run({}, {}, {HostOs::kWindows, Backend::kCuda, 0}).e.host_shadow_bytes, 0u);
}

TEST(MlxcelEstimate, AbsurdRequestsAreErrorsNotWraparound) {
  std::vector<std::string> w;
  MlxcelSettings s = mlxcel_settings_from_environment(MapEnvironment({}), w);
  MlxcelInputs in;
  in.batch = 1ull << 62;
  Result<MlxcelEstimate> e = estimate_mlxcel(qwen3_14b(), in, s, {}, {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message(), "KV cache size overflows 64 bits");
  in.batch = 0;
  EXPECT_FALSE(estimate_mlxcel(qwen3_14b(), in, s, {}, {}).ok());
}

TEST(DecodeWorkspace, OnlyPagedFamiliesWithGeometry) {
  // gemma-3-1b (gemma3): 1 kv head x 256:
  // 2 x (ceil(1024 / 1) + 1) x (1 x 16) x (256 + 1) x 4 = 2 x 1025 x 16 x 257 x 4 = 33,718,400.
  EXPECT_EQ(per_slot_decode_workspace_bytes(testing::corpus_spec("gemma3/gemma-3-1b-it"), 1, {}),
            33718400u);
  // Metal with 40 GPU cores: target 320; qwen3 8 kv x 128:
  // 2 x (ceil(640 / 8) + 1) x 128 x 129 x 4 = 2 x 81 x 128 x 129 x 4 = 10,699,776.
  Platform metal{HostOs::kMacos, Backend::kMetal, 40};
  EXPECT_EQ(per_slot_decode_workspace_bytes(testing::corpus_spec("qwen3/Qwen3-8B"), 1, metal),
            10699776u);
  EXPECT_FALSE(per_slot_decode_workspace_bytes(testing::corpus_spec("mixtral/Mixtral-8x7B-v0.1"), 1, {}));
  EXPECT_FALSE(per_slot_decode_workspace_bytes(testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B"), 1, {}));
}

}  // namespace
}  // namespace memfit
