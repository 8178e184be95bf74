// The llama.cpp reader's pieces (docs/check-log.md, "llama.cpp"), each a
// family of lines: the metadata dump (llamacpp_metadata.cc), the buffer
// lines (llamacpp_buffers.cc), the devices and settings
// (llamacpp_reader.cc). Every function takes one line, the text after any
// prefix (a timestamp, "0.00.167.162 I "), and returns whether it read it.
// Private to src/logs.
#ifndef MEMFIT_LOGS_LLAMACPP_LINES_H_
#define MEMFIT_LOGS_LLAMACPP_LINES_H_

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
  std::string gpu_kind;         // "CUDA", "ROCm": the last "found N <kind> devices"
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
// older "llm_load_tensors: <buffer> buffer size = X MiB".
bool read_buffer_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out);
// The cache's own summary lines: types, cells, the total.
bool read_cache_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out);
// After the last line: the summaries as a "total" KV figure when no
// per-buffer line was printed (very old logs).
void add_kv_total(const LlamaCppReadState& state, LogBuilder& out);

// llama.cpp's memory breakdown rows (llamacpp_breakdown.cc): model,
// context and compute per device, whole MiB.
bool read_breakdown_line(const LogLine& line, LogBuilder& out);

// The host's device for a buffer type: CPU, CPU_Mapped, CPU_REPACK, AMX,
// CUDA_Host, ... are "CPU"; a "_Mapped" suffix names its device's mapped
// weights ("Metal_Mapped" is "Metal"); any other name is its device.
std::string device_of_buffer(std::string_view buffer);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LLAMACPP_LINES_H_
