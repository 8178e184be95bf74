// read_runtime_log (runtime_log.h): the readers, asked in order; the
// first that recognises the log reads it.
#include <fmt/format.h>

#include <array>

#include "logs/log_reader.h"
#include "memfit/checked_math.h"
#include "memfit/runtime_log.h"

namespace memfit {
namespace {

// The one list of log formats. Ollama first: its logs carry llama.cpp's
// lines. SGLang before vLLM: SGLang's logs may name vLLM's modules.
std::array<const logs::LogReader*, 5> readers() {
  return {&logs::ollama_log_reader(), &logs::sglang_log_reader(), &logs::vllm_log_reader(),
          &logs::mlxlm_log_reader(), &logs::llamacpp_log_reader()};
}

}  // namespace

std::string_view runtime_title(std::string_view runtime) {
  if (runtime == "llamacpp") return "llama.cpp";
  if (runtime == "ollama") return "Ollama";
  if (runtime == "vllm") return "vLLM";
  if (runtime == "sglang") return "SGLang";
  return runtime;
}

const LogSetting* RuntimeLog::setting(std::string_view name) const {
  for (const LogSetting& s : settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool LogModel::metadata_complete() const {
  if (!metadata_count || *metadata_count != metadata.size() || metadata.empty()) return false;
  if (!tensor_count || !file_bytes) return false;
  CheckedBytes typed = 0;
  for (const auto& [type, tensors] : tensor_types) typed += tensors;
  return typed.value() == tensor_count;
}

Result<RuntimeLog> read_runtime_log(std::string_view text) {
  if (text.size() > kMaxRuntimeLogBytes) {
    return Error(fmt::format("runtime log: {} bytes is more than the {} a log may have",
                             text.size(), kMaxRuntimeLogBytes));
  }
  const std::vector<logs::LogLine> lines = logs::split_log_lines(text);
  for (const logs::LogReader* reader : readers()) {
    if (!reader->recognises(lines)) continue;
    logs::LogBuilder out{std::string(reader->runtime())};
    reader->read(lines, out);
    return out.take();
  }
  return Error("runtime log: not a log memfit reads: no line of llama.cpp, Ollama, vLLM, "
               "SGLang or mlx-lm");
}

}  // namespace memfit
