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
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "logs/llamacpp_lines.h"
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
// Ollama's own engine (--ollama-engine) prints no llama_context line: the
// command is then the only place its context is said. Read after
// llama.cpp's lines, so llama.cpp's own values (after its padding) win.
void read_runner_command(std::string_view cmd, LogBuilder& out) {
  for (auto [flag, name] : {std::pair{"--tensor-split ", "tensor_split"}, {"--model ", "model"},
                            {"--ctx-size ", "n_ctx"}, {"--batch-size ", "n_batch"},
                            {"--n-gpu-layers ", "n_gpu_layers"}, {"--parallel ", "n_seq_max"},
                            {"--kv-cache-type ", "cache_type_k"}}) {
    if (std::optional<std::string_view> value = after(cmd, flag)) {
      out.setting(name, value->substr(0, value->find(' ')));
    }
  }
  if (std::optional<std::string_view> type = after(cmd, "--kv-cache-type ")) {
    out.setting("cache_type_v", type->substr(0, type->find(' ')));
  }
  if (contains(cmd, "--flash-attn")) out.setting("flash_attn", "enabled");
  if (contains(cmd, "--no-mmap")) out.setting("no_mmap", "true");
}

// A field of the runner's load request as Go prints the struct (%+v):
// "Key:value" up to the next space or '['; nullopt when absent.
std::optional<std::string_view> request_field(std::string_view request, std::string_view key) {
  std::optional<std::string_view> rest = after(request, fmt::format(" {}:", key));
  if (!rest) rest = after(request, fmt::format("{{{}:", key));
  if (!rest) return std::nullopt;
  return rest->substr(0, std::min(rest->find(' '), rest->find('[')));
}

// The runner's load request, as its /load handler logs it (runner.go:
// slog.Info("load", "request", req); ollama/ollama llm/server.go,
// LoadRequest), e.g.
//   msg=load request="{Operation:commit LoraPath:[] Parallel:4 BatchSize:512
//     FlashAttention:Enabled KvSize:131072 KvCacheType: NumThreads:6
//     GPULayers:36[ID:GPU-... Layers:36(0..35)] MultiUserCache:false ...}"
// The scheduler's fit and alloc requests precede the commit that loads the
// model: the last commit (or, in a release without operations, the last
// request) is the run's. Both runners take the context from it: the llama
// runner's NewContextParams gives llama.cpp n_ctx = KvSize, n_ubatch =
// BatchSize, n_seq_max = Parallel (llama/llama.go), and Ollama's own engine,
// which prints no llama_context line, allocates its cache of KvSize cells
// for Parallel sequences. Read after llama.cpp's own lines, which win.
void read_load_request(std::string_view request, LogBuilder& out) {
  for (auto [key, name] : {std::pair{"KvSize", "n_ctx"}, {"Parallel", "n_seq_max"}, {"BatchSize", "n_ubatch"}}) {
    if (std::optional<std::string_view> v = request_field(request, key); v && parse_count(*v)) out.setting(name, *v);
  }
  if (std::optional<std::string_view> type = request_field(request, "KvCacheType"); type && !type->empty()) {
    out.setting("cache_type_k", *type);
    out.setting("cache_type_v", *type);
  }
  if (std::optional<std::string_view> fa = request_field(request, "FlashAttention"); fa && !fa->empty()) {
    const std::string value = *fa == "Enabled" || *fa == "true"    ? "enabled"
                              : *fa == "Disabled" || *fa == "false" ? "disabled"
                                                                    : "auto";
    out.setting("flash_attn", value);
  }
  // "UseMmap:false": the runner loads without mmap (the user's use_mmap, or
  // the server's own choice: llm/server.go turns it off on some systems).
  if (request_field(request, "UseMmap") == "false") out.setting("no_mmap", "true");
  // "GPULayers:36[ID:... Layers:36(0..35)]": the layers offloaded, over every GPU.
  if (std::optional<std::string_view> layers = request_field(request, "GPULayers"); layers && parse_count(*layers)) {
    out.setting("n_gpu_layers", *layers);
  }
}

