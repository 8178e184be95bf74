// Runtime logs: what an inference runtime printed about one run, read back
// as values (docs/check-log.md). The runtimes memfit reads: llama.cpp (its
// tools and llama-server), Ollama's server (llama.cpp's lines and its own),
// vLLM, SGLang and mlx-lm. A reading holds the runtime and its version, the
// devices, the settings, the model's facts (llama.cpp's metadata dump) and
// every memory figure printed, per device, converted exactly to its unit.
//
// Reading is pure: text in, values out; nothing is opened or allocated
// from a count the text states. check_log (log_check.h) prices the run.
#ifndef MEMFIT_RUNTIME_LOG_H_
#define MEMFIT_RUNTIME_LOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Logs larger than this are refused (64 MiB): a server's start-up log is a
// few hundred KiB; a pasted one a few KiB.
inline constexpr uint64_t kMaxRuntimeLogBytes = 64ull << 20;
// Figures, devices, settings and metadata entries kept per log; what is
// past them is dropped with a note (a real log prints tens of each).
inline constexpr size_t kMaxLogFigures = 4096;
inline constexpr size_t kMaxLogDevices = 64;
inline constexpr size_t kMaxLogSettings = 256;
inline constexpr size_t kMaxLogMetadataEntries = 4096;

// The memory figures a runtime prints (docs/check-log.md has each
// runtime's lines for each).
enum class LogFigure {
  kModel,             // llama.cpp "model buffer size": weights on a device
  kKvCache,           // KV cache buffers
  kRecurrent,         // recurrent state buffers (llama.cpp "RS buffer")
  kContext,           // llama.cpp's memory breakdown: KV + recurrent state of a device
  kOutput,            // llama.cpp's output (logits) buffer
  kCompute,           // the scheduler's compute buffers
  kWeights,           // vLLM / SGLang: the weights one rank loaded
  kKvCacheAvailable,  // vLLM "Available KV cache memory"
  kKvTokens,          // vLLM "GPU KV cache size: N tokens"
  kKvBlocks,          // vLLM "# GPU blocks" / "num_gpu_blocks"
  kConcurrency,       // vLLM "Maximum concurrency for N tokens per request"
  kCudaGraph,         // vLLM / SGLang: the captured graphs' memory
  kPeak,              // mlx-lm "Peak memory"
  kTokenPool,         // SGLang "max_total_num_tokens" / "#tokens"
};
// "model", "kv_cache", "recurrent", "context", "output", "compute", "weights",
// "kv_cache_available", "kv_tokens", "kv_blocks", "concurrency",
// "cuda_graph", "peak", "token_pool".
std::string_view to_string(LogFigure figure);

enum class LogUnit { kBytes, kTokens, kBlocks, kRatio };
std::string_view to_string(LogUnit unit);  // "bytes", "tokens", "blocks", "ratio"
// kv_tokens and token_pool are tokens, kv_blocks blocks, concurrency a
// ratio, every other figure bytes.
LogUnit unit_of(LogFigure figure);

// A decimal number as printed, exactly: "4403.49" is 440349 x 10^-2.
// Digits separators (",", "_") are dropped; a sign or exponent is refused.
struct PrintedDecimal {
  uint64_t digits = 0;
  uint32_t decimals = 0;  // at most 9
  bool operator==(const PrintedDecimal&) const = default;
};
// kInput "'<text>': not a decimal number" otherwise, or when it has more
// than 19 significant digits or 9 decimals.
Result<PrintedDecimal> parse_printed_decimal(std::string_view text);

// A printed quantity in a unit of `unit_scale` bytes (or tokens): the
// nearest whole value, and half the last printed digit's weight (the
// rounding band: the true value lies within value +- band), both rounded
// up to whole units. "4403.49 MiB" with unit_scale 2^20 is 4,617,393,930
// bytes (440349 x 2^20 / 100 = 4,617,393,930.24) +- 5,243 (2^20 / 200 =
// 5,242.88). kOverflow past 2^64.
struct ScaledValue {
  uint64_t value = 0;
  uint64_t band = 0;
};
Result<ScaledValue> scale_printed(const PrintedDecimal& number, uint64_t unit_scale);

