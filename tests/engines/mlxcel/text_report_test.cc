// render_mlxcel_text() (mlxcel's text table) on an MlxcelEstimate filled by hand, one
// input changed per variant, and on estimate_mlxcel()'s answer for Qwen3-14B-MLX-4bit.
//
// The hand-built estimate: 32 full-attention layers, 8 KV heads x 128, fp16:
//   KV per token  32 x 2 x 8 x 128 x 2 B = 131,072 B; x 4096 tokens = 512 MiB
//   weights       3.5 GiB
//   allocator     (1.25 - 1) x (3.5 GiB + 0.5 GiB) = 1 GiB
//   activation    256 MiB; in-flight 0; headroom 1 GiB + 256 MiB = 1.25 GiB
//   total         3.5 GiB + 0.5 GiB + 1.25 GiB = 5.25 GiB, budget 8 GiB
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "memfit/mlxcel_report.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using ::memfit::testing::kMiB;
using ::memfit::testing::kGiB;

Model tiny_model() {
  Model m;
  m.path = "models/tiny";
  m.has_config = true;
  m.spec.model_type = "llama";
  m.spec.family = "llama";
  m.spec.layout = "standard";
  m.weights.bytes = 3 * kGiB + 512 * kMiB;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  m.weights.verified = true;
  return m;
}

MlxcelEstimate tiny_estimate() {
  MlxcelEstimate e;
  e.inputs.max_tokens = 4096;
  e.inputs.batch = 1;
  e.inputs.kv_element = KvElement::kFp16;
  e.weights_bytes = 3 * kGiB + 512 * kMiB;  // 3,758,096,384
  e.kv.available = true;
  e.kv.total_bytes = 512 * kMiB;  // 131,072 x 4096 = 536,870,912
  e.kv.rounded_tokens = 4096;
  e.kv.unbounded_fp16_bytes_per_token = 131072;
  e.kv.unbounded_int8_bytes_per_token = 65536;
  e.kv.groups = {KvGroup{LayerKind::kFullAttention, 32, std::nullopt, 131072, 0, 512 * kMiB}};
  e.kv.detail = "standard: 32 full_attention";
  e.allocator_overhead_bytes = kGiB;
  e.headroom_factor_micros = 1'250'000;
  e.activation_bytes = 256 * kMiB;
  e.backend_inflight_bytes = 0;
  e.headroom_bytes = kGiB + 256 * kMiB;  // 1,342,177,280
  e.ram_available_bytes = 8 * kGiB;
  e.budget_bytes = 8 * kGiB;
  e.total_bytes = 5 * kGiB + 256 * kMiB;  // 5,637,144,576
  e.fits = true;
  return e;
}

const MemoryBudget kBudget{8 * kGiB, 8 * kGiB, BudgetSource::kExplicit};

TEST(MlxcelTextReport, TheWholeTableOfAnEstimateThatFits) {
  const std::string text = render_mlxcel_text(tiny_model(), tiny_estimate(), kBudget);
  EXPECT_EQ(text, fmt::format("memfit {} — models/tiny\n"
                              "model_type llama, family llama, layout standard\n"
                              "inputs: max_tokens 4096, batch 1, kv cache fp16\n"
                              "\n"
                              "  Weights                   3.50 GiB   safetensors_header\n"
                              "  KV cache                 512.0 MiB\n"
                              "    full_attention x32     512.0 MiB   131072 B/token\n"
                              "  Allocator overhead        1.00 GiB   factor 1.25\n"
                              "  Activation reserve       256.0 MiB\n"
                              "  Backend in-flight              0 B\n"
                              "  Runtime headroom          1.25 GiB   overhead + activation + in-flight\n"
                              "  ----------------------------------\n"
                              "  Total                     5.25 GiB\n"
                              "  Budget                    8.00 GiB   explicit\n"
                              "\n"
                              "KV detail: standard: 32 full_attention\n"
                              "KV per token: 131072 B fp16, 65536 B int8 (unbounded layers)\n"
                              "\n"
                              "FITS: 5.25 GiB of 8.00 GiB (2.75 GiB to spare)\n",
                              memfit_version()));
}

