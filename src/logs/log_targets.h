// Issue 28's targets for a priced figure (docs/validation-logs.md,
// "Targets"), declared once here: check-log gives each figure its target
// (log_check.cc, judge_targets; the JSON's "target", which
// scripts/gen-validation-logs.py reads), and the pricers that say why a
// figure misses its own target read it too. Private to src/logs.
#ifndef MEMFIT_LOGS_LOG_TARGETS_H_
#define MEMFIT_LOGS_LOG_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "memfit/log_check.h"

namespace memfit::logs {

// The target of `figure` priced by `profile` ("llamacpp", "ollama",
// "vllm", "mlx-lm", "sglang") on a run of `gpus` GPUs (FigureTarget, its
// `met` unset); nullopt where the figure has none. llama.cpp's compute: 5 %
// on one GPU or none, 10 % under a split over two or more.
std::optional<FigureTarget> figure_target(std::string_view profile, LogFigure figure, size_t gpus);

// The GPUs a target counts: the log's devices and the devices its figures
// name, the host ("CPU"), the whole-run "total" and vLLM's ranks aside.
size_t target_gpus(const RuntimeLog& log);

// Whether memfit's bytes lie below the printed bytes by more than the
// tolerance of llama.cpp's compute target for `log` (figure_target).
bool compute_below_target(const RuntimeLog& log, uint64_t memfit, uint64_t printed);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_TARGETS_H_
