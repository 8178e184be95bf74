// The mlx-lm and MLX releases a request names (--mlx-lm-version,
// --mlx-version) and the Apple chip (--mlx-chip): docs/engine-mlxlm.md,
// "Releases". The same run priced on both sides of mlx-lm #406, worked by
// hand; the ranges refused with words.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"
#include "memfit/mlxlm.h"
#include "engines/mlxlm/release_defaults.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

const MemoryBudget kBudgetReleases{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

// Llama 3.2 3B, 2048 prompt tokens in one chunk, 128 generated, weights a
// round 1000 bytes (as estimate_test.cc's DenseGqaLlama32_3B).
MlxLmEstimate llama32_3b(std::optional<MlxRelease> release, bool never_commits,
                         uint64_t prompt_tokens = 2048, uint64_t prefill_step_size = 2048) {
  MlxLmSettings s;
  s.prompt_tokens = prompt_tokens;
  s.prefill_step_size = prefill_step_size;
  s.max_tokens = 128;
  s.mlx_lm_release = release;
  // One buffer that never commits: the transient is the sum of every op's
  // output in the pass (estimate_test.cc, never_commits).
  if (never_commits) s.buffers = MlxBufferLimits{100000, 1000000, true, 1};
  const Model m = testing::corpus_model("llama3/Llama-3.2-3B-Instruct", 1000,
                                        WeightsSource::kSafetensorsHeader);
  Result<MlxLmEstimate> e = estimate_mlxlm(m, s, kBudgetReleases);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : MlxLmEstimate{};
}

TEST(MlxLmReleases, LogitsOfTheLastChunkBeforeAndSince406) {
  const MlxLmEstimate before = llama32_3b(MlxRelease{0, 26, 4}, false);
  const MlxLmEstimate since = llama32_3b(MlxRelease{0, 27, 0}, false);
  const MlxLmEstimate unsaid = llama32_3b(std::nullopt, false);
  // Before 0.27.0 the last chunk's 2048 tokens all go through the LM
  // head: 2048 x 128,256 vocab x 2 B = 525,336,576. Since, the final
  // token alone: 128,256 x 2 = 256,512.
  EXPECT_EQ(before.last_chunk.logits_bytes, 525'336'576u);
  EXPECT_EQ(since.last_chunk.logits_bytes, 256'512u);
  // No release given prices the current release, 0.31.3: one row.
  EXPECT_EQ(unsaid.last_chunk.logits_bytes, 256'512u);
  EXPECT_EQ(unsaid.total_bytes, since.total_bytes);
  // The cache ends at the same 2048 slots either way (28 x 2048 x 4096 =
  // 234,881,024), but since 0.27.0 the widest pass is the chunk's first
  // 2047 tokens (the final one runs alone): the MLP 2047 x 8192 x 2 x 3 =
  // 100,614,144 where before 2048 x 8192 x 6 = 100,663,296, and the fused
  // attention's float32 output 24 heads x 2047 x 128 x 4 = 25,153,536
  // where before 24 x 2048 x 128 x 4 = 25,165,824.
  EXPECT_EQ(since.last_chunk.kv_bytes, 234'881'024u);
  EXPECT_EQ(before.last_chunk.kv_bytes, 234'881'024u);
  EXPECT_EQ(since.last_chunk.mlp_bytes, 100'614'144u);
  EXPECT_EQ(before.last_chunk.mlp_bytes, 100'663'296u);
  EXPECT_EQ(since.last_chunk.attention_bytes, 25'153'536u);
  EXPECT_EQ(before.last_chunk.attention_bytes, 25'165'824u);
  // Decode computes one row under every release.
  EXPECT_EQ(since.decode.logits_bytes, 256'512u);
  EXPECT_EQ(since.decode.total_bytes, before.decode.total_bytes);
  // Before: the peak is the last chunk, 1000 + 234,881,024 + 1,502,609,408
  // = 1,737,491,432 (estimate_test.cc, DenseGqaLlama32_3B).
  EXPECT_EQ(before.total_bytes, 1'737'491'432u);
}

TEST(MlxLmReleases, TheLogitsRowsAreAllTheTransientMovesWhenNothingCommits) {
  // Passes of the same 2048 tokens: 0.26.4 runs a 2048-token prompt in one;
  // 0.27.0 runs a 2049-token prompt (one chunk of up to 4096) as 2048
  // tokens, then the final token alone.
  const MlxLmEstimate before = llama32_3b(MlxRelease{0, 26, 4}, true);
  const MlxLmEstimate since = llama32_3b(MlxRelease{0, 27, 0}, true, 2049, 4096);
  // Every op's output stays: the last chunk's transient differs by the
  // logits alone, 525,336,576 - 256,512 = 525,080,064.
  EXPECT_EQ(before.last_chunk.transient_bytes - since.last_chunk.transient_bytes, 525'080'064u);
}

// mlx-lm #406's loop (generate_step, read at v0.27.0 and v0.28.3): `while
// total - processed > 1` runs min(prefill_step_size, remaining - 1)
// tokens, then `_step` the one left.
TEST(MlxLmReleases, LastChunkPassTokens) {
  EXPECT_EQ(mlxlm_last_chunk_pass_tokens(std::nullopt, 300), 299u);  // the current release's
  EXPECT_EQ(mlxlm_last_chunk_pass_tokens(MlxRelease{0, 27, 0}, 300), 299u);
  EXPECT_EQ(mlxlm_last_chunk_pass_tokens(MlxRelease{0, 27, 0}, 2), 1u);
  EXPECT_EQ(mlxlm_last_chunk_pass_tokens(MlxRelease{0, 27, 0}, 1), 1u);  // the final token alone
  EXPECT_EQ(mlxlm_last_chunk_pass_tokens(MlxRelease{0, 26, 4}, 300), 300u);
  EXPECT_EQ(mlxlm_last_chunk_pass_tokens(MlxRelease{0, 26, 4}, 1), 1u);
}

// Qwen3-0.6B bf16 (the corpus config, the rcrlm log's model), 13 prompt
// tokens and 256 generated: since 0.27.0 the prompt is a pass of 12 tokens
// and one of 1 with the logits; before, one pass of 13 with 13 rows.
TEST(MlxLmReleases, ShortPromptPassesSinceAndBefore406) {
  auto qwen3_06b = [](MlxRelease release) {
    MlxLmSettings s;
    s.prompt_tokens = 13;
    s.max_tokens = 256;
    s.mlx_lm_release = release;
    const Model m = testing::corpus_model("qwen3/Qwen3-0.6B", 1000, WeightsSource::kSafetensorsHeader);
    Result<MlxLmEstimate> e = estimate_mlxlm(m, s, kBudgetReleases);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
    return e.ok() ? *e : MlxLmEstimate{};
  };
  const MlxLmEstimate since = qwen3_06b(MlxRelease{0, 28, 3});
  const MlxLmEstimate before = qwen3_06b(MlxRelease{0, 26, 4});
  // MLP: 12 x 3072 x 2 x 3 = 221,184 (before: 13 x 3072 x 6 = 239,616).
  EXPECT_EQ(since.last_chunk.mlp_bytes, 221'184u);
  EXPECT_EQ(before.last_chunk.mlp_bytes, 239'616u);
  // Fused attention, float32: 16 heads x 12 x 128 x 4 = 98,304 (before
  // 16 x 13 x 128 x 4 = 106,496).
  EXPECT_EQ(since.last_chunk.attention_bytes, 98'304u);
  EXPECT_EQ(before.last_chunk.attention_bytes, 106'496u);
  // Logits: one row, 151,936 x 2 = 303,872 (before 13 rows, 3,950,336).
  EXPECT_EQ(since.last_chunk.logits_bytes, 303'872u);
  EXPECT_EQ(before.last_chunk.logits_bytes, 3'950'336u);
  // The cache at the chunk's end either way: 256 slots x 28 layers x 8
  // KV heads x 128 x 2 x 2 B = 29,360,128.
  EXPECT_EQ(since.last_chunk.kv_bytes, 29'360'128u);
  EXPECT_EQ(before.last_chunk.kv_bytes, 29'360'128u);
}

TEST(MlxLmReleases, LastChunkLogitsRows) {
  EXPECT_EQ(mlxlm_last_chunk_logits_rows(std::nullopt, 300), 1u);  // the current release's
  EXPECT_EQ(mlxlm_last_chunk_logits_rows(MlxRelease{0, 26, 4}, 300), 300u);
  EXPECT_EQ(mlxlm_last_chunk_logits_rows(MlxRelease{0, 27, 0}, 300), 1u);
  EXPECT_EQ(mlxlm_last_chunk_logits_rows(MlxRelease{1, 0, 0}, 300), 1u);
}

TEST(MlxLmReleases, ParsesAndRefusesWithTheRangeInWords) {
  Result<MlxRelease> r = parse_mlx_lm_version("v0.27");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (MlxRelease{0, 27, 0}));
  EXPECT_EQ(to_string(*parse_mlx_lm_version("0.31.3")), "0.31.3");
  EXPECT_EQ(parse_mlx_lm_version("0.16.2").error().message(),
            "mlx-lm 0.16.2 predates what memfit prices: mlx-lm 0.17.0 or later (the prompt in "
            "chunks of prefill_step_size)");
  EXPECT_EQ(parse_mlx_version("0.23.1").error().message(),
            "MLX 0.23.1 predates what memfit prices: MLX 0.24.0 or later (at most 10 command "
            "buffers in flight)");
  EXPECT_EQ(parse_mlx_lm_version("0.x").error().message(),
            "'0.x': expected a release X.Y or X.Y.Z, e.g. 0.27.0");
  EXPECT_FALSE(parse_mlx_version("1").ok());
  EXPECT_FALSE(parse_mlx_version("0.24.0.1").ok());
  EXPECT_TRUE(parse_mlx_version("0.24.0").ok());
}

TEST(MlxLmReleases, ChipClassSetsMetalsBufferLimits) {
  EXPECT_EQ(mlx_metal_limits(MlxChip::kBase).max_ops, 40u);
  EXPECT_EQ(mlx_metal_limits(MlxChip::kPro).max_mega_elements, 40u);
  EXPECT_EQ(mlx_metal_limits(MlxChip::kMax).max_ops, 50u);
  EXPECT_EQ(mlx_metal_limits(MlxChip::kUltra).max_mega_elements, 50u);
  EXPECT_EQ(parse_mlx_chip("m3").error().message(), "'m3': expected base, pro, max or ultra");
}

// mlx #3077 (v0.30.5) raised the H100's CUDA graphs from 30 ops / 400 x
// 2^20 elements to 100 / 1000; the CUDA backend counts inputs only.
TEST(MlxLmReleases, CudaGraphLimitsFollowTheMlxRelease) {
  const MlxBufferLimits before = mlx_cuda_limits(MlxRelease{0, 30, 4});
  const MlxBufferLimits since = mlx_cuda_limits(MlxRelease{0, 30, 5});
  const MlxBufferLimits unsaid = mlx_cuda_limits(std::nullopt);
  EXPECT_EQ(before.max_ops, 30u);
  EXPECT_EQ(before.max_mega_elements, 400u);
  EXPECT_EQ(since.max_ops, 100u);
  EXPECT_EQ(since.max_mega_elements, 1000u);
  EXPECT_EQ(unsaid.max_ops, 100u);
  EXPECT_FALSE(before.distinct_inputs);
  EXPECT_FALSE(before.count_outputs);
}

// The request path: the fields reach the settings (JSON request, as the
// service and the C API take it).
nlohmann::json answer(const std::string& request) {
  char* out = nullptr;
  const memfit_status status = memfit_estimate_request_json(request.c_str(), &out);
  nlohmann::json j = nlohmann::json::parse(out);
  memfit_string_free(out);
  EXPECT_EQ(status, MEMFIT_OK) << j.dump();
  return j;
}

TEST(MlxLmReleases, RequestFieldsReachThePricing) {
  const std::string model = std::string(MEMFIT_SOURCE_DIR) +
                            "/tests/data/corpus/llama3/Llama-3.2-3B-Instruct";
  const std::string head = R"({"engine": "mlx-lm", "memory_limit": "64GiB", "model": ")" + model +
                           R"(", "prompt_tokens": 2048, )";
  const nlohmann::json pro = answer(head + R"("mlx_chip": "pro"})");
  EXPECT_EQ(pro["mlxlm"]["command_buffers"]["max_ops"], 40);
  EXPECT_EQ(pro["mlxlm"]["command_buffers"]["max_mega_elements"], 40);
  // The Mac --mac names gives its tier (an M4 is a base chip: 40 / 40);
  // --mlx-chip wins over it.
  const std::string on_mac = R"({"engine": "mlx-lm", "model": ")" + model +
                             R"(", "prompt_tokens": 2048, "mac": "m4-24gb")";
  const nlohmann::json m4 = answer(on_mac + "}");
  EXPECT_EQ(m4["mlxlm"]["command_buffers"]["max_ops"], 40);
  const nlohmann::json m4_max = answer(on_mac + R"(, "mlx_chip": "max"})");
  EXPECT_EQ(m4_max["mlxlm"]["command_buffers"]["max_ops"], 50);
  const nlohmann::json cuda_before = answer(head + R"("backend": "cuda", "mlx_version": "0.30.4"})");
  EXPECT_EQ(cuda_before["mlxlm"]["command_buffers"]["max_ops"], 30);
  EXPECT_EQ(cuda_before["mlxlm"]["command_buffers"]["max_mega_elements"], 400);
  const nlohmann::json old = answer(head + R"("mlx_lm_version": "0.26.0"})");
  const nlohmann::json now = answer(head + R"("mlx_lm_version": "0.27.0"})");
  EXPECT_EQ(old["mlxlm"]["phases"]["last_chunk"]["logits_bytes"], 525'336'576u);
  EXPECT_EQ(now["mlxlm"]["phases"]["last_chunk"]["logits_bytes"], 256'512u);
}

}  // namespace
}  // namespace memfit