TEST(MlxcelTextReport, OverTheBudgetDoesNotFit) {
  // Budget 4 GiB: 5.25 - 4 = 1.25 GiB short.
  MlxcelEstimate e = tiny_estimate();
  e.budget_bytes = 4 * kGiB;
  e.fits = false;
  const MemoryBudget budget{4 * kGiB, 8 * kGiB, BudgetSource::kCgroup};
  const std::string text = render_mlxcel_text(tiny_model(), e, budget);
  EXPECT_THAT(text, HasSubstr("\n  Budget                    4.00 GiB   cgroup\n"));
  EXPECT_THAT(text, HasSubstr("\nDOES NOT FIT: 5.25 GiB needed, 4.00 GiB available (1.25 GiB short)\n"));
  EXPECT_THAT(text, Not(HasSubstr("FITS:")));
}

TEST(MlxcelTextReport, ZeroBudgetIsAllShort) {
  MlxcelEstimate e = tiny_estimate();
  e.budget_bytes = 0;
  e.fits = false;
  const MemoryBudget budget{0, 0, BudgetSource::kUnavailable};
  const std::string text = render_mlxcel_text(tiny_model(), e, budget);
  EXPECT_THAT(text, HasSubstr("\n  Budget                         0 B   unavailable\n"));
  EXPECT_THAT(text, HasSubstr("\nDOES NOT FIT: 5.25 GiB needed, 0 B available (5.25 GiB short)\n"));
}

