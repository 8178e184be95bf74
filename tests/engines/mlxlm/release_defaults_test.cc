// What older mlx-lm releases did by default (engines/mlxlm/release_defaults.h;
// docs/engine-mlxlm.md, "Releases"): prompt chunks of 512 before mlx-lm #40,
// the unfused prompt attention of the MLX before v0.21.0, "GB" as 2^30
// before mlx-examples #1094. Worked by hand on Llama 3.2 3B, 2048 prompt
// tokens (24 query heads of 128, the corpus config).
#include "engines/mlxlm/release_defaults.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"
#include "support/paths.h"

namespace memfit {
namespace {

TEST(MlxLmReleaseDefaults, PrefillStepAndGigabyte) {
  EXPECT_EQ(mlxlm_default_prefill_step_size(MlxRelease{0, 19, 3}), 512u);
  EXPECT_EQ(mlxlm_default_prefill_step_size(MlxRelease{0, 22, 1}), 512u);
  EXPECT_EQ(mlxlm_default_prefill_step_size(MlxRelease{0, 22, 2}), 2048u);
  EXPECT_EQ(mlxlm_default_prefill_step_size(std::nullopt), 2048u);  // the current release
  EXPECT_EQ(mlxlm_printed_gb_bytes(MlxRelease{0, 19, 3}), 1'073'741'824u);
  EXPECT_EQ(mlxlm_printed_gb_bytes(MlxRelease{0, 20, 0}), 1'000'000'000u);
  EXPECT_EQ(mlxlm_printed_gb_bytes(std::nullopt), 1'000'000'000u);
}

nlohmann::json answer_release_defaults(const std::string& version) {
  const std::string request =
      R"({"engine": "mlx-lm", "memory_limit": "64GiB", "model": ")" +
      std::string(MEMFIT_SOURCE_DIR) + R"(/tests/data/corpus/llama3/Llama-3.2-3B-Instruct", )" +
      R"("prompt_tokens": 2048, "max_tokens": 1, "mlx_lm_version": ")" + version + R"("})";
  char* out = nullptr;
  const memfit_status status = memfit_estimate_request_json(request.c_str(), &out);
  nlohmann::json j = nlohmann::json::parse(out);
  memfit_string_free(out);
  EXPECT_EQ(status, MEMFIT_OK) << j.dump();
  return j;
}

TEST(MlxLmReleaseDefaults, TheReleaseChunksThePromptAndPicksTheAttention) {
  // 0.22.1: chunks of 512, (2048 - 1) / 512 = 3 full and a last of 512;
  // the fused kernel's output 24 x 512 x 128 x 4 B = 6,291,456.
  const nlohmann::json before = answer_release_defaults("0.22.1");
  EXPECT_EQ(before["inputs"]["prefill_step_size"], 512);
  EXPECT_EQ(before["inputs"]["full_chunks"], 3);
  EXPECT_EQ(before["inputs"]["last_chunk_tokens"], 512);
  EXPECT_EQ(before["mlxlm"]["phases"]["last_chunk"]["attention_bytes"], 6'291'456u);
  // 0.22.2: one chunk of 2048, 24 x 2048 x 128 x 4 = 25,165,824.
  const nlohmann::json since = answer_release_defaults("0.22.2");
  EXPECT_EQ(since["inputs"]["full_chunks"], 0);
  EXPECT_EQ(since["inputs"]["last_chunk_tokens"], 2048);
  EXPECT_EQ(since["mlxlm"]["phases"]["last_chunk"]["attention_bytes"], 25'165'824u);
  // 0.19.3 ran on an MLX before v0.21.0: the output plus the score matrix
  // of the last 512 queries over 2048 keys, 24 x 512 x 2048 x 2 =
  // 50,331,648; 56,623,104 in all.
  const nlohmann::json unfused = answer_release_defaults("0.19.3");
  EXPECT_EQ(unfused["inputs"]["last_chunk_tokens"], 512);
  EXPECT_EQ(unfused["mlxlm"]["fused_attention"], false);
  EXPECT_EQ(unfused["mlxlm"]["phases"]["last_chunk"]["attention_bytes"], 56'623'104u);
  EXPECT_EQ(answer_release_defaults("0.20.0")["mlxlm"]["fused_attention"], true);
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

TEST(MlxRequiredBy, IsTheLowestMlxEachMlxLmReleaseInstallsWith) {
  // setup.py's MIN_MLX_VERSION at each tag (release_defaults.h).
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 26, 4}), (MlxRelease{0, 29, 2}));  // priced as 0.29.2's rules
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 30, 2}), (MlxRelease{0, 29, 2}));
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 30, 4}), (MlxRelease{0, 30, 3}));
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 30, 5}), (MlxRelease{0, 30, 3}));
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 30, 6}), (MlxRelease{0, 30, 4}));
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 31, 2}), (MlxRelease{0, 30, 4}));
  EXPECT_EQ(mlx_required_by(MlxRelease{0, 31, 3}), (MlxRelease{0, 31, 2}));
}

}  // namespace
}  // namespace memfit
