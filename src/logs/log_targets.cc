// figure_target and target_gpus (log_targets.h).
#include "logs/log_targets.h"

#include <algorithm>
#include <string>
#include <vector>

namespace memfit::logs {

std::optional<FigureTarget> figure_target(std::string_view profile, LogFigure figure, size_t gpus) {
  const bool llama = profile == "llamacpp" || profile == "ollama";
  if (llama && (figure == LogFigure::kModel || figure == LogFigure::kKvCache)) {
    return FigureTarget{0, 0, 0, "exact to the print"};
  }
  if (llama && figure == LogFigure::kCompute) {
    return gpus >= 2 ? FigureTarget{0.10, 0, 0, "within 10 % under a split"}
                     : FigureTarget{0.05, 0, 0, "within 5 % on one GPU"};
  }
  if (profile == "vllm" && figure == LogFigure::kWeights) return FigureTarget{0.01, 0, 0, "within 1 %"};
  if (profile == "vllm" && (figure == LogFigure::kKvCacheAvailable || figure == LogFigure::kKvTokens ||
                            figure == LogFigure::kKvBlocks)) {
    return FigureTarget{0.05, 0, 0, "within 5 %"};
  }
  if (profile == "mlx-lm" && figure == LogFigure::kPeak) return FigureTarget{0, 0.97, 1.10, "within [0.97, 1.10]"};
  if (profile == "sglang" && figure == LogFigure::kTokenPool) return FigureTarget{0.05, 0, 0, "within 5 %"};
  return std::nullopt;
}

size_t target_gpus(const RuntimeLog& log) {
  std::vector<std::string_view> ids;
  auto add = [&ids](std::string_view id) {
    if (id.empty() || id == "CPU" || id == "total" || id.starts_with("rank")) return;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  for (const LogDevice& d : log.devices) add(d.id);
  for (const PrintedFigure& f : log.figures) add(f.device);
  return ids.size();
}

bool compute_below_target(const RuntimeLog& log, uint64_t memfit, uint64_t printed) {
  const std::optional<FigureTarget> t = figure_target("llamacpp", LogFigure::kCompute, target_gpus(log));
  return static_cast<double>(memfit) < static_cast<double>(printed) * (1.0 - t->tolerance);
}

}  // namespace memfit::logs
