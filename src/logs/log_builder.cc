// LogBuilder (log_builder.h): figures merged per device and figure, caps.
#include "logs/log_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "memfit/checked_math.h"

namespace memfit::logs {

LogBuilder::LogBuilder(std::string runtime) { log_.runtime = std::move(runtime); }

void LogBuilder::set_version(std::string_view version) {
  if (log_.version.empty()) log_.version = std::string(trim(version));
}

void LogBuilder::set_backend(std::string_view backend) {
  if (log_.backend.empty()) log_.backend = std::string(backend);
}

LogDevice* LogBuilder::device(std::string_view id) {
  for (LogDevice& d : log_.devices) {
    if (d.id == id) return &d;
  }
  if (log_.devices.size() >= kMaxLogDevices) return nullptr;
  log_.devices.push_back(LogDevice{std::string(id), "", std::nullopt, std::nullopt});
  return &log_.devices.back();
}

void LogBuilder::settle_gpu_devices() {
  // ggml-cann names its devices GGML_CANN_NAME + index, "CANN0"
  // (ggml/src/ggml-cann/ggml-cann.cpp, ggml_backend_cann_reg); its host
  // buffers are "CANN_Host", read as the host's.
  for (const LogDevice& d : log_.devices) {
    for (std::string_view backend : {"CUDA", "ROCm", "Vulkan", "Metal", "MTL", "SYCL", "MUSA", "CANN"}) {
      if (d.id.starts_with(backend)) set_backend(backend == "MTL" ? "Metal" : backend);
    }
  }
  order_devices();
}

void LogBuilder::order_devices() {
  // "CUDA12" -> ("CUDA", 12); the host after every GPU.
  const auto key = [](const LogDevice& d) {
    std::string_view id = d.id;
    size_t digits = id.size();
    while (digits > 0 && id[digits - 1] >= '0' && id[digits - 1] <= '9') --digits;
    const std::optional<uint64_t> index = parse_count(id.substr(digits));
    return std::make_tuple(id == "CPU", id.substr(0, digits), index.value_or(0));
  };
  std::stable_sort(log_.devices.begin(), log_.devices.end(),
                   [&](const LogDevice& a, const LogDevice& b) { return key(a) < key(b); });
}

void LogBuilder::setting(std::string_view name, std::string_view value, bool replace) {
  for (LogSetting& s : log_.settings) {
    if (s.name != name) continue;
    if (replace) s.value = std::string(value);
    return;
  }
  if (log_.settings.size() >= kMaxLogSettings) return;
  log_.settings.push_back(LogSetting{std::string(name), std::string(trim(value))});
}

const LogSetting* LogBuilder::find_setting(std::string_view name) const {
  return log_.setting(name);
}

PrintedFigure* LogBuilder::find(std::string_view device, LogFigure figure) {
  for (PrintedFigure& f : log_.figures) {
    if (f.device == device && f.figure == figure) return &f;
  }
  return nullptr;
}

bool LogBuilder::has(std::string_view device, LogFigure figure) const {
  return std::any_of(log_.figures.begin(), log_.figures.end(), [&](const PrintedFigure& f) {
    return f.device == device && f.figure == figure;
  });
}

PrintedFigure* LogBuilder::add(std::string_view device, LogFigure figure, std::string_view text,
                               uint64_t line) {
  if (log_.figures.size() >= kMaxLogFigures) {
    if (!figures_capped_) note(fmt::format("more than {} figures: the rest are not read", kMaxLogFigures));
    figures_capped_ = true;
    return nullptr;
  }
  if (device != "total") this->device(device);
  PrintedFigure f;
  f.device = std::string(device);
  f.figure = figure;
  f.unit = unit_of(figure);
  f.text = std::string(trim(text));
  f.line = line;
  log_.figures.push_back(std::move(f));
  return &log_.figures.back();
}

void LogBuilder::bytes(std::string_view device, LogFigure figure, const PrintedQuantity& q,
                       uint64_t line, Merge merge, std::string_view buffer) {
  PrintedFigure* f = find(device, figure);
  if (f != nullptr && merge == Merge::kFirst) return;
  if (f != nullptr) {
    const CheckedBytes value = CheckedBytes(f->value) + q.scaled.value;
    const CheckedBytes band = CheckedBytes(f->band) + q.scaled.band;
    if (!value.value() || !band.value()) return;  // absurd prints: the first stands
    f->value = *value.value();
    f->band = *band.value();
    f->decimals = std::max(f->decimals, q.number.decimals);
    if (f->unit_scale != q.scale) f->unit_scale = std::min(f->unit_scale, q.scale);
    f->text += " + " + std::string(q.text);
    if (!buffer.empty()) f->buffers.emplace_back(buffer);
    return;
  }
  f = add(device, figure, q.text, line);
  if (f == nullptr) return;
  f->value = q.scaled.value;
  f->band = q.scaled.band;
  f->unit_scale = q.scale;
  f->decimals = q.number.decimals;
  if (!buffer.empty()) f->buffers.emplace_back(buffer);
}

void LogBuilder::count(std::string_view device, LogFigure figure, uint64_t value,
                       std::string_view text, uint64_t line) {
  if (find(device, figure) != nullptr) return;
  if (PrintedFigure* f = add(device, figure, text, line)) f->value = value;
}

void LogBuilder::ratio(std::string_view device, LogFigure figure, const PrintedDecimal& value,
                       std::string_view text, uint64_t line) {
  if (find(device, figure) != nullptr) return;
  if (PrintedFigure* f = add(device, figure, text, line)) {
    f->ratio = to_double(value);
    f->decimals = value.decimals;
  }
}

void LogBuilder::note(std::string text) {
  if (std::find(log_.notes.begin(), log_.notes.end(), text) == log_.notes.end()) {
    log_.notes.push_back(std::move(text));
  }
}

RuntimeLog LogBuilder::take() { return std::move(log_); }

}  // namespace memfit::logs