// The buffer a record names: device=CUDA0 (recent), else the buffer type
// (buffer=CUDA0, buffer_type=CUDA_Host) as llama.cpp names it.
std::optional<std::string> record_buffer(std::string_view line) {
  std::optional<std::string> where = slog_field(line, "device");
  if (!where) where = slog_field(line, "buffer");
  if (!where) where = slog_field(line, "buffer_type");
  return where;
}

void read_buffer_record(std::string_view line, const std::string& msg, const LogLine& at,
                        LogBuilder& out) {
  const LogFigure figure = msg == "model weights" ? LogFigure::kModel
                           : msg == "kv cache"    ? LogFigure::kKvCache
                                                  : LogFigure::kCompute;
  const std::optional<std::string> where = record_buffer(line);
  const std::optional<std::string> size = slog_field(line, "size");
  if (!where || !size) return;
  const std::string device = device_of_buffer(*where);
  if (std::optional<PrintedQuantity> q = leading_quantity(*size, binary_units())) {
    out.bytes(device, figure, *q, at.number, Merge::kSum, *where);
  }
}

// A record's backend and runner command (the buffer records are read by
// read_one_load_records).
void read_record(const LogLine& line, LogBuilder& out) {
  const std::optional<std::string> msg = slog_field(line.text, "msg");
  if (!msg) return;
  if (std::optional<std::string> library = slog_field(line.text, "library")) {
    if (*library == "cuda") out.set_backend("CUDA");
    if (*library == "rocm") out.set_backend("ROCm");
    if (*library == "metal") out.set_backend("Metal");
    if (*library == "vulkan") out.set_backend("Vulkan");
  }
  // From v0.30.0 the server starts llama.cpp's own llama-server on a model
  // (llm/llama_server.go: msg="starting llama-server" cmd="... llama-server
  // --model ... -c N -np N --flash-attn auto -b N -ub N"): the run is
  // llama-server's, its flags read by the llama.cpp reader.
  if (*msg == "starting llama-server") out.setting("ollama_runner", "llama-server");
  if (*msg == "starting llama server" || *msg == "starting runner") {
    if (std::optional<std::string> cmd = slog_field(line.text, "cmd")) {
      read_runner_command(*cmd, out);
      // "runner --ollama-engine --model ...": the model loads on Ollama's
      // own engine (the bare "--ollama-engine --port" runners only probe
      // the GPUs); "runner --model ...": on the llama.cpp runner.
      if (contains(*cmd, "--model ")) out.setting("ollama_runner", contains(*cmd, "--ollama-engine") ? "ollama" : "llama");
    }
  }
}

bool is_buffer_record(const std::string& msg) {
  return msg == "model weights" || msg == "kv cache" || msg == "compute graph";
}

// Ollama's own engine logs its buffers once per load, a group of records
// closed by "total memory" (ml/device.go, BackendMemory.Log; backend.go's
// in 0.11), so a log of two loads holds two groups, and adding them would
// price no run. The group read is the run's whose load request is read
// (`request_line`, its line; 0 when none): the first group after it, else
// the first group; a note names the groups left out.
// Before those records (v0.6.0 to v0.10.x) ml/backend/ggml/ggml.go's
// Context.Reserve logged "compute graph" backend=... size=... at every
// reservation of the load, and a load reserves more than once (a vision
// model's image encoder, then the text graph): the scheduler's buffers only
// grow, and Ollama keeps the last ("Reserve may get called multiple times
// for different graphs - we just want the last run, which will contain the
// max allocations", v0.9.6). So a repeated "compute graph" record of a
// device inside an open group replaces the earlier one; a repeated "model
// weights" or "kv cache" record still starts another load's group.
void read_one_load_records(std::span<const LogLine> records, uint64_t request_line, LogBuilder& out) {
  struct Group {
    uint64_t line = 0;  // its first record's
    std::vector<const LogLine*> records;
  };
  std::vector<Group> groups;
  std::vector<std::string> seen;  // "msg/device" of the open group's records
  bool closed = true;
  for (const LogLine& line : records) {
    const std::optional<std::string> msg = slog_field(line.text, "msg");
    if (msg == "total memory") closed = true;
    if (!msg || !is_buffer_record(*msg)) continue;
    const std::optional<std::string> where = record_buffer(line.text);
    const std::string key = *msg + "/" + where.value_or("");
    const bool repeated = std::find(seen.begin(), seen.end(), key) != seen.end();
    if (!closed && repeated && *msg == "compute graph") {
      std::vector<const LogLine*>& open = groups.back().records;
      std::erase_if(open, [&](const LogLine* r) {
        return slog_field(r->text, "msg") == "compute graph" && record_buffer(r->text) == where;
      });
      open.push_back(&line);
      continue;
    }
    if (closed || repeated) {
      groups.push_back(Group{.line = line.number});
      seen.clear();
      closed = false;
    }
    seen.push_back(key);
    groups.back().records.push_back(&line);
  }
  if (groups.empty()) return;
  size_t chosen = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (request_line != 0 && groups[i].line > request_line) {
      chosen = i;
      break;
    }
  }
  for (const LogLine* line : groups[chosen].records) {
    read_buffer_record(line->text, *slog_field(line->text, "msg"), *line, out);
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i == chosen) continue;
    out.note(fmt::format("Ollama's engine logs the buffers of another load at line {}: left out, only "
                         "the records from line {} are read",
                         groups[i].line, groups[chosen].line));
  }
}

