// The mlx-lm profile's fit (src/engines/mlxlm/solver.h, fit_command.cc):
// the largest --max-tokens or --batch-size whose peak fits, and the KV per
// token its report prints (docs/engine-mlxlm.md). On Llama-3.2-3B's config
// with 1000 bytes of weights:
//   28 layers x 2 x 8 KV heads x 128 x 2 B = 114,688 B per token.
#include <gtest/gtest.h>

#include <string>

#include "engines/mlxlm/solver.h"
#include "memfit/engine.h"
#include "memfit/mlxlm.h"
#include "support/command_hooks.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

const std::string kLlama = "llama3/Llama-3.2-3B-Instruct";

Model llama() { return testing::corpus_model(kLlama, 1000, WeightsSource::kSafetensorsHeader); }

MlxLmSettings workload_fit(uint64_t prompt, uint64_t generated, uint64_t batch = 1) {
  MlxLmSettings s;
  s.prompt_tokens = prompt;
  s.max_tokens = generated;
  s.batch = batch;
  return s;
}

uint64_t peak(const MlxLmSettings& s) {
  Result<MlxLmEstimate> e = estimate_mlxlm(llama(), s, MemoryBudget{1ull << 40, 1ull << 40,
                                                                    BudgetSource::kExplicit});
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? e->total_bytes : 0;
}

MemoryBudget budget(uint64_t bytes) { return MemoryBudget{bytes, bytes, BudgetSource::kExplicit}; }

TEST(MlxLmKvPerToken, IsEveryUnboundedLayersStoredToken) {
  Result<MlxLmEstimate> e = estimate_mlxlm(llama(), workload_fit(2048, 128), budget(1ull << 40));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->kv_bytes_per_token, 28u * 4096);  // 114,688
  // 4-bit, group 64: a layer's 2,048 values per token pack into 1,024 B,
  // plus 32 groups x (scale + bias) x 2 B = 128 B: 1,152 B x 28 = 32,256.
  MlxLmSettings q = workload_fit(2048, 128);
  q.kv_bits = 4;
  q.kv_group_size = 64;
  e = estimate_mlxlm(llama(), q, budget(1ull << 40));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->kv_bytes_per_token, 32256u);
}

// The cache grows in 256-token steps and the decode step's peak holds the
// grown cache: a budget of the peak at 2,048 + 30,000 = 32,048 tokens
// (32,256 slots, 126 x 256) holds every run up to 32,256 tokens, so the
// answer is 32,256 - 2,048 = 30,208; one more token needs 32,512 slots.
TEST(MlxLmSolver, MaxTokensEndsTheCachesLastStep) {
  const uint64_t at_30000 = peak(workload_fit(2048, 30000));
  Result<MlxLmSolution> s =
      solve_mlxlm(MlxLmSolveFor::kMaxTokens, llama(), workload_fit(2048, 1), budget(at_30000));
  ASSERT_TRUE(s.ok()) << s.error().message();
  ASSERT_TRUE(s->value.has_value());
  EXPECT_EQ(*s->value, 30208u);
  EXPECT_FALSE(s->capped);
  EXPECT_EQ(s->estimate->kv_capacity_tokens, 32256u);
  EXPECT_GT(peak(workload_fit(2048, 30209)), at_30000);
}

// The budget of 3 sequences: 3 fit, 4 need more. Priced under mlx-lm
// 0.26.4's rule (the whole last chunk's logits, which grow with the batch).
TEST(MlxLmSolver, BatchIsTheLargestThatFits) {
  MlxLmSettings q = workload_fit(512, 1024);
  q.mlx_lm_release = MlxRelease{0, 26, 4};
  MlxLmSettings three = q;
  three.batch = 3;
  const uint64_t at_3 = peak(three);
  Result<MlxLmSolution> s = solve_mlxlm(MlxLmSolveFor::kBatch, llama(), q, budget(at_3));
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(s->value, std::optional<uint64_t>(3));
}

// Under the current release's one row of logits the peak is not monotonic
// in the batch: for this workload batch 1 peaks at 1,156,580,328 B, batch 2
// at 1,184,891,880, batch 3 at 1,034,945,512 and batch 4 at 1,304,429,544
// (a larger batch's outputs commit MLX's buffers sooner). With batch 3's
// peak as the budget, batches 1, 2 and 4 do not fit and 3 does: the answer
// is 3, not "nothing fits" (a search from batch 1 would stop there).
TEST(MlxLmSolver, BatchFitsWhereBatchOneDoesNot) {
  const MlxLmSettings q = workload_fit(512, 1024);
  MlxLmSettings one = q, two = q, three = q, four = q;
  two.batch = 2;
  three.batch = 3;
  four.batch = 4;
  ASSERT_GT(peak(one), peak(three));
  ASSERT_GT(peak(two), peak(three));
  ASSERT_GT(peak(four), peak(three));
  Result<MlxLmSolution> s = solve_mlxlm(MlxLmSolveFor::kBatch, llama(), q, budget(peak(three)));
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(s->value, std::optional<uint64_t>(3));
  ASSERT_TRUE(s->estimate.has_value());
  EXPECT_EQ(s->estimate->settings.batch, 3u);
}

// 1000 bytes of weights in a 999-byte budget: not even one token fits.
TEST(MlxLmSolver, NothingFitsUnderTheWeights) {
  Result<MlxLmSolution> s =
      solve_mlxlm(MlxLmSolveFor::kMaxTokens, llama(), workload_fit(512, 1), budget(999));
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_FALSE(s->value.has_value());
  ASSERT_TRUE(s->estimate.has_value());
  EXPECT_FALSE(s->estimate->fits);
}

TEST(MlxLmSolver, OtherEnginesSolvesAreNamed) {
  EXPECT_EQ(parse_mlxlm_solve("max-model-len").error().message(),
            "solve: max-model-len is a vllm solve; mlx-lm solves max-tokens, prompt-tokens or batch");
  EXPECT_EQ(parse_mlxlm_solve("gpu-layers").error().message(),
            "solve: gpu-layers is a llamacpp solve; mlx-lm solves max-tokens, prompt-tokens or batch");
}

// The hook, as memfit fit asks it: a 16 GiB budget (the config-only
// model's analytical 16-bit weights are above 4 GiB), the solved field
// refused when given.
Result<CommandAnswer> fit(nlohmann::json options, std::optional<uint64_t> max_tokens = {}) {
  EstimateRequest r;
  r.model = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/" + kLlama;
  r.engine = "mlx-lm";
  r.memory_limit_bytes = 16ull << 30;
  r.max_tokens = max_tokens;
  return testing::ask_hook(r, EngineCommand::kFit, options);
}

TEST(MlxLmFitHook, AnswersMaxTokensAndBatch) {
  ASSERT_TRUE(EngineRegistry::instance().find("mlx-lm")->supports(EngineCommand::kFit));
  Result<CommandAnswer> a = fit(nlohmann::json::object());
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["solve"], "max-tokens");
  EXPECT_TRUE(a->json["value"].is_number());
  EXPECT_EQ(a->text.rfind("Largest max-tokens that fits 16.00 GiB (explicit): ", 0), 0u) << a->text;
  Result<CommandAnswer> b = fit({{"solve", "batch"}});
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->json["solve"], "batch");
  EXPECT_EQ(fit(nlohmann::json::object(), 100).error().message(),
            "max_tokens: is what solving max-tokens finds: leave it out");
  EXPECT_EQ(fit({{"ctx_size", 4096}}).error().message(),
            "ctx_size: is a llama.cpp setting: give engine llamacpp");
}

}  // namespace
}  // namespace memfit
