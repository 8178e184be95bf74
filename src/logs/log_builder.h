// LogBuilder: what a log reader collects, with the caps and merge rules of
// runtime_log.h applied once for every reader. Private to src/logs.
#ifndef MEMFIT_LOGS_LOG_BUILDER_H_
#define MEMFIT_LOGS_LOG_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "logs/log_text.h"
#include "memfit/runtime_log.h"

namespace memfit::logs {

// How a figure printed again on the same device is taken.
enum class Merge {
  kSum,    // another buffer of the device (llama.cpp's CPU_Mapped + CPU_REPACK)
  kFirst,  // the same figure printed again (a second engine start): kept once
};

class LogBuilder {
 public:
  explicit LogBuilder(std::string runtime);

  // The first value given wins; "" is ignored.
  void set_version(std::string_view version);
  void set_backend(std::string_view backend);
  // The device `id`, added (at the end) when new; nullptr past
  // kMaxLogDevices.
  LogDevice* device(std::string_view id);
  // The backend from the GPUs' ids (CUDA0, ROCm0, Vulkan0, Metal, SYCL0,
  // MTL0, MUSA0, CANN0), when none was set, and the devices ordered
  // (order_devices).
  void settle_gpu_devices();
  // Orders the devices as llama.cpp does: by backend ("CUDA", "Vulkan"),
  // then index ("CUDA2" before "CUDA10"), the host ("CPU") last.
  void order_devices();
  // A setting; the first value given wins unless `replace`.
  void setting(std::string_view name, std::string_view value, bool replace = false);
  const LogSetting* find_setting(std::string_view name) const;

  // A printed quantity (bytes), summed or kept as `merge` says.
  void bytes(std::string_view device, LogFigure figure, const PrintedQuantity& q, uint64_t line,
             Merge merge, std::string_view buffer = "");
  // A printed count (tokens, blocks), exact.
  void count(std::string_view device, LogFigure figure, uint64_t value, std::string_view text,
             uint64_t line);
  // A printed ratio ("47.16x").
  void ratio(std::string_view device, LogFigure figure, const PrintedDecimal& value,
             std::string_view text, uint64_t line);
  // Whether a figure of `figure` is already held for `device`.
  bool has(std::string_view device, LogFigure figure) const;

  // A note for the report; the same text is kept once.
  void note(std::string text);
  LogModel& model() { return log_.model; }
  const RuntimeLog& peek() const { return log_; }

  RuntimeLog take();

 private:
  PrintedFigure* find(std::string_view device, LogFigure figure);
  PrintedFigure* add(std::string_view device, LogFigure figure, std::string_view text,
                     uint64_t line);

  RuntimeLog log_;
  bool figures_capped_ = false;
};

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_BUILDER_H_
