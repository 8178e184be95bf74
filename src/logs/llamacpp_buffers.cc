// llama.cpp's buffer lines: one per buffer type and category, the size as
// bytes / 2^20 with two decimals (docs/llamacpp-rules.md, "Log lines"):
//   load_tensors:        CUDA0 model buffer size =  4403.49 MiB
//   llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB
//   llama_memory_recurrent:  CPU RS buffer size =  0.38 MiB
//   llama_context:  CUDA_Host  output buffer size =     0.49 MiB
//   sched_reserve:      CUDA0 compute buffer size =   560.00 MiB
// and, before the categories were named (to about b4400),
//   llm_load_tensors:      CUDA0 buffer size =  4403.49 MiB
// (ggml-sycl's buffers of early 2024 print an empty name:
//   llm_load_tensors:            buffer size =   601.02 MiB
//   llama_kv_cache_init:            KV buffer size =    11.00 MiB)
// The cache's summary lines carry the K and V types:
//   llama_kv_cache: size = 512.00 MiB (4096 cells, 32 layers, 1/1 seqs), K (f16): 256.00 MiB, V (f16): 256.00 MiB
//   llama_new_context_with_model: KV self size  = 512.00 MiB, K (f16): 256.00 MiB, V (f16): 256.00 MiB
//   llama_kv_cache_init: kv_size = 4096, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 32
#include <algorithm>
#include <string>
#include <vector>

#include "logs/llamacpp_lines.h"

namespace memfit::logs {
namespace {

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  while (!(text = trim(text)).empty()) {
    const size_t end = text.find(' ');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end);
  }
  return out;
}

struct BufferKind {
  std::string_view word;
  LogFigure figure;
  bool context;  // printed by a llama_context: read for the first context only
};
constexpr BufferKind kKinds[] = {{"model", LogFigure::kModel, false},
                                 {"KV", LogFigure::kKvCache, true},
                                 {"RS", LogFigure::kRecurrent, true},
                                 {"output", LogFigure::kOutput, true},
                                 {"compute", LogFigure::kCompute, true}};

// The type after "<letter> (" in "K (f16): 256.00 MiB".
std::optional<std::string_view> cache_type(std::string_view line, std::string_view marker) {
  std::optional<std::string_view> rest = after(line, marker);
  if (!rest) return std::nullopt;
  const size_t close = rest->find(')');
  if (close == std::string_view::npos) return std::nullopt;
  return rest->substr(0, close);
}

// The value of "name = 'value'" (quotes dropped) in an old kv_size line.
std::optional<std::string_view> quoted_field(std::string_view line, std::string_view name) {
  std::optional<std::string_view> rest = after(line, name);
  if (!rest) return std::nullopt;
  std::string_view value = rest->substr(0, rest->find(','));
  value = trim(value);
  if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
    value = value.substr(1, value.size() - 2);
  }
  return value;
}

// The cache's shape in its summary, "(4096 cells, 32 layers, 1/1 seqs)":
// the cells (kv_cells) and the sequences (kv_seqs) of the first cache, the
// context the pricer takes when the excerpt holds no n_ctx line, and
// whether the cache is unified (kv_unified; llama_context's line wins).
void read_cache_shape(std::string_view text, LogBuilder& out) {
  const size_t open = text.find('(');
  const size_t close = text.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return;
  const std::vector<std::string_view> parts = words(text.substr(open + 1, close - open - 1));
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string_view what = parts[i + 1];
    if ((what == "cells," || what == "cells") && parse_count(parts[i])) {
      out.setting("kv_cells", parts[i]);
    } else if ((what == "layers," || what == "layers") && parse_count(parts[i])) {
      out.setting("kv_layers", parts[i]);
    } else if (what == "seqs," || what == "seqs") {
      // "4/1 seqs": n_seq_max / the cache's streams; one stream for more
      // than one sequence is the unified cache.
      const size_t slash = parts[i].find('/');
      const std::string_view seqs = parts[i].substr(0, slash);
      const std::optional<uint64_t> n_seq = parse_count(seqs);
      if (n_seq) out.setting("kv_seqs", seqs);
      // "1 seqs", no streams: a dated line form (llamacpp_pricer.cc,
      // kDatedLineForms), the builds before the streams of #14363 ("1/ 1
      // seqs", two words, is theirs).
      const bool after_slash = i > 0 && parts[i - 1].ends_with('/');
      if (n_seq && slash == std::string_view::npos && !after_slash) {
        out.setting("form_kv_seqs_without_streams", "true");
      }
      if (slash == std::string_view::npos) continue;
      const std::string_view streams = parts[i].substr(slash + 1);
      const std::optional<uint64_t> n_streams = parse_count(streams);
      if (n_streams) out.setting("kv_streams", streams);
      if (n_seq && *n_seq > 1 && n_streams == 1u) out.setting("kv_unified", "true");
    }
  }
}

