#include "support/llamacpp_replay.h"

#include <gtest/gtest.h>

#include <utility>

namespace memfit {

LlamaCppEstimate run_llamacpp(Model model, const LlamaCppSettings& settings) {
  const MemoryBudget budget{64ull << 30, 64ull << 30, BudgetSource::kExplicit};
  model.has_config = true;
  model.weights.bytes = 1000;
  model.weights.source = WeightsSource::kSafetensorsHeader;
  Result<LlamaCppEstimate> e = estimate_llamacpp(model, settings, budget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

LlamaCppEstimate run_llamacpp(ModelSpec spec, const LlamaCppSettings& settings) {
  Model m;
  m.spec = std::move(spec);
  return run_llamacpp(std::move(m), settings);
}

LlamaCppSettings llamacpp_settings(uint64_t ctx, uint64_t parallel, uint64_t ubatch, FlashAttn fa,
                                   GgmlType k, std::optional<GgmlType> v) {
  LlamaCppSettings s;
  s.ctx_size = ctx;
  s.parallel = parallel;
  s.batch_size = s.ubatch_size = ubatch;
  s.flash_attn = fa;
  s.cache_type_k = k;
  s.cache_type_v = v.value_or(k);
  return s;
}

}  // namespace memfit
