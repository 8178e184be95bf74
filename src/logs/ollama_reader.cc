// The Ollama reader (docs/check-log.md, "Ollama"): the server's own lines
// are Go slog records,
//   time=2025-07-12T10:03:10.516+08:00 level=INFO source=server.go:632 msg="..." key=value ...
// around the llama.cpp runner's lines, printed as llama.cpp prints them
// (read by the llama.cpp reader). Ollama's own engine prints its buffers
// as records of its own:
//   msg="model weights" device=CUDA0 size="4.3 GiB"
//   msg="kv cache" device=CUDA0 size="512.0 MiB"
//   msg="compute graph" device=CUDA0 size="300.8 MiB"
// (format.HumanBytes2: binary units, one decimal).
#include "logs/log_reader.h"

namespace memfit::logs {
namespace {

// The value of `key=` in a slog record: quoted ("...", '\"' escaped) or up
// to the next space. nullopt when absent.
std::optional<std::string> slog_field(std::string_view line, std::string_view key) {
  const std::string marker = " " + std::string(key) + "=";
  std::optional<std::string_view> rest = after(line, marker);
  if (!rest) return std::nullopt;
  if (!rest->starts_with('"')) return std::string(rest->substr(0, rest->find(' ')));
  std::string out;
  for (size_t i = 1; i < rest->size(); ++i) {
    const char c = (*rest)[i];
    if (c == '\\' && i + 1 < rest->size()) {
      out.push_back((*rest)[++i]);
    } else if (c == '"') {
      return out;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The runner's command line (msg="starting llama server" cmd="..."): the
// flags that decide placement, which llama.cpp's own lines do not print.
void read_runner_command(std::string_view cmd, LogBuilder& out) {
  if (std::optional<std::string_view> split = after(cmd, "--tensor-split ")) {
    out.setting("tensor_split", split->substr(0, split->find(' ')));
  }
  if (std::optional<std::string_view> model = after(cmd, "--model ")) {
    out.setting("model", model->substr(0, model->find(' ')));
  }
  if (contains(cmd, "--no-mmap")) out.setting("no_mmap", "true");
}

void read_buffer_record(std::string_view line, const std::string& msg, const LogLine& at,
                        LogBuilder& out) {
  const LogFigure figure = msg == "model weights" ? LogFigure::kModel
                           : msg == "kv cache"    ? LogFigure::kKvCache
                                                  : LogFigure::kCompute;
  const std::optional<std::string> device = slog_field(line, "device");
  const std::optional<std::string> size = slog_field(line, "size");
  if (!device || !size || out.has(*device, figure)) return;
  if (std::optional<PrintedQuantity> q = leading_quantity(*size, binary_units())) {
    out.bytes(*device, figure, *q, at.number, Merge::kFirst);
  }
}

void read_record(const LogLine& line, LogBuilder& out) {
  const std::optional<std::string> msg = slog_field(line.text, "msg");
  if (!msg) return;
  if (std::optional<std::string_view> version = after(*msg, "(version ")) {
    out.set_version(version->substr(0, version->find(')')));
  }
  if (std::optional<std::string> library = slog_field(line.text, "library")) {
    if (*library == "cuda") out.set_backend("CUDA");
    if (*library == "rocm") out.set_backend("ROCm");
    if (*library == "metal") out.set_backend("Metal");
    if (*library == "vulkan") out.set_backend("Vulkan");
  }
  if (*msg == "starting llama server" || *msg == "starting runner") {
    if (std::optional<std::string> cmd = slog_field(line.text, "cmd")) read_runner_command(*cmd, out);
  }
  if (*msg == "model weights" || *msg == "kv cache" || *msg == "compute graph") {
    read_buffer_record(line.text, *msg, line, out);
  }
}

class OllamaReader final : public LogReader {
 public:
  std::string_view runtime() const override { return "ollama"; }
  bool recognises(std::span<const LogLine> lines) const override {
    for (const LogLine& line : lines) {
      if (contains(line.text, " level=") && contains(line.text, " source=") &&
          contains(line.text, " msg=")) {
        return true;
      }
    }
    return false;
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    for (const LogLine& line : lines) {
      if (contains(line.text, " level=") && contains(line.text, " msg=")) read_record(line, out);
    }
    read_llamacpp_lines(lines, out);
  }
};

}  // namespace

const LogReader& ollama_log_reader() {
  static const OllamaReader reader;
  return reader;
}

}  // namespace memfit::logs