// One figure of the log on one device.
struct PrintedFigure {
  // The device as the runtime names it: llama.cpp's backend ("CUDA0",
  // "Vulkan1", "Metal", "CPU" for the host and its pinned buffers), a
  // tensor-parallel rank ("rank0"), or "total" for a figure of the whole run.
  std::string device;
  LogFigure figure = LogFigure::kModel;
  LogUnit unit = LogUnit::kBytes;
  uint64_t value = 0;    // bytes, tokens or blocks (nearest); 0 for a ratio
  uint64_t band = 0;     // +- the rounding of the print, same unit
  double ratio = 0;      // a ratio's value (concurrency); 0 otherwise
  uint64_t unit_scale = 1;  // bytes per printed unit: 2^20 for MiB, 10^9 for GB ...
  uint32_t decimals = 0;    // decimals printed (summed lines: the most)
  std::string text;         // as printed, "4403.49 MiB"; summed lines joined by " + "
  std::vector<std::string> buffers;  // llama.cpp buffer types summed here ("CPU_Mapped")
  uint64_t line = 0;                 // 1-based line of the first line read
};

struct LogDevice {
  std::string id;    // as the figures name it: "CUDA0", "Metal", "rank0"
  std::string name;  // the driver's: "NVIDIA GeForce RTX 4090"; "" when not printed
  std::optional<uint64_t> free_bytes;   // free at load, when printed
  std::optional<uint64_t> total_bytes;  // total, when printed
};

// One setting as the log printed it, with memfit's name for it
// (docs/check-log.md lists them): "n_ctx" -> "4096".
struct LogSetting {
  std::string name;
  std::string value;
};

// What the log says of the model.
struct LogModel {
  std::string name;  // the path or id as printed ("" when none)
  // llama.cpp's metadata dump ("llama_model_loader: - kv N: key type =
  // value"), in order, typed as the dump says. A value the dump cut short
  // (longer than 40 characters: "...") keeps what was printed; an array
  // keeps its element type and count, and its elements only when all were
  // printed. print_info's per-layer lists (n_head, n_head_kv, n_ff) fill a
  // cut per-layer array of the same length.
  std::vector<GgufKeyValue> metadata;
  std::vector<std::string> cut_keys;       // keys whose value the dump cut short
  std::optional<uint64_t> metadata_count;  // "loaded meta data with N key-value pairs"
  std::optional<uint64_t> tensor_count;    // "... and M tensors"
  std::vector<std::pair<std::string, uint64_t>> tensor_types;  // "- type q4_K: 289 tensors"
  // print_info's "file size": the sum of the tensors' bytes, as printed.
  std::optional<ScaledValue> file_bytes;
  std::string file_size_text;  // "4.58 GiB"

  // The dump is whole: as many entries as the loader announced, and as
  // many tensors by type as it holds.
  bool metadata_complete() const;
};

struct RuntimeLog {
  // "llamacpp", "ollama", "vllm", "sglang", "mlx-lm": the reader that
  // recognised the log.
  std::string runtime;
  std::string version;  // "b5361", "0.10.1", "0.9.6"; "" when not printed
  std::string backend;  // "CUDA", "ROCm", "Metal", "Vulkan", "SYCL", "CPU"; "" unknown
  std::vector<LogDevice> devices;  // GPUs in the runtime's order, then the host
  std::vector<LogSetting> settings;
  LogModel model;
  std::vector<PrintedFigure> figures;  // in the order first printed
  // What the reader noticed that a reader of the report must know: a second
  // model load it did not read, figures past the caps, ...
  std::vector<std::string> notes;

  const LogSetting* setting(std::string_view name) const;  // nullptr when not printed
};

// A runtime as prose writes it: "llama.cpp", "Ollama", "vLLM", "SGLang",
// "mlx-lm"; any other name as it is.
std::string_view runtime_title(std::string_view runtime);

// Reads `text`. kInput when it is larger than kMaxRuntimeLogBytes or no
// reader recognises it ("not a log memfit reads: no line of llama.cpp,
// Ollama, vLLM, SGLang or mlx-lm"). Lines may carry any prefix (a
// timestamp, a level, "(VllmWorker rank=1 pid=7)"); "\r\n" ends are read
// as "\n". When one device prints a figure in several buffers (llama.cpp's
// CPU_Mapped and CPU_REPACK on the host) they are summed into one figure,
// exactly (value and band both summed).
Result<RuntimeLog> read_runtime_log(std::string_view text);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_RUNTIME_LOG_H_
