// The llama.cpp reader's pieces (docs/check-log.md, "llama.cpp"), each a
// family of lines: the metadata dump (llamacpp_metadata.cc), the buffer
// lines (llamacpp_buffers.cc), the devices and settings
// (llamacpp_reader.cc). Every function takes one line, the text after any
// prefix (a timestamp, "0.00.167.162 I "), and returns whether it read it.
// Private to src/logs.
#ifndef MEMFIT_LOGS_LLAMACPP_LINES_H_
#define MEMFIT_LOGS_LLAMACPP_LINES_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logs/log_builder.h"
#include "logs/log_text.h"

namespace memfit::logs {

// What the reader carries from line to line.
struct LlamaCppReadState {
  uint64_t contexts = 0;        // "n_ctx =" lines: llama_context constructions
  bool context_noted = false;   // the note about a second context was given
  std::string gpu_kind;         // "CUDA", "ROCm", "SYCL": the last "found N <kind> devices"
  // ggml-sycl's main device of early 2024, "Using device 0 (Intel(R) Arc(TM)
  // A750 Graphics) as main device": the device its unnamed buffers are on.
  std::optional<uint64_t> sycl_main_device;
  // print_info's "name = value" pairs, for the per-layer lists the dump
  // cut short (n_head, n_head_kv, n_ff; n_embd_k_gqa for a window pattern).
  std::vector<std::pair<std::string, std::string>> print_info;
  // --fit's trials print a memory breakdown each: not the run's.
  bool fit_trials = false;
  bool kv_buffer_lines = false;  // per-buffer "KV buffer size" lines seen
  // The cache summaries ("llama_kv_cache: size = ..." / "KV self size"),
  // kept for logs that print no per-buffer line.
  std::vector<std::pair<PrintedQuantity, uint64_t>> kv_summaries;
  // A shell command continued over lines ("... \\" at a line's end), the
  // lines so far joined by spaces; read as one line at the line that ends it.
  std::string continued_command;
  // --fit's placement (llamacpp_fit.cc): what each device's last
  // "N layers (M overflowing)" line decided, in device order.
  struct FitDevice {
    std::string name;          // "CUDA0"
    uint64_t layers = 0;       // n_layer: the device's layers, the output among them on the last
    uint64_t overflowing = 0;  // n_part: its layers whose FFN weights overflow
  };
  std::vector<FitDevice> fit_devices;
  bool fit_overflow_form = false;  // the devices were read from the "(M overflowing)" form
  // The first overflowing layer's fraction per device id, from the debug
  // "set ngl_per_device[i].(n_layer, n_part, overflow_type)=(.., .., T)"
  // lines: "UP", "GATE", "ATTN"; "" for the default (its experts).
  std::vector<std::string> fit_first_fraction;
  bool fit_succeeded = false;            // "successfully fit params to free device memory"
  std::optional<uint64_t> fit_ctx;       // "context size reduced from A to B": B
};

// The lines of the one model load a log is read for (llamacpp_loads.cc):
// the first that built its context, with every line that belongs to no
// load; a note for each load left out. The views are into `lines`.
std::vector<LogLine> lines_of_one_load(std::span<const LogLine> lines, LogBuilder& out);

// "llama_model_loader: - kv N: key type = value", "- type t: N tensors",
// "loaded meta data with N key-value pairs and M tensors from PATH".
bool read_metadata_line(const LogLine& line, LogBuilder& out);
// A GGUF number or bool's bytes as a file stores it, little-endian at its
// type's width, appended to `bytes` (a kept array's number_bytes).
void append_gguf_number(const GgufValue& v, std::string& bytes);

// print_info's (llm_load_print_meta's) lines (llamacpp_print_info.cc): the file size, and the pairs
// kept in `state`.
bool read_print_info_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out);
// After the last line: a cut per-layer array filled from print_info's list
// of the same values (runtime_log.h, LogModel::metadata).
void fill_cut_arrays(const LlamaCppReadState& state, LogBuilder& out);

// "<buffer> model|KV|RS|output|compute buffer size = X MiB", and the
// older "llm_load_tensors: <buffer> buffer size = X MiB"; a line with no
// buffer named is the SYCL main device's in a SYCL log of early 2024
// (state.sycl_main_device), and read for no device elsewhere.
bool read_buffer_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out);
// The cache's own summary lines: types, cells, the total.
bool read_cache_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out);
// After the last line: the summaries as a "total" KV figure when no
// per-buffer line was printed (very old logs).
void add_kv_total(const LlamaCppReadState& state, LogBuilder& out);

// --fit's lines (llamacpp_fit.cc): the layers each device took and how
// many overflow, the context it set, whether it succeeded.
bool read_fit_line(std::string_view text, LlamaCppReadState& state);
// After the last line: the fit's overflowing layers as the tensor
// overrides it set (setting "override_tensor"), its split over several
// devices ("tensor_split") and the context it set when the log prints
// none ("n_ctx"), for a fit that succeeded.
void add_fit_placement(const LlamaCppReadState& state, LogBuilder& out);

// llama.cpp's memory breakdown rows (llamacpp_breakdown.cc): model,
// context and compute per device, whole MiB.
bool read_breakdown_line(const LogLine& line, LogBuilder& out);

// The host's device for a buffer type: CPU, CPU_Mapped, CPU_REPACK, AMX,
// CUDA_Host, ... are "CPU"; a "_Mapped" suffix names its device's mapped
// weights ("Metal_Mapped" is "Metal"); any other name is its device.
std::string device_of_buffer(std::string_view buffer);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LLAMACPP_LINES_H_