TEST(MlxcelTextReport, HostShadowOverRamIsItsOwnVerdict) {
  // Windows + ROCm: the total fits the 8 GiB budget, but 6 GiB of host
  // shadow is more than 4 GiB of RAM.
  MlxcelEstimate e = tiny_estimate();
  e.host_shadow_bytes = 6 * kGiB;
  e.ram_available_bytes = 4 * kGiB;
  e.host_shadow_fits = false;
  e.fits = false;
  const std::string text = render_mlxcel_text(tiny_model(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n  Host shadow (RAM)         6.00 GiB   vs 4.00 GiB host RAM\n"));
  EXPECT_THAT(text, HasSubstr("\nDOES NOT FIT: host shadow 6.00 GiB exceeds 4.00 GiB host RAM\n"));
  // A host shadow that fits is a row, and the verdict is the budget's.
  e.ram_available_bytes = 16 * kGiB;
  e.host_shadow_fits = true;
  e.fits = true;
  const std::string fits = render_mlxcel_text(tiny_model(), e, kBudget);
  EXPECT_THAT(fits, HasSubstr("\n  Host shadow (RAM)         6.00 GiB   vs 16.00 GiB host RAM\n"));
  EXPECT_THAT(fits, HasSubstr("\nFITS: 5.25 GiB of 8.00 GiB (2.75 GiB to spare)\n"));
}

TEST(MlxcelTextReport, InputsLineCarriesBatchWidthAndWeightMode) {
  MlxcelEstimate e = tiny_estimate();
  e.inputs.batch = 4;
  e.inputs.kv_element = KvElement::kInt8;
  e.inputs.quant = "int4";
  const std::string text = render_mlxcel_text(tiny_model(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\ninputs: max_tokens 4096, batch 4, kv cache int8, quant int4\n\n"));
}

TEST(MlxcelTextReport, WindowedAndFixedGroupsSayWhatTheyHold) {
  // 24 sliding layers of 1024 tokens at 98,304 B/token: 96 MiB; 8 linear
  // attention layers of 1 MiB state each: 8 MiB fixed; a hybrid group with
  // both a per-token rate and a fixed state.
  MlxcelEstimate e = tiny_estimate();
  e.kv.groups = {
      KvGroup{LayerKind::kSlidingWindow, 24, 1024, 98304, 0, 96 * kMiB},
      KvGroup{LayerKind::kLinearAttention, 8, std::nullopt, 0, 8 * kMiB, 8 * kMiB},
      KvGroup{LayerKind::kSsm, 2, std::nullopt, 4096, 2 * kMiB, 18 * kMiB},
  };
  const std::string text = render_mlxcel_text(tiny_model(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n    sliding_window x24      96.0 MiB   window 1024 tokens; 98304 B/token\n"));
  EXPECT_THAT(text, HasSubstr("\n    linear_attention x8      8.0 MiB   8.0 MiB fixed per sequence\n"));
  EXPECT_THAT(text, HasSubstr("\n    ssm_state x2            18.0 MiB   4096 B/token; 2.0 MiB fixed per sequence\n"));
}

TEST(MlxcelTextReport, UnknownGeometryMarksTheKvUnavailable) {
  MlxcelEstimate e = tiny_estimate();
  e.kv = KvCacheEstimate{};
  e.kv.detail = "unavailable: no model geometry";
  const std::string text = render_mlxcel_text(tiny_model(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n  KV cache                       0 B   unavailable\n"));
  EXPECT_THAT(text, HasSubstr("\nKV detail: unavailable: no model geometry\n"));
  EXPECT_THAT(text, Not(HasSubstr("KV per token")));
}

TEST(MlxcelTextReport, UnverifiedWeightsAndTheirComponents) {
  Model m = tiny_model();
  m.weights.source = WeightsSource::kSafetensorsIndex;
  m.weights.verified = false;
  // A multimodal split: 3 GiB of language model, 512 MiB of vision tower;
  // the empty audio tower and projector are left out.
  m.weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)] = 3 * kGiB;
  m.weights.component_bytes[static_cast<int>(WeightComponent::kVisionTower)] = 512 * kMiB;
  const std::string text = render_mlxcel_text(m, tiny_estimate(), kBudget);
  EXPECT_THAT(text, HasSubstr("\n  Weights                   3.50 GiB   safetensors_index (not verified)\n"
                              "    language_model          3.00 GiB\n"
                              "    vision_tower           512.0 MiB\n"
                              "  KV cache "));
  EXPECT_THAT(text, Not(HasSubstr("audio_tower")));
  EXPECT_THAT(text, Not(HasSubstr("projector")));
  // A single component equal to the whole is not repeated.
  Model whole = tiny_model();
  whole.weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)] =
      3 * kGiB + 512 * kMiB;
  EXPECT_THAT(render_mlxcel_text(whole, tiny_estimate(), kBudget), Not(HasSubstr("language_model")));
}

TEST(MlxcelTextReport, FactorIsShownToTwoDecimals) {
  MlxcelEstimate e = tiny_estimate();
  e.headroom_factor_micros = 1'200'000;
  EXPECT_THAT(render_mlxcel_text(tiny_model(), e, kBudget), HasSubstr("   factor 1.20\n"));
  e.headroom_factor_micros = 1'000'000;  // overhead off
  EXPECT_THAT(render_mlxcel_text(tiny_model(), e, kBudget), HasSubstr("   factor 1.00\n"));
}

TEST(MlxcelTextReport, DecodeWorkspaceRowWhenTheFamilyIsPaged) {
  // 2 x 129 x 128 x 129 x 4 = 17,040,384 B = 16.25 MiB, shown 16.3 MiB.
  MlxcelEstimate e = tiny_estimate();
  e.per_slot_overhead_bytes = 17040384;
  EXPECT_THAT(render_mlxcel_text(tiny_model(), e, kBudget),
              HasSubstr("\n  Decode workspace/slot     16.3 MiB   paged KV budget only\n"
                        "  ----------------------------------\n"));
}

TEST(MlxcelTextReport, QuantizationMoeAndAssumptionLines) {
  Model m = tiny_model();
  m.spec.quantization.method = "mlx_affine";
  m.spec.quantization.bits = 4;
  m.spec.quantization.group_size = 64;
  m.spec.moe.experts = 128;
  m.spec.moe.experts_per_token = 8;
  m.spec.moe.shared_experts = 1;
  m.spec.assumptions = {"rope_theta 10000 (default)", "head_dim 128 (hidden / heads)"};
  const std::string text = render_mlxcel_text(m, tiny_estimate(), kBudget);
  EXPECT_THAT(text, HasSubstr("\nQuantization: mlx_affine, 4 bits, group 64 (header bytes are the truth)\n"
                              "MoE: 128 experts, 8 per token, 1 shared (all experts are resident)\n"
                              "assumed: rope_theta 10000 (default)\n"
                              "assumed: head_dim 128 (hidden / heads)\n"
                              "\nFITS:"));
  // FP8 with a block and no bits: only what is stated.
  m.spec.quantization = QuantizationInfo{};
  m.spec.quantization.method = "fp8";
  m.spec.quantization.block_size = {128, 128};
  EXPECT_THAT(render_mlxcel_text(m, tiny_estimate(), kBudget),
              HasSubstr("\nQuantization: fp8, block 128x128 (header bytes are the truth)\n"));
  // No method, no line; no experts, no line.
  EXPECT_THAT(render_mlxcel_text(tiny_model(), tiny_estimate(), kBudget),
              Not(HasSubstr("Quantization:")));
  EXPECT_THAT(render_mlxcel_text(tiny_model(), tiny_estimate(), kBudget), Not(HasSubstr("MoE:")));
}

TEST(MlxcelTextReport, EstimatorsOwnAnswerForQwen3_14B) {
  // estimate_test.cc's breakdown at 8192 tokens, batch 1, fp16:
  //   weights 8,307,783,680 = 7.737 GiB -> 7.74 GiB
  //   KV 40 x 2 x 8 x 128 x 2 B x 8192 = 1,342,177,280 = 1.25 GiB
  //   allocator 1,929,992,192 = 1.797 GiB -> 1.80 GiB (factor 1.20)
  //   activation 184,853,248 = 176.29 MiB -> 176.3 MiB
  //   headroom 2,114,845,440 = 1.970 GiB -> 1.97 GiB
  //   total 11,764,806,400 = 10.957 GiB -> 10.96 GiB
  //   16 GiB - total = 5,415,062,784 = 5.043 GiB -> 5.04 GiB to spare
  //   decode workspace (qwen3 is paged) 17,040,384 -> 16.3 MiB
  Model m = testing::corpus_model("mlx/Qwen3-14B-MLX-4bit", 8307783680ull);
  const MemoryBudget budget{16 * kGiB, 16 * kGiB, BudgetSource::kExplicit};
  Result<MlxcelEstimate> e = estimate_mlxcel(m, MlxcelInputs{}, MlxcelSettings{}, Platform{}, budget);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::string text = render_mlxcel_text(m, *e, budget);
  EXPECT_THAT(text, HasSubstr("\n  Weights                   7.74 GiB   safetensors_index\n"));
  EXPECT_THAT(text, HasSubstr("\n  KV cache                  1.25 GiB\n"));
  EXPECT_THAT(text, HasSubstr("\n  Allocator overhead        1.80 GiB   factor 1.20\n"));
  EXPECT_THAT(text, HasSubstr("\n  Activation reserve       176.3 MiB\n"));
  EXPECT_THAT(text, HasSubstr("\n  Runtime headroom          1.97 GiB   overhead + activation + in-flight\n"));
  EXPECT_THAT(text, HasSubstr("\n  Decode workspace/slot     16.3 MiB   paged KV budget only\n"));
  EXPECT_THAT(text, HasSubstr("\n  Total                    10.96 GiB\n"));
  EXPECT_THAT(text, HasSubstr("\nKV per token: 163840 B fp16, 81920 B int8 (unbounded layers)\n"));
  EXPECT_THAT(text, HasSubstr("\nFITS: 10.96 GiB of 16.00 GiB (5.04 GiB to spare)\n"));
  // 10 GiB = 10,737,418,240 B: 1,027,388,160 B = 979.79 MiB -> 979.8 MiB short.
  const MemoryBudget small{10 * kGiB, 10 * kGiB, BudgetSource::kExplicit};
  Result<MlxcelEstimate> over = estimate_mlxcel(m, MlxcelInputs{}, MlxcelSettings{}, Platform{}, small);
  ASSERT_TRUE(over.ok());
  EXPECT_THAT(render_mlxcel_text(m, *over, small),
              HasSubstr("\nDOES NOT FIT: 10.96 GiB needed, 10.00 GiB available (979.8 MiB short)\n"));
}

}  // namespace
}  // namespace memfit
