// check-log on a pipeline-parallel vLLM log (docs/engine-vllm.md,
// "Pipeline parallelism: the KV blocks"): NVIDIA's GH200 benchmark of
// v0.10.1 (Qwen3-30B-A3B-Instruct-2507, TP 4 x PP 2 over Ray), whose
// engine printed each worker's KV capacity before unifying the blocks and
// only a stage-0 worker's KV memory, 76.15 GiB.
#include <gtest/gtest.h>

#include <string>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"

namespace memfit {
namespace {

using testing::find_check_figure;
using testing::read_test_log;

const char* kSlugVllmPipelineCheck = "vllm-nv6-qwen3-30b-a3b-tp4-pp2-gh200-ray";

LogCheck check_vllm_pipeline_check(const std::string& text) { return testing::check_with_its_config("vllm", kSlugVllmPipelineCheck, text); }

TEST(CheckLogVllmPipeline, ThroughV010TheFirstPairIsStageZerosOwn) {
  const LogCheck c = check_vllm_pipeline_check(read_test_log("vllm", std::string(kSlugVllmPipelineCheck) + ".log"));
  // 48 layers as [24, 24]; one KV head a rank (4 over TP 4) of 128, K and
  // V at 2 B: 512 B a token a layer, x 24 = 12,288 B, a 16-token block
  // 196,608 B. 76.15 GiB = 81,765,439,898 B // 196,608 = 415,880 blocks
  // (415,880 x 196,608 = 81,765,335,040) = 6,654,080 tokens (printed
  // 6,654,432); a request of 262,144 tokens takes 16,384 blocks: 415,880 /
  // 16,384 = 25.38330078125 (printed 25.38x).
  const FigureCheck* tokens = find_check_figure(c, "total", LogFigure::kKvTokens);
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->memfit, 6'654'080u);
  const FigureCheck* concurrency = find_check_figure(c, "total", LogFigure::kConcurrency);
  ASSERT_NE(concurrency, nullptr);
  EXPECT_DOUBLE_EQ(concurrency->memfit_ratio.value_or(0), 25.38330078125);
  // Both stages hold 24 layers and, qwen3_moe building them everywhere,
  // both tables: every rank is priced, all alike.
  const FigureCheck* rank2 = find_check_figure(c, "rank2", LogFigure::kWeights);
  const FigureCheck* rank4 = find_check_figure(c, "rank4", LogFigure::kWeights);
  ASSERT_TRUE(rank2 != nullptr && rank4 != nullptr);
  ASSERT_TRUE(rank2->memfit.has_value());
  EXPECT_EQ(rank2->memfit, rank4->memfit);
}

TEST(CheckLogVllmPipeline, LaterReleasesNeedEveryStagesMemory) {
  // The same lines under a release past vllm#25164 print the engine's
  // blocks, the fewest of both stages, and stage 1's memory is not in the
  // log: the KV rows are not priced.
  std::string text = read_test_log("vllm", std::string(kSlugVllmPipelineCheck) + ".log");
  const std::string old_version = "v0.10.1.2.dev0";
  const size_t at = text.find(old_version);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, old_version.size(), "v0.11.0");
  const LogCheck c = check_vllm_pipeline_check(text);
  const FigureCheck* tokens = find_check_figure(c, "total", LogFigure::kKvTokens);
  ASSERT_NE(tokens, nullptr);
  EXPECT_FALSE(tokens->memfit.has_value());
  EXPECT_NE(tokens->note.find("not every stage's KV memory"), std::string::npos) << tokens->note;
}

}  // namespace
}  // namespace memfit
