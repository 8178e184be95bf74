// The vLLM validation table (docs/validation-engines.md) recomputed from
// tests/data/calibration/vllm-published-runs.tsv: memfit's vllm figure for
// every figure vLLM printed in a published run, and the mlxcel profile's
// (docs/engine-mlxcel.md) where it has one. A rule that moves a figure
// fails here; the doc's table is reprinted from the test's output.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "memfit/mlxcel.h"
#include "memfit/vllm.h"
#include "engines/vllm/parts.h"
#include "support/corpus.h"
#include "support/tsv.h"

namespace memfit {
namespace {

struct Row {
  std::string config, weights, tp, gpu_total, gpu, util, kv, max_model_len, seqs, batched, dtype, spec,
      version;
  std::string figure, printed, memfit, mlxcel, source;
};

std::vector<Row> read_rows() {
  std::vector<Row> rows;
  for (const std::vector<std::string>& f :
       testing::read_tsv("calibration/vllm-published-runs.tsv", 18)) {
    rows.push_back(Row{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11],
                       f[12], f[13], f[14], f[15], f[16], f[17]});
  }
  return rows;
}

Model model_of(const Row& r) {
  Model m;
  m.has_config = true;
  if (r.config.rfind("calibration/", 0) == 0) {
    Result<ModelSpec> spec = parse_model_config(testing::read_test_data(r.config + "/config.json"));
    EXPECT_TRUE(spec.ok()) << r.config;
    if (spec.ok()) m.spec = *spec;
  } else {
    m.spec = testing::corpus_spec(r.config);
  }
  if (r.weights == "-") {
    m.weights.bytes = m.spec.analytical_weights.bytes;
    m.weights.source = WeightsSource::kAnalyticalConfig;
  } else {
    m.weights.bytes = std::stoull(r.weights);
    m.weights.source = WeightsSource::kSafetensorsIndex;
  }
  return m;
}

constexpr double kGiBCalibration = 1073741824.0;

// The row's vLLM settings; its version, when it names one, must parse.
Result<VllmSettings> settings_of(const Row& r) {
  VllmSettings s;
  s.tensor_parallel = std::stoull(r.tp);
  if (r.gpu_total != "-") s.gpu_memory_total = std::stoull(r.gpu_total);
  if (r.gpu != "-") s.gpu_name = r.gpu;
  s.gpu_memory_utilization = std::stod(r.util);
  if (r.kv != "-") s.kv_cache_memory = std::stoull(r.kv);
  if (r.kv == "-" && r.gpu_total == "-") s.kv_cache_memory = 0;  // a weights-only row
  s.max_model_len = std::stoull(r.max_model_len);
  s.max_num_seqs = std::stoull(r.seqs);
  s.max_num_batched_tokens = std::stoull(r.batched);
  s.kv_cache_fp8 = r.dtype == "fp8";
  s.num_speculative_tokens = std::stoull(r.spec);
  if (r.version != "-") {
    Result<VllmRelease> release = parse_vllm_version(r.version);
    if (!release) return release.error();
    s.release = *release;
  }
  return s;
}

// memfit's figure for the row, as the table prints it, and its ratio to
// the printed one.
struct Recomputed {
  std::string figure;
  double ratio = 0;
};

Recomputed vllm_figure(const Row& r, const VllmEstimate& e) {
  const double printed = std::stod(r.printed);
  if (r.figure == "weights") {
    return {fmt::format("{:.4f}", e.weights.bytes / kGiBCalibration), e.weights.bytes / kGiBCalibration / printed};
  }
  if (r.figure == "blocks") return {fmt::format("{}", e.num_blocks), e.num_blocks / printed};
  if (r.figure == "kv") {  // "Available KV cache memory", GiB
    return {fmt::format("{:.2f}", e.kv_cache_bytes / kGiBCalibration), e.kv_cache_bytes / kGiBCalibration / printed};
  }
  if (r.figure == "tokens") return {fmt::format("{}", e.kv_tokens), e.kv_tokens / printed};
  if (r.figure == "tokens-0.21") {  // as vLLM 0.21 and later print them (vllm_tokens_form)
    const uint64_t tokens = vllm_kv_tokens(e.layout, e.num_blocks, e.settings.max_model_len,
                                           VllmTokensForm::kConcurrencyTimesLen);
    return {fmt::format("{}", tokens), tokens / printed};
  }
  return {fmt::format("{:.2f}", e.max_concurrency), e.max_concurrency / printed};
}

// The row as docs/validation-engines.md prints it.
std::string table_row(const Row& r, const Recomputed& vllm, const std::string& mlxcel,
                      double mlxcel_ratio) {
  return fmt::format(
      "| {} | TP {}, {} | {} | {} | {} | {:.4f} | {} | {} | {} |", r.config, r.tp,
      (r.kv != "-"          ? fmt::format("{:.2f} GiB KV given", std::stod(r.kv) / kGiBCalibration)
       : r.gpu_total != "-" ? fmt::format("{} x {:.2f} GiB", r.util, std::stod(r.gpu_total) / kGiBCalibration)
                            : std::string("weights only")) +
          (r.gpu == "-" ? std::string() : ", " + r.gpu) +
          (r.version == "-" ? std::string() : fmt::format(", vLLM {} accounting", r.version)),
      r.figure, r.printed, vllm.figure, vllm.ratio, mlxcel,
      mlxcel == "-" ? std::string("-") : fmt::format("{:.4f}", mlxcel_ratio), r.source);
}

// The targets: weights within 1 %, KV within 10 % when modelled.
// A ROCm row (an AMD GPU named) is priced with ROCm's load figure (the
// device's used memory, not PyTorch's allocated bytes: vllm/rocm.h).
void expect_within_target(const Row& r, double ratio, const std::string& row) {
  if (r.figure == "weights") {
    EXPECT_NEAR(ratio, 1.0, 0.01) << row;
  } else if (r.kv == "-") {
    if (r.version == "0.7") {
      // Priced by v0.7's own accounting (--vllm-version 0.7): 12.7 % over,
      // still outside the target. The rest is memory v0.7 counted from the
      // device that no rule read from its source gives (the allocator's
      // reserved-but-unallocated bytes, the real CUDA context:
      // docs/validation-engines.md). Held under 15 % so that a change
      // which moves it shows.
      EXPECT_GT(ratio, 1.0) << row;
      EXPECT_LT(ratio, 1.15) << row;
    } else {
      EXPECT_NEAR(ratio, 1.0, 0.10) << row;
    }
  } else if (r.figure != "weights") {
    EXPECT_NEAR(ratio, 1.0, 0.005) << row;  // exact up to the printed rounding
  }
}

TEST(VllmCalibration, EveryPublishedFigureRecomputes) {
  const std::vector<Row> rows = read_rows();
  ASSERT_EQ(rows.size(), 27u);
  const MemoryBudget budget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};
  for (const Row& r : rows) {
    const Model m = model_of(r);
    Result<VllmSettings> s = settings_of(r);
    ASSERT_TRUE(s.ok()) << r.version;
    Result<VllmEstimate> e = estimate_vllm(m, {}, *s, budget);
    ASSERT_TRUE(e.ok()) << e.error().message();
    const Recomputed vllm = vllm_figure(r, *e);
    std::string mlxcel = "-";
    double mlxcel_ratio = 0;
    if (r.figure == "weights") {
      // The mlxcel profile's weights term: the whole checkpoint, evenly per rank.
      Result<MlxcelEstimate> whole = estimate_mlxcel(m, MlxcelInputs{}, MlxcelSettings{},
                                                     Platform{HostOs::kLinux, Backend::kCuda, 0}, budget);
      ASSERT_TRUE(whole.ok());
      const double per_rank = double(whole->weights_bytes) / double(s->tensor_parallel);
      mlxcel = fmt::format("{:.4f}", per_rank / kGiBCalibration);
      mlxcel_ratio = per_rank / kGiBCalibration / std::stod(r.printed);
    }
    const std::string row = table_row(r, vllm, mlxcel, mlxcel_ratio);
    std::cout << row << "\n";
    EXPECT_EQ(vllm.figure, r.memfit) << row;
    EXPECT_EQ(mlxcel, r.mlxcel) << row;
    expect_within_target(r, vllm.ratio, row);
  }
}

}  // namespace
}  // namespace memfit