// The slog records of `lines`, each whole on one line: a record an author
// wrapped for a page ("time=... level=INFO source=device.go:206" with
// "  msg=\"model weights\" device=ROCm0 size=\"1.1 GiB\"" indented on the
// next line, as a status report pasted them) is joined back, its lines'
// text trimmed and spaced. `storage` owns the joined text the views name.
std::vector<LogLine> joined_records(std::span<const LogLine> lines, std::vector<std::string>& storage) {
  std::vector<std::pair<std::string, uint64_t>> records;
  for (const LogLine& line : lines) {
    const bool continues = !records.empty() && line.text.starts_with("  ") &&
                           !contains(line.text, "time=") && contains(line.text, "=");
    if (continues) {
      records.back().first += " ";
      records.back().first += trim(line.text);
    } else if (contains(line.text, "time=") && contains(line.text, " level=")) {
      records.emplace_back(std::string(line.text), line.number);
    } else if (!trim(line.text).empty() || records.empty()) {
      records.emplace_back(std::string(), line.number);  // ends the record before it
    }
  }
  storage.clear();
  std::vector<uint64_t> numbers;
  for (auto& [text, number] : records) {
    if (text.empty()) continue;
    storage.push_back(std::move(text));
    numbers.push_back(number);
  }
  std::vector<LogLine> out;
  for (size_t i = 0; i < storage.size(); ++i) out.push_back(LogLine{storage[i], numbers[i]});
  return out;
}

// Whether the log starts the llama.cpp runner on a model ("runner --model
// ..." without --ollama-engine, or the older "starting llama server").
bool loads_llama_runner(std::span<const LogLine> lines) {
  for (const LogLine& line : lines) {
    const std::optional<std::string> msg = slog_field(line.text, "msg");
    if (msg != "starting runner" && msg != "starting llama server") continue;
    const std::optional<std::string> cmd = slog_field(line.text, "cmd");
    if (cmd && contains(*cmd, "--model ") && !contains(*cmd, "--ollama-engine")) return true;
  }
  return false;
}