// What follows "size =" in a summary, the "=" after any spaces ("KV self
// size  = 3937.50 MiB" prints two); nullopt when no "size" is followed by one.
std::optional<std::string_view> after_size_equals(std::string_view text) {
  for (size_t at = text.find("size"); at != std::string_view::npos; at = text.find("size", at + 4)) {
    const std::string_view rest = trim(text.substr(at + 4));
    if (rest.starts_with('=')) return rest.substr(1);
  }
  return std::nullopt;
}

// Whether the line is the multimodal projector's: mtmd's clip context
// reserves its own scheduler for the vision/audio encoder and prints its
// compute buffers in llama_context's format under its own function name
// (tools/mtmd/clip.cpp, clip_model_loader::alloc_compute_meta: "%s: %10s
// compute buffer size = %8.2f MiB"), after the text model's context, with
// no "n_ctx =" line of its own; those buffers are not the run's llama_context's.
bool printed_by_mtmd(const std::vector<std::string_view>& before) {
  // The function's word follows any timestamp and level a capture prefixes.
  return std::find(before.begin(), before.end(), "alloc_compute_meta:") != before.end();
}

// The Vulkan device a buffer named by the device's own name is on: the
// Vulkan backend of mid-2024 named its buffer type by the device's name
// ("llm_load_tensors: Intel(R) Arc(tm) A770 Graphics (DG2) buffer size =
// 3820.93 MiB") where other builds print "Vulkan0". The name is every word
// between the function's ("llm_load_tensors:") and the buffer's kind; it
// is the device whose listing ("Vulkan0: Intel(R) Arc(tm) A770 Graphics
// (DG2) (Intel open-source Mesa driver) | uma: 0 | ...", read by
// read_device_listing) starts with it. A one-word name is left to
// device_of_buffer.
std::optional<std::string> vulkan_device_named(const std::vector<std::string_view>& before, size_t buffer_at,
                                               size_t& function_at, const LogBuilder& out) {
  size_t f = buffer_at;
  while (f > 0 && !before[f - 1].ends_with(':')) --f;
  if (f == 0 || buffer_at - f < 1) return std::nullopt;  // no function word, or a one-word name
  std::string name;
  for (size_t i = f; i <= buffer_at; ++i) {
    if (!name.empty()) name += ' ';
    name += before[i];
  }
  for (const LogDevice& d : out.peek().devices) {
    if (!d.id.starts_with("Vulkan") || !d.name.starts_with(name)) continue;
    if (d.name.size() == name.size() || d.name[name.size()] == ' ') {
      function_at = f - 1;
      return d.id;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string device_of_buffer(std::string_view buffer) {
  if (buffer.starts_with("CPU") || buffer.ends_with("_Host") || buffer == "AMX") return "CPU";
  if (buffer.ends_with("_Mapped")) buffer.remove_suffix(7);
  if (buffer.ends_with("_Split")) {
    // "CUDA0_Split": CUDA0's share of the row-split matrices; "CUDA_Split"
    // (older builds) names no device and stays as it is.
    const std::string_view device = buffer.substr(0, buffer.size() - 6);
    if (!device.empty() && device.back() >= '0' && device.back() <= '9') buffer = device;
  }
  return std::string(buffer);
}

bool read_buffer_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out) {
  // "CUDA_Host input buffer size   =    13.02 MiB": releases of early 2024
  // kept the graph's inputs in a buffer of their own, out of the compute
  // buffers; not a figure memfit prices, but it changes what they hold.
  if (contains(line.text, " input buffer size")) {
    out.setting("input_buffer", "separate");
    return true;
  }
  const size_t at = line.text.find(" buffer size =");
  if (at == std::string_view::npos) return false;
  const std::vector<std::string_view> before = words(line.text.substr(0, at));
  if (before.empty()) return true;
  const BufferKind* kind = nullptr;
  for (const BufferKind& k : kKinds) {
    if (before.back() == k.word) kind = &k;
  }
  const bool old_model_line = kind == nullptr && contains(line.text, "load_tensors:");
  if (kind == nullptr && !old_model_line) return true;  // "input buffer", ...
  if (!old_model_line && before.size() < 2) return true;
  const size_t buffer_at = before.size() - (old_model_line ? 1 : 2);
  std::string_view buffer = before[buffer_at];
  const bool unnamed = buffer.ends_with(':');
  std::string device;
  size_t named_function_at = 0;
  const std::optional<std::string> named =
      unnamed ? std::nullopt : vulkan_device_named(before, buffer_at, named_function_at, out);
  if (named) {
    device = *named;
  } else if (unnamed) {
    // No buffer named, the function's word in its place:
    // "llm_load_tensors:            buffer size =   601.02 MiB". ggml-sycl
    // of early 2024 (b2134, ggml-org/llama.cpp#5469) never set the name
    // its buffers report: ggml_backend_sycl_buffer_context's constructor
    // took the device and the pointer only, and
    // ggml_backend_sycl_buffer_get_name returned the empty name (later
    // builds set it to GGML_SYCL_NAME + the device, "SYCL0"). Such a
    // line is the SYCL main device's; on any other log it names nothing.
    if (state.gpu_kind != "SYCL" || !state.sycl_main_device) return true;
    device = "SYCL" + std::to_string(*state.sycl_main_device);
    buffer = {};
  } else {
    device = device_of_buffer(buffer);
  }
  if (kind != nullptr && kind->context && state.contexts > 1) return true;
  if (printed_by_mtmd(before)) return true;
  std::optional<PrintedQuantity> q =
      leading_quantity(line.text.substr(at + 14), binary_units());
  if (!q) return true;
  const LogFigure figure = kind != nullptr ? kind->figure : LogFigure::kModel;
  if (figure == LogFigure::kKvCache) state.kv_buffer_lines = true;
  // The function that printed the first compute buffer line: its name
  // dates a log that prints no build (log_pricer.h, build_bound).
  // Its word is the one before the buffer's name, or in its place.
  const bool has_function = unnamed || buffer_at >= 1;
  const size_t function_at = named     ? named_function_at
                             : unnamed ? buffer_at
                                       : buffer_at - (buffer_at >= 1 ? 1 : 0);
  if (figure == LogFigure::kCompute && has_function && before[function_at].ends_with(':')) {
    const std::string_view function = before[function_at];
    out.setting("compute_function", function.substr(0, function.size() - 1));
  }
  if (buffer.ends_with("_Split")) out.setting("split_mode", "row");
  out.bytes(device, figure, *q, line.number, Merge::kSum, buffer);
  return true;
}

bool read_cache_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out) {
  const std::string_view text = line.text;
  if (contains(text, "using full-size SWA cache")) {
    out.setting("swa_full", "true");
    return true;
  }
  const bool summary = contains(text, "KV self size") ||
                       (contains(text, "llama_kv_cache") && contains(text, ": size = "));
  const bool old_init = contains(text, "kv_size = ") && contains(text, "type_k");
  if (!summary && !old_init) return false;
  if (state.contexts > 1) return true;
  if (old_init) {
    if (auto k = quoted_field(text, "type_k =")) out.setting("cache_type_k", *k);
    if (auto v = quoted_field(text, "type_v =")) out.setting("cache_type_v", *v);
    if (auto offload = quoted_field(text, "offload =")) {
      out.setting("kv_offload", *offload == "0" ? "false" : "true");
    }
    // The cells of the one cache those releases kept for every sequence.
    if (auto cells = quoted_field(text, "kv_size ="); cells && parse_count(*cells)) {
      out.setting("kv_size", *cells);
    }
    // Whether the cache could shift (llama_kv_cache::get_can_shift): 0 for
    // deepseek2 from #8501 until MLA (#12801), logs/pre_mla_config.h.
    if (auto shift = quoted_field(text, "can_shift ="); shift && (*shift == "0" || *shift == "1")) {
      out.setting("can_shift", *shift);
    }
    return true;
  }
  if (auto k = cache_type(text, " K (")) out.setting("cache_type_k", *k);
  if (auto v = cache_type(text, " V (")) out.setting("cache_type_v", *v);
  // "K (f16): 46848.00 MiB": the K cache's bytes, whose row per cell and
  // layer says what the cache keeps (an MLA latent or full K).
  if (auto k = after(text, " K (")) {
    if (auto colon = after(*k, "): ")) {
      if (std::optional<PrintedQuantity> q = leading_quantity(*colon, binary_units())) {
        out.setting("kv_k_bytes", std::to_string(q->scaled.value));
      }
    }
  }
  // "V (f16): 976.00 MiB": the V cache's bytes; an MLA cache printing
  // any kept a V tensor beside its latent (the builds before #19067).
  if (auto v = after(text, " V (")) {
    if (auto colon = after(*v, "): ")) {
      if (std::optional<PrintedQuantity> q = leading_quantity(*colon, binary_units())) {
        out.setting("kv_v_bytes", std::to_string(q->scaled.value));
      }
    }
  }
  read_cache_shape(text, out);
  if (std::optional<std::string_view> size = after_size_equals(text)) {
    if (std::optional<PrintedQuantity> q = leading_quantity(*size, binary_units())) {
      state.kv_summaries.emplace_back(*q, line.number);
    }
  }
  return true;
}

void add_kv_total(const LlamaCppReadState& state, LogBuilder& out) {
  if (state.kv_buffer_lines) return;
  for (const auto& [q, number] : state.kv_summaries) {
    out.bytes("total", LogFigure::kKvCache, q, number, Merge::kSum);
  }
}

}  // namespace memfit::logs
