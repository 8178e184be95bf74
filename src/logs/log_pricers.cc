// The one list of log pricers (log_pricer.h): which engine profile prices
// each runtime's logs. Ollama's are the ollama profile's (its settings
// priced by llama.cpp's rules).
#include "logs/log_pricer.h"
#include "logs/log_text.h"

namespace memfit::logs {

const LogPricer* log_pricer(std::string_view runtime) {
  if (runtime == "llamacpp") return &llamacpp_log_pricer();
  if (runtime == "ollama") return &ollama_log_pricer();
  if (runtime == "vllm") return &vllm_log_pricer();
  if (runtime == "mlx-lm") return &mlxlm_log_pricer();
  if (runtime == "sglang") return &sglang_log_pricer();
  return nullptr;
}

const LogPricer* log_pricer(const RuntimeLog& log) {
  const LogSetting* runner = log.setting("ollama_runner");
  if (log.runtime == "ollama" && runner != nullptr && runner->value == "llama-server") {
    return &llamacpp_log_pricer();
  }
  return log_pricer(log.runtime);
}

bool within_print_band(uint64_t memfit, const PrintedFigure& printed) {
  const uint64_t diff = memfit > printed.value ? memfit - printed.value : printed.value - memfit;
  return diff <= printed.band;
}

void append_note(FigureCheck& c, std::string_view note) {
  if (c.note.empty()) {
    c.note = note;
  } else {
    c.note += "; ";
    c.note += note;
  }
}

void prepend_note(FigureCheck& c, std::string_view note) {
  c.note = c.note.empty() ? std::string(note) : std::string(note) + "; " + c.note;
}

std::optional<uint64_t> count_setting(const RuntimeLog& log, std::string_view name) {
  const LogSetting* s = log.setting(name);
  return s == nullptr ? std::nullopt : parse_count(s->value);
}

}  // namespace memfit::logs
