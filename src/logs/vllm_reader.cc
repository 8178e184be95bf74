// The vLLM reader (docs/check-log.md, "vLLM"). Lines are Python logging
// records, "INFO 08-05 10:13:06 [gpu_model_runner.py:1892] ...", a
// worker's prefixed with "(VllmWorker rank=1 pid=7)" or "(Worker_TP1
// pid=7)". Sizes are bytes / 2^30 whether the unit reads "GiB" or, before
// about v0.7, "GB": "Loading model weights took %.4f GB" divided by
// float(2**30) (vllm/worker/model_runner.py). The figures:
//   Model loading took 15.2683 GiB and 5.04 seconds        weights, per rank
//   Loading model weights took 14.9888 GB                   weights (V0)
//   Available KV cache memory: 53.05 GiB                    kv_cache_available
//   the rest of the memory reserved for KV Cache is 54.73GiB   (V0)
//   GPU KV cache size: 386,320 tokens                       kv_tokens
//   # GPU blocks: 27423, # CPU blocks: 2048                 kv_blocks (V0)
//   Maximum concurrency for 8,192 tokens per request: 47.16x   concurrency
//   Graph capturing finished in 15 secs, took 0.61 GiB      cuda_graph
#include <fmt/format.h>

#include "logs/log_reader.h"
#include "logs/python_literals.h"

namespace memfit::logs {
namespace {

std::span<const UnitMeaning> vllm_units() {
  static constexpr UnitMeaning kUnits[] = {{"GiB", kGiB}, {"GB", kGiB}, {"MiB", kMiB}};
  return kUnits;
}

// The rank a worker's record names; 0 for the engine's own records.
std::string rank_of(std::string_view line) {
  std::optional<uint64_t> rank;
  if (std::optional<std::string_view> r = after(line, " rank=")) rank = leading_count(*r);
  if (!rank) {
    if (std::optional<std::string_view> tp = after(line, "_TP")) rank = leading_count(*tp);
  }
  if (!rank) {
    if (std::optional<std::string_view> tp = after(line, "Worker TP")) rank = leading_count(*tp);
  }
  return fmt::format("rank{}", rank.value_or(0));
}

// The engine's settings from its config line ("with config: model='...',
// dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, ...")
// and the "non-default args: {...}" dict, by vLLM's names.
void read_settings(std::span<const std::pair<std::string, std::string>> pairs, LogBuilder& out) {
  for (const auto& [key, value] : pairs) {
    const std::string name = key == "max_seq_len" ? "max_model_len"
                             : key == "tensor_parallel_size" ? "tensor_parallel"
                             : key == "pipeline_parallel_size" ? "pipeline_parallel"
                                                               : key;
    for (std::string_view known : {"model", "dtype", "max_model_len", "tensor_parallel",
                                   "pipeline_parallel", "quantization", "enforce_eager",
                                   "kv_cache_dtype", "gpu_memory_utilization", "block_size",
                                   "max_num_seqs", "max_num_batched_tokens"}) {
      if (name == known) out.setting(name, value);
    }
  }
}

void read_sizes(const LogLine& line, LogBuilder& out) {
  const std::string rank = rank_of(line.text);
  const auto size_after = [&](std::string_view marker, LogFigure figure) {
    std::optional<std::string_view> rest = after(line.text, marker);
    if (!rest) return false;
    if (std::optional<PrintedQuantity> q = leading_quantity(*rest, vllm_units())) {
      out.bytes(rank, figure, *q, line.number, Merge::kFirst);
    }
    return true;
  };
  if (size_after("Model loading took ", LogFigure::kWeights) ||
      size_after("Loading model weights took ", LogFigure::kWeights) ||
      size_after("Available KV cache memory: ", LogFigure::kKvCacheAvailable) ||
      size_after("reserved for KV Cache is ", LogFigure::kKvCacheAvailable)) {
    return;
  }
  if (contains(line.text, "Graph capturing finished")) size_after(", took ", LogFigure::kCudaGraph);
  if (std::optional<std::string_view> total = after(line.text, "total_gpu_memory (")) {
    if (std::optional<PrintedQuantity> q = leading_quantity(*total, vllm_units())) {
      if (LogDevice* d = out.device(rank); d != nullptr && !d->total_bytes) d->total_bytes = q->scaled.value;
    }
    if (std::optional<std::string_view> u = after(*total, "gpu_memory_utilization (")) {
      out.setting("gpu_memory_utilization", u->substr(0, u->find(')')));
    }
  }
}

void read_capacity(const LogLine& line, LogBuilder& out) {
  const std::string_view text = line.text;
  if (std::optional<std::string_view> tokens = after(text, "GPU KV cache size: ")) {
    if (std::optional<uint64_t> n = leading_count(*tokens)) {
      out.count("total", LogFigure::kKvTokens, *n, trim(*tokens), line.number);
    }
  }
  for (std::string_view marker : {"# GPU blocks: ", "# CUDA blocks: ", "num_gpu_blocks is: "}) {
    std::optional<std::string_view> blocks = after(text, marker);
    if (!blocks) continue;
    if (std::optional<uint64_t> n = leading_count(*blocks)) {
      out.count("total", LogFigure::kKvBlocks, *n, blocks->substr(0, blocks->find(',')), line.number);
    }
  }
  std::optional<std::string_view> concurrency = after(text, "Maximum concurrency for ");
  if (!concurrency) return;
  if (std::optional<uint64_t> len = leading_count(*concurrency)) {
    out.setting("max_model_len", std::to_string(*len));
  }
  std::optional<std::string_view> value = after(*concurrency, "per request: ");
  if (!value) return;
  if (auto number = leading_decimal(*value)) {
    out.ratio("total", LogFigure::kConcurrency, number->first, trim(*value), line.number);
  }
}

void read_line(const LogLine& line, LogBuilder& out) {
  const std::string_view text = line.text;
  if (auto v = after(text, "vLLM API server version ")) out.set_version(v->substr(0, v->find(' ')));
  if (auto v = after(text, " LLM engine (v")) out.set_version(v->substr(0, v->find(')')));
  if (auto platform = after(text, "Automatically detected platform ")) {
    const std::string_view name = trim(platform->substr(0, platform->find('.')));
    out.set_backend(name == "cuda" ? "CUDA" : name == "rocm" ? "ROCm" : name);
  }
  if (auto config = after(text, " with config: ")) read_settings(python_keyword_pairs(*config), out);
  if (auto args = after(text, "non-default args: ")) read_settings(python_dict_pairs(*args), out);
  if (auto len = after(text, "Using max model len ")) out.setting("max_model_len", trim(*len));
  read_sizes(line, out);
  read_capacity(line, out);
}

class VllmReader final : public LogReader {
 public:
  std::string_view runtime() const override { return "vllm"; }
  bool recognises(std::span<const LogLine> lines) const override {
    for (std::string_view marker : {"vLLM API server version", "LLM engine (v", "Model loading took",
                                    "Loading model weights took", "GPU KV cache size:",
                                    "# GPU blocks:", "# CUDA blocks:"}) {
      if (any_line_contains(lines, marker)) return true;
    }
    return false;
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    for (const LogLine& line : lines) read_line(line, out);
    if (const LogSetting* model = out.find_setting("model")) out.model().name = model->value;
  }
};

}  // namespace

const LogReader& vllm_log_reader() {
  static const VllmReader reader;
  return reader;
}

}  // namespace memfit::logs
