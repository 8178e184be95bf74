// figure_target and target_gpus (log_targets.h).
#include "logs/log_targets.h"

#include <algorithm>
#include <string>
#include <vector>

namespace memfit::logs {

std::optional<FigureTarget> figure_target(std::string_view profile, LogFigure figure, size_t gpus) {
  auto exact = [](const char* name) { return FigureTarget{name, "exact to the print", true, 0, 0, false}; };
  auto within = [](const char* name, const char* text, double tolerance) {
    return FigureTarget{name, text, false, 1.0 - tolerance, 1.0 + tolerance, false};
  };
  const bool llama = profile == "llamacpp" || profile == "ollama";
  if (llama && figure == LogFigure::kModel) return exact("llama.cpp and Ollama: model per device, exact to the print");
  if (llama && figure == LogFigure::kKvCache) {
    return exact("llama.cpp and Ollama: KV cache per device, exact to the print");
  }
  if (llama && figure == LogFigure::kCompute) {
    return gpus >= 2 ? within("llama.cpp and Ollama: compute per device, split over GPUs, within 10 %",
                              "within 10 % under a split", 0.10)
                     : within("llama.cpp and Ollama: compute per device, one GPU or none, within 5 %",
                              "within 5 % on one GPU", 0.05);
  }
  if (profile == "vllm" && figure == LogFigure::kWeights) {
    return within("vLLM: weights per rank, within 1 %", "within 1 %", 0.01);
  }
  if (profile == "vllm" && (figure == LogFigure::kKvCacheAvailable || figure == LogFigure::kKvTokens ||
                            figure == LogFigure::kKvBlocks)) {
    return within("vLLM: KV capacity (bytes, tokens, blocks), within 5 %", "within 5 %", 0.05);
  }
  if (profile == "mlx-lm" && figure == LogFigure::kPeak) {
    return FigureTarget{"mlx-lm: peak within [0.97, 1.10]", "within [0.97, 1.10]", false, 0.97, 1.10, false};
  }
  if (profile == "sglang" && figure == LogFigure::kTokenPool) {
    return within("SGLang: token pool within 5 %", "within 5 %", 0.05);
  }
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
  return static_cast<double>(memfit) < static_cast<double>(printed) * t->low;
}

}  // namespace memfit::logs