// The server's GPU discovery (discover/types.go's "inference compute"
// record): name=CUDA0 (the ggml device, from 0.12) with total= and
// available=, the memory Ollama's scheduler takes as the GPU's free. It
// gives a GPU the llama.cpp lines or the buffers named its free memory
// and total when they print none; a log that names no GPU otherwise gets
// the device (an own-engine excerpt: the records alone). Its compute= is
// the setting gpu_arch.
void read_inference_compute(std::span<const LogLine> records, LogBuilder& out) {
  const bool any_gpu = std::any_of(out.peek().devices.begin(), out.peek().devices.end(),
                                   [](const LogDevice& d) { return d.id != "CPU" && d.id != "total"; });
  for (const LogLine& line : records) {
    if (slog_field(line.text, "msg") != "inference compute") continue;
    const std::optional<std::string> name = slog_field(line.text, "name");
    const std::optional<std::string> library = slog_field(line.text, "library");
    if (!name || name->empty() || *name == "cpu" || (library && (*library == "cpu" || *library == "CPU"))) continue;
    const bool known = std::any_of(out.peek().devices.begin(), out.peek().devices.end(),
                                   [&](const LogDevice& d) { return d.id == *name; });
    if (!known && any_gpu) continue;
    LogDevice* device = out.device(*name);
    if (device == nullptr) continue;
    if (std::optional<std::string> description = slog_field(line.text, "description");
        description && device->name.empty()) {
      device->name = *description;
    }
    // compute=gfx1102 (a ROCm GPU's ISA, as HIP runs it: an
    // HSA_OVERRIDE_GFX_VERSION shows here) or 8.6 (CUDA's capability):
    // the GPUs' architecture, the first GPU's (Metal's compute=0.0 is none).
    const bool gpu_library = library && (*library == "ROCm" || *library == "rocm" || *library == "CUDA" ||
                                         *library == "cuda");
    if (std::optional<std::string> arch = slog_field(line.text, "compute"); gpu_library && arch && !arch->empty()) {
      out.setting("gpu_arch", *arch);
    }
    for (auto [key, field] : {std::pair{"available", &LogDevice::free_bytes}, {"total", &LogDevice::total_bytes}}) {
      const std::optional<std::string> text = slog_field(line.text, key);
      if (!text || (device->*field).has_value()) continue;
      if (std::optional<PrintedQuantity> q = leading_quantity(*text, binary_units())) device->*field = q->scaled.value;
    }
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
      // "Listening on 127.0.0.1:11434 (version 0.9.6)"; the loader's
      // "(version GGUF V3 (latest))" is the file's.
      std::optional<std::string_view> version = after(line.text, "(version ");
      if (!version || version->starts_with("GGUF")) continue;
      const std::string_view printed = version->substr(0, version->find(')'));
      // "0.0.0" is a build that was not given a release (ollama/ollama
      // version/version.go: var Version string = "0.0.0", set by the release
      // build's -ldflags): it names none, so one given beside the log holds.
      if (printed == "0.0.0") {
        out.note("the server prints version 0.0.0, a build not given its release (version.go's default)");
        continue;
      }
      out.set_version(printed);
    }
    read_llamacpp_lines(lines, out);
    std::vector<std::string> storage;
    const std::vector<LogLine> records = joined_records(lines, storage);
    // `layout_is_estimate`: the log prints the llama.cpp runner's own buffer
    // lines, or loads the llama.cpp runner. For that runner Ollama's layout
    // records (ml/device.go's "model weights", "kv cache", "compute graph")
    // are its plan, not allocations: llm/server.go's llamaServer.Load fills
    // them from the file's tensors and GraphSize's cache and graph (v0.20.2)
    // before the runner starts. Only Ollama's own engine reports its buffers
    // through them.
    const bool layout_is_estimate = any_line_contains(lines, " buffer size = ") || loads_llama_runner(records);
    std::optional<std::string> load_request;
    uint64_t request_line = 0;
    for (const LogLine& line : records) {
      if (contains(line.text, " level=") && contains(line.text, " msg=")) {
        read_record(line, out);
        std::optional<std::string> request = slog_field(line.text, "request");
        if (request && slog_field(line.text, "msg") == "load") {
          const std::optional<std::string_view> op = request_field(*request, "Operation");
          if (!op || *op == "commit") {
            load_request = std::move(request);
            request_line = line.number;
          }
        }
      }
    }
    if (!layout_is_estimate) read_one_load_records(records, request_line, out);
    if (load_request) read_load_request(*load_request, out);
    read_inference_compute(records, out);
    if (layout_is_estimate && any_line_contains(lines, "msg=\"model weights\"")) {
      out.note("Ollama's layout records (msg=\"model weights\", \"kv cache\", \"compute graph\") "
               "are its plan for the llama.cpp runner (llm/server.go Load: the file's tensors, GraphSize's "
               "cache and graph), not allocations: the runner's own lines are read, not them");
    }
    out.settle_gpu_devices();
    out.set_backend("CPU");
    if (any_line_contains(lines, "memory.required.full")) {
      out.note("Ollama's own plan (msg=offload memory.required...) is an estimate, not an "
               "allocation: not read");
    }
  }
};

}  // namespace

const LogReader& ollama_log_reader() {
  static const OllamaReader reader;
  return reader;
}

}  // namespace memfit::logs
