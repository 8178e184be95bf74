// Issue 28's targets (log_targets.h): which one a figure has, how many
// GPUs a log counts for it, and the compute bound each row is judged by.
#include "logs/log_targets.h"

#include <gtest/gtest.h>

namespace memfit::logs {
namespace {

RuntimeLog log_on(std::initializer_list<const char*> devices) {
  RuntimeLog log;
  for (const char* id : devices) log.devices.push_back(LogDevice{id, "", std::nullopt, std::nullopt});
  return log;
}

TEST(FigureTarget, LlamaComputeIsFivePercentOnOneGpuTenUnderASplit) {
  // Within 5 %: memfit / printed in [0.95, 1.05]; within 10 %: [0.90, 1.10].
  EXPECT_DOUBLE_EQ(figure_target("llamacpp", LogFigure::kCompute, 1)->low, 0.95);
  EXPECT_DOUBLE_EQ(figure_target("ollama", LogFigure::kCompute, 0)->high, 1.05);
  EXPECT_DOUBLE_EQ(figure_target("llamacpp", LogFigure::kCompute, 2)->low, 0.90);
  EXPECT_EQ(figure_target("llamacpp", LogFigure::kCompute, 2)->text, "within 10 % under a split");
  EXPECT_TRUE(figure_target("llamacpp", LogFigure::kModel, 8)->exact);  // exact to the print
  EXPECT_FALSE(figure_target("llamacpp", LogFigure::kOutput, 1).has_value());
  // mlx-lm's peak: a range that is not symmetric about 1.
  EXPECT_DOUBLE_EQ(figure_target("mlx-lm", LogFigure::kPeak, 0)->low, 0.97);
  EXPECT_DOUBLE_EQ(figure_target("mlx-lm", LogFigure::kPeak, 0)->high, 1.10);
}

TEST(FigureTarget, GpusCountDevicesAndFigureDevicesButNotTheHostOrTotals) {
  RuntimeLog log = log_on({"CUDA0", "CPU"});
  PrintedFigure f;
  f.device = "CUDA1";  // a device only a figure names
  log.figures.push_back(f);
  f.device = "total";
  log.figures.push_back(f);
  f.device = "CUDA0";
  log.figures.push_back(f);
  EXPECT_EQ(target_gpus(log), 2u);  // CUDA0, CUDA1
}

TEST(FigureTarget, ComputeBelowTargetUsesTheRowsOwnBound) {
  // One GPU: 5 %, so 94 of 100 is below (94 < 95), 96 is not.
  const RuntimeLog one = log_on({"CUDA0", "CPU"});
  EXPECT_TRUE(compute_below_target(one, 94, 100));
  EXPECT_FALSE(compute_below_target(one, 96, 100));
  // Two GPUs: 10 %, so 92 of 100 is within it (92 >= 90), 89 is below;
  // the one-GPU bound called 92 a miss.
  const RuntimeLog split = log_on({"ROCm0", "ROCm1", "CPU"});
  EXPECT_FALSE(compute_below_target(split, 92, 100));
  EXPECT_TRUE(compute_below_target(split, 89, 100));
}

}  // namespace
}  // namespace memfit::logs
