// The mlx-lm validation table (docs/validation-engines.md) recomputed
// from tests/data/calibration/mlxlm-published-runs.tsv.
#include <gtest/gtest.h>

#include <sstream>

#include "memfit/mlxlm.h"
#include "support/corpus.h"

namespace memfit {
namespace {

TEST(MlxLmCalibration, PrintsTheTable) {
  std::istringstream in(testing::read_test_data("calibration/mlxlm-published-runs.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string config, src;
    uint64_t weights, p, g, b, step, fused, printed;
    f >> config >> weights >> p >> g >> b >> step >> fused >> printed;
    Model m;
    m.has_config = true;
    m.spec = testing::corpus_spec(config);
    m.weights.bytes = weights;
    m.weights.source = WeightsSource::kSafetensorsHeader;
    MlxLmSettings s;
    s.prompt_tokens = p; s.max_tokens = g; s.batch = b; s.prefill_step_size = step; s.fused_sdpa = fused != 0;
    Result<MlxLmEstimate> e = estimate_mlxlm(m, s, MemoryBudget{});
    ASSERT_TRUE(e.ok()) << e.error().message();
    auto ph = [](const MlxLmPhaseBytes& x) {
      return ::testing::Message() << " kv " << x.kv_bytes << " att " << x.attention_bytes << " mlp " << x.mlp_bytes
                                  << " logits " << x.logits_bytes << " regrow " << x.regrow_bytes << " total " << x.total_bytes;
    };
    std::cout << config << " total " << e->total_bytes << " ratio " << double(e->total_bytes) / printed
              << " phase " << to_string(e->peak_phase) << "\n  chunk" << ph(e->prefill_chunk) << "\n  last" << ph(e->last_chunk)
              << "\n  decode" << ph(e->decode) << "\n";
  }
}

}  // namespace
}  // namespace memfit
