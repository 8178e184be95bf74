// check-log prices an mlx-lm log by the release it ran (docs/check-log.md;
// docs/engine-mlxlm.md, "Releases"): the corpus's mlx_lm.benchmark run of
// mlx-lm PR #396 (Llama 3.2 3B, 2048 + 128 tokens, one prompt chunk),
// priced from the model's config under a release on each side of #406.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <tuple>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

using testing::read_test_log;

const char* kLogMlxlmRelease = "mlxlm-396-benchmark-default-llama32-3b-4bit.log";

// Llama 3.2 3B Instruct's config, the model of mlx-lm#396's log.
std::string corpus_config() { return testing::read_test_data("corpus/llama3/Llama-3.2-3B-Instruct/config.json"); }

LogCheck check_mlxlm_release(const std::string& version) {
  LogCheckOptions options;
  options.config_json = corpus_config();
  options.version = version;
  return testing::check_test_log("mlx-lm", kLogMlxlmRelease, options);
}

constexpr auto peak_mlxlm_release = &testing::priced_peak;
constexpr auto has_note_mlxlm_release = &testing::has_log_note;

TEST(CheckLogMlxLmRelease, TheLogsReleasePricesTheLastChunksLogits) {
  const LogCheck before = check_mlxlm_release("0.26.4");
  const LogCheck since = check_mlxlm_release("0.27.0");
  EXPECT_EQ(before.log.version, "0.26.4");
  EXPECT_EQ(since.log.version, "0.27.0");
  // Under 0.27.0 the last chunk's logits are one row: 2048 x 128,256 x 2
  // = 525,336,576 B become 256,512, so the peak falls by at most
  // 525,080,064 (the rest of the pass is the same), and falls.
  const uint64_t a = peak_mlxlm_release(before), b = peak_mlxlm_release(since);
  ASSERT_GT(a, b);
  EXPECT_LE(a - b, 525'080'064u);
  // A release memfit does not price is priced as when none is given (the
  // current release, 0.31.3: one row), with the reason as a note.
  const LogCheck old = check_mlxlm_release("0.16.0");
  EXPECT_EQ(peak_mlxlm_release(old), b);
  EXPECT_EQ(peak_mlxlm_release(check_mlxlm_release("")), b);
  EXPECT_TRUE(has_note_mlxlm_release(old, "mlx-lm 0.16.0 predates what memfit prices")) << old.log.notes.size();
}

// mlx-examples #1081 printed "Peak memory: 11.496 GB" on mlx-lm 0.19.3,
// before #1094 (0.20.0) divided by 1e9: the digits are 2^30 bytes each,
// 11,496 x 2^30 / 1000 = 12,343,736,008.7, so 12,343,736,009 B, +- 2^30 /
// 2000 = 536,870.9, rounded up to 536,871; under 0.20.0, 11,496,000,000 B.
TEST(CheckLogMlxLmRelease, GigabytesBefore020Are2To30Bytes) {
  for (const auto& [version, bytes, band] :
       {std::tuple{"0.19.3", 12'343'736'009ull, 536'871ull},
        std::tuple{"0.20.0", 11'496'000'000ull, 500'000ull}}) {
    LogCheckOptions options;
    options.config_json = corpus_config();
    options.version = version;
    Result<LogCheck> c = check_log(
        read_test_log("mlx-lm", "mlxlm-examples1081-llama31-8b-4bit-32k-m2ultra.log"), options,
        nullptr);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->figures.size(), 1u);
    EXPECT_EQ(c->figures[0].printed.value, bytes) << version;
    EXPECT_EQ(c->figures[0].printed.band, band) << version;
    EXPECT_EQ(c->figures[0].note.find("\"GB\" read as 2^30 bytes") != std::string::npos,
              std::string(version) == "0.19.3")
        << c->figures[0].note;
    EXPECT_NE(c->figures[0].note.find("predates MLX v0.24.0"), std::string::npos);
  }
}

TEST(CheckLogMlxLmRelease, AReleaseBeforeDecimalGbMeansGibEvenUnpriced) {
  // Simon Willison's Qwen2.5-Coder-32B 8-bit run (2024-11-12, mlx-lm
  // 0.19.3 given beside the log, which prints none; no config, so not
  // priced): "Peak memory: 32.685 GB" was get_peak_memory() / 2**30, so
  // the print is 32.685 x 1,073,741,824 = 35,095,251,517.44 B, not
  // 32,685,000,000. From 0.20.0 (GenerationResponse) it is 10^9.
  LogCheckOptions options;
  options.version = "0.19.3";
  const LogCheck old = testing::check_test_log("mlx-lm", "mlxlm-simonw-qwen25-coder-32b-8bit-m2max.log", options);
  ASSERT_EQ(old.figures.size(), 1u);
  EXPECT_EQ(old.figures[0].printed.value, 35'095'251'517u);
  EXPECT_FALSE(old.figures[0].memfit.has_value());
  options.version = "0.20.0";
  const LogCheck later = testing::check_test_log("mlx-lm", "mlxlm-simonw-qwen25-coder-32b-8bit-m2max.log", options);
  ASSERT_EQ(later.figures.size(), 1u);
  EXPECT_EQ(later.figures[0].printed.value, 32'685'000'000u);
}

}  // namespace
}  // namespace memfit
