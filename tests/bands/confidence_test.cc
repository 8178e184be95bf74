// --confidence (docs/validation-logs.md, "Error bands"): the margin of a
// synthetic band table added to the total compared against the budget, so
// the verdict and what fit solves change; worked by hand.
#include <gtest/gtest.h>

#include "bands/error_bands.h"
#include "engines/mlxlm/solver.h"
#include "memfit/llamacpp.h"
#include "memfit/mlxlm.h"
#include "memfit/request.h"
#include "memfit/request_field.h"
#include "support/corpus.h"

namespace memfit {
namespace {

// engine backend figure logs low high margin_90 margin_95 margin_99
ErrorBandTable synthetic_table() {
  Result<ErrorBandTable> t = parse_error_bands(
      "mlx-lm\tMetal\tpeak\t6\t0.9500\t1.0300\t0.0400\t0.0500\t0.0526\n"
      "llamacpp\tCPU\tcompute\t5\t0.9800\t1.0100\t0.0200\t0.0250\t0.0300\n"
      "llamacpp\tCPU\tmodel\t3\t0.9000\t1.0000\t0.1000\t0.1111\t0.1111\n");
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : ErrorBandTable{};
}

MemoryBudget budget(uint64_t bytes) { return MemoryBudget{bytes, bytes, BudgetSource::kExplicit}; }

Model llama32_3b() {
  return testing::corpus_model("llama3/Llama-3.2-3B-Instruct", 1000, WeightsSource::kSafetensorsHeader);
}

// Under mlx-lm 0.26.4's rule (the last chunk's logits over all its tokens),
// as estimate_test.cc's DenseGqaLlama32_3B works it.
MlxLmSettings mlxlm_workload(uint64_t confidence) {
  MlxLmSettings s;
  s.mlx_lm_release = MlxRelease{0, 26, 4};
  s.prompt_tokens = 2048;
  s.max_tokens = 128;
  s.confidence = confidence;
  return s;
}

// Llama-3.2-3B, 2,048 prompt tokens, 128 generated: peak 1,737,491,432 B
// (tests/engines/mlxlm/estimate_test.cc, DenseGqaLlama32_3B). At 95 % the
// margin is 0.05 of it: 1,737,491,432 x 500 / 10,000 = 86,874,571.6,
// rounded up: 86,874,572 B, total 1,824,366,004 B. A budget of
// 1,800,000,000 B holds the peak, not the total.
TEST(Confidence, MlxLmAddsThePeaksMarginToTheVerdict) {
  ScopedErrorBandTable table(synthetic_table());
  Result<MlxLmEstimate> plain = estimate_mlxlm(llama32_3b(), mlxlm_workload(0), budget(1800000000));
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(plain->peak_bytes, 1737491432u);
  EXPECT_EQ(plain->total_bytes, 1737491432u);
  EXPECT_TRUE(plain->fits);
  ASSERT_EQ(plain->bands.figures.size(), 1u);
  EXPECT_EQ(plain->bands.figures[0].logs, 6u);

  Result<MlxLmEstimate> sure = estimate_mlxlm(llama32_3b(), mlxlm_workload(95), budget(1800000000));
  ASSERT_TRUE(sure.ok()) << sure.error().message();
  EXPECT_EQ(sure->peak_bytes, 1737491432u);
  EXPECT_EQ(sure->bands.margin_bytes, 86874572u);
  EXPECT_EQ(sure->total_bytes, 1824366004u);
  EXPECT_FALSE(sure->fits);
  // 99 %: 0.0526 x 1,737,491,432 = 91,392,049.3..., rounded up: 91,392,050.
  Result<MlxLmEstimate> surer = estimate_mlxlm(llama32_3b(), mlxlm_workload(99), budget(1800000000));
  ASSERT_TRUE(surer.ok());
  EXPECT_EQ(surer->bands.margin_bytes, 91392050u);
}

// fit solves against the same total: a budget one byte under 1,824,366,004
// holds one sequence without the margin and none with it.
TEST(Confidence, MlxLmFitSolvesAgainstTheTotalWithTheMargin) {
  ScopedErrorBandTable table(synthetic_table());
  Result<MlxLmSolution> plain =
      solve_mlxlm(MlxLmSolveFor::kBatch, llama32_3b(), mlxlm_workload(0), budget(1824366003));
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(plain->value, std::optional<uint64_t>(1));
  Result<MlxLmSolution> sure =
      solve_mlxlm(MlxLmSolveFor::kBatch, llama32_3b(), mlxlm_workload(95), budget(1824366003));
  ASSERT_TRUE(sure.ok()) << sure.error().message();
  EXPECT_FALSE(sure->value.has_value());
  Result<MlxLmSolution> enough =
      solve_mlxlm(MlxLmSolveFor::kBatch, llama32_3b(), mlxlm_workload(95), budget(1824366004));
  ASSERT_TRUE(enough.ok());
  EXPECT_EQ(enough->value, std::optional<uint64_t>(1));
}

// The doc's synthetic llama (tests/engines/llamacpp/estimate_test.cc) at 512
// cells on the CPU: model 1,000 B (a header's: exact, no band), KV 4 layers x 64
// x 2 B x 512 cells x 2 = 524,288, output 4 x 32,000 = 128,000, compute
// 67,108,864 (modelled): total 67,762,152. At 95 % compute adds
// 67,108,864 x 250 / 10,000 = 1,677,721.6, rounded up 1,677,722. Total
// 69,439,874: 68,000,000 B holds it only without.
TEST(Confidence, LlamaCppAddsTheComputeMarginOnItsDevice) {
  ScopedErrorBandTable table(synthetic_table());
  Model m;
  m.has_config = true;
  m.spec.geometry = {4, 256, 8, 2, 32, 512, 32000};
  m.spec.max_position_tokens = 4096;
  m.spec.layers = std::vector<LayerCache>(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0});
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  LlamaCppSettings s;
  s.ctx_size = 512;
  s.repack = RepackCpu::kNone;
  Result<LlamaCppEstimate> plain = estimate_llamacpp(m, s, budget(68000000));
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_FALSE(plain->compute_replayed);
  EXPECT_EQ(plain->total_bytes, 67762152u);
  EXPECT_TRUE(plain->fits);

