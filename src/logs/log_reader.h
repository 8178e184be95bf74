// LogReader: one runtime's log format, and the one list of them
// (runtime_log.cc: read_runtime_log asks them in order). Each reader is in
// its own file (llamacpp_reader.cc, ollama_reader.cc, vllm_reader.cc,
// sglang_reader.cc, mlxlm_reader.cc); nothing else names a runtime's
// lines. Private to src/logs.
#ifndef MEMFIT_LOGS_LOG_READER_H_
#define MEMFIT_LOGS_LOG_READER_H_

#include <span>
#include <string_view>

#include "logs/log_builder.h"
#include "logs/log_text.h"

namespace memfit::logs {

class LogReader {
 public:
  virtual ~LogReader() = default;
  // The runtime's name in RuntimeLog::runtime: "llamacpp", "vllm", ...
  virtual std::string_view runtime() const = 0;
  // Whether `lines` hold a line only this runtime prints. Asked in list
  // order, so a runtime whose logs carry another's lines (Ollama's carry
  // llama.cpp's) comes first.
  virtual bool recognises(std::span<const LogLine> lines) const = 0;
  // Reads what the reader knows of `lines` into `out`. Never fails: a line
  // it cannot read is skipped (a pasted log is often cut or wrapped).
  virtual void read(std::span<const LogLine> lines, LogBuilder& out) const = 0;
};

const LogReader& ollama_log_reader();
const LogReader& sglang_log_reader();
const LogReader& vllm_log_reader();
const LogReader& mlxlm_log_reader();
const LogReader& llamacpp_log_reader();

// llama.cpp's lines (llamacpp_reader.cc), for the readers of runtimes that
// embed it (Ollama's runner prints them as they are).
void read_llamacpp_lines(std::span<const LogLine> lines, LogBuilder& out);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_READER_H_