  s.confidence = 95;
  Result<LlamaCppEstimate> sure = estimate_llamacpp(m, s, budget(68000000));
  ASSERT_TRUE(sure.ok()) << sure.error().message();
  ASSERT_EQ(sure->bands.figures.size(), 1u);  // compute: the header's weights are exact
  EXPECT_EQ(sure->bands.figures[0].figure, "compute");
  EXPECT_EQ(sure->bands.figures[0].margin_bytes, 1677722u);
  EXPECT_EQ(sure->total_bytes, 69439874u);
  // A CPU run's one device, the host, holds the whole compute buffer.
  uint64_t on_cpu = 0;
  for (const LlamaCppDeviceUsage& d : sure->placement.devices) {
    if (d.device == "cpu") on_cpu += d.confidence_bytes;
  }
  EXPECT_EQ(on_cpu, 1677722u);
  EXPECT_FALSE(sure->fits);
}

TEST(Confidence, TheFieldTakesTheTablesLevelsOnly) {
  const RequestField* field = find_request_field("confidence");
  ASSERT_NE(field, nullptr);
  EstimateRequest r;
  EXPECT_TRUE(apply_request_field(*field, r, "95").ok());
  EXPECT_EQ(r.confidence, std::optional<uint64_t>(95));
  Status bad = apply_request_field(*field, r, "80");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "confidence: '80': expected 90, 95 or 99 (per cent of the corpus's runs the margin covers)");
}

}  // namespace
}  // namespace memfit
