// The llama.cpp reader (docs/check-log.md, "llama.cpp"): the build, the
// devices, the context's settings, the metadata dump and the buffers of
// the first model load and the first context. The lines are matched by
// the function name that starts them (docs/llamacpp-rules.md, "Log
// lines"), wherever a line's prefix (timestamps, levels) puts it.
#include <fmt/format.h>

#include <vector>

#include "logs/command_line.h"
#include "logs/decimal_comma.h"
#include "logs/llamacpp_lines.h"
#include "logs/log_reader.h"

namespace memfit::logs {
namespace {

// The most of a continued command kept (bytes): a command is a few hundred;
// a log's text is untrusted.
constexpr size_t kMaxContinuedCommand = 64 * 1024;

// llama-server's own "build info" line of 2024 (examples/server's
// LOG_INFO("build info", {{"build", LLAMA_BUILD_NUMBER}, {"commit",
// LLAMA_COMMIT}})), in its text form ("INFO [ main] build info |
// tid=\"...\" timestamp=... build=3411 commit=\"e02b597b\"",
// ggml-org/llama.cpp#8551) or its JSON form
// ({"msg":"build info","build":2859,"commit":"7bd4ffb7"}, #8616): the
// build number; nullopt for any other line.
std::optional<uint64_t> server_build_info(std::string_view text) {
  if (!contains(text, "build info")) return std::nullopt;
  for (std::string_view marker : {" build=", "\"build\":"}) {
    std::optional<std::string_view> rest = after(text, marker);
    if (!rest) continue;
    const std::optional<uint64_t> number = leading_count(*rest);
    const std::string_view tail = number ? rest->substr(std::to_string(*number).size()) : std::string_view{};
    if (number && (tail.starts_with(" commit=") || tail.starts_with(",\"commit\":"))) return number;
  }
  return std::nullopt;
}

// "build: 5361 (cf0a43bb) with cc ..." (tools, server), "main: build =
// 3600 (2fb92678)" (older tools), "version: 5361 (cf0a43bb)" (--version),
// llama-server's "build info" line of 2024 (server_build_info), and the
// 2026 servers' "build_info: b8836-83d58e02f" (common's build_info string,
// "b" + LLAMA_BUILD_NUMBER + "-" + LLAMA_COMMIT, the one build line
// llama-server b8680 to b9090 prints).
void read_build(std::string_view text, LogBuilder& out) {
  // Ollama's old runner (its ext_server, llama.cpp's server) prints the line
  // too, with the build it vendors: Ollama's own version prices that log.
  if (std::optional<uint64_t> number = server_build_info(text)) {
    if (out.peek().runtime == "llamacpp") out.set_version(fmt::format("b{}", *number));
    return;
  }
  if (std::optional<std::string_view> rest = after(text, "build_info: b")) {
    const std::optional<uint64_t> number = leading_count(*rest);
    if (number && rest->substr(std::to_string(*number).size()).starts_with('-')) {
      out.set_version(fmt::format("b{}", *number));
    }
    return;
  }
  for (std::string_view marker : {"build: ", "build = ", "version: ", "print_info: build "}) {
    std::optional<std::string_view> rest = after(text, marker);
    if (!rest) continue;
    const std::optional<uint64_t> number = leading_count(*rest);
    if (number && contains(*rest, " (")) out.set_version(fmt::format("b{}", *number));
    return;
  }
}

// The text inside the parentheses that open `text` ("(NVIDIA ...) - 23008
// MiB free"), nested ones kept; "" when it does not open with one.
std::string_view parenthesised(std::string_view text, std::string_view& rest) {
  if (!text.starts_with('(')) return {};
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0) {
      rest = text.substr(i + 1);
      return text.substr(1, i - 1);
    }
  }
  return {};
}

// "using device CUDA0 (NVIDIA GeForce RTX 4090) (0000:01:00.0) - 23008
// MiB free", llama_model_load_from_file_impl's (llama_prepare_model_devices').
void read_using_device(std::string_view rest, LogBuilder& out) {
  const size_t space = rest.find(' ');
  if (space == std::string_view::npos) return;
  const std::string_view id = rest.substr(0, space);
  std::string_view tail;
  const std::string_view name = parenthesised(trim(rest.substr(space)), tail);
  LogDevice* device = out.device(id);
  if (device == nullptr) return;
  // The model's devices, one line each (llama_model_load_from_file_impl):
  // "model_devices" lists them, comma-joined, for the pricer's placement.
  const LogSetting* used = out.find_setting("model_devices");
  if (used == nullptr) {
    out.setting("model_devices", id);
  } else if (!comma_list_has(used->value, id)) {
    out.setting("model_devices", fmt::format("{},{}", used->value, id), true);
  }
  if (device->name.empty()) device->name = std::string(name);
  if (std::optional<std::string_view> free = after(tail, " - ")) {
    if (std::optional<PrintedQuantity> q = leading_quantity(*free, binary_units())) {
      if (!device->free_bytes) device->free_bytes = q->scaled.value;
    }
  }
}

// ggml-metal's "GPU name:" line. Builds with one ggml device per Metal
// GPU name the device "MTL<index>" and print it before the GPU's own name
// (ggml-metal-device.m, ggml_metal_device_init: props.name is "%s%d" of
// "MTL" and the device's index, props.desc the MTLDevice's name: "GPU
// name:   MTL0 (Apple M5 Pro)", or "MTL0" alone in the first such
// builds); their buffers are "MTL0", "MTL0_Mapped". Older builds print
// the MTLDevice's name alone ("GPU name:   Apple M2 Pro") and name their
// one device and its buffers "Metal". One GPU either way: the listing
// names the device its buffer lines name, never a second one.
void read_metal_gpu_name(std::string_view printed, LogBuilder& out) {
  std::string_view id = printed.substr(0, printed.find(' '));
  const bool indexed = id.size() > 3 && id.starts_with("MTL") && parse_count(id.substr(3)).has_value();
  std::string_view name = printed;
  if (indexed) {
    std::string_view tail;
    name = parenthesised(trim(printed.substr(id.size())), tail);
  } else {
    id = "Metal";
  }
  LogDevice* d = out.device(id);
  if (d != nullptr && !name.empty()) d->name = std::string(trim(name));
}

// The largest global memory a SYCL table row is read with (decimal MB):
// 10^12 MB is an exabyte, beyond any device; a log's text is untrusted.
constexpr uint64_t kMaxSyclTableMegabytes = 1000ULL * 1000 * 1000 * 1000;

// ggml-sycl's device table (ggml_backend_sycl_print_sycl_devices, a row a
// device from print_device_detail), e.g.
// "| 0| [level_zero:gpu:0]|   Intel Arc A770 Graphics|    1.3|    512|    1024|   32| 16225M|   1.3.26241|":
// ID, device type in brackets, name, version, compute units, work group,
// sub group, global memory as `global_mem_size / 1000000` ("%6luM",
// decimal MB, truncated) and the driver. Row ID i is the backend's SYCL<i>.
// Kept: the name and the global memory as the device's total (the pricer
// splits the layers by it where no free memory is printed:
// llamacpp_pricer.cc, split_memory). False when the line is no such row.
bool read_sycl_device_row(std::string_view text, LogBuilder& out) {
  std::string_view rest = trim(text);
  if (!rest.starts_with('|')) return false;
  std::vector<std::string_view> fields;
  while (!rest.empty() && fields.size() < 12) {
    rest.remove_prefix(1);  // the '|' before the field
    const size_t bar = rest.find('|');
    if (bar == std::string_view::npos) break;
    fields.push_back(trim(rest.substr(0, bar)));
    rest = rest.substr(bar);
  }
  if (fields.size() < 9) return false;
  const std::optional<uint64_t> index = parse_count(fields[0]);
  if (!index || !fields[1].starts_with('[') || !fields[1].ends_with(']')) return false;
  std::optional<uint64_t> megabytes;
  for (size_t i = 3; i < fields.size() && !megabytes; ++i) {
    if (fields[i].size() > 1 && fields[i].ends_with('M')) megabytes = parse_count(fields[i].substr(0, fields[i].size() - 1));
  }
  if (!megabytes || *megabytes > kMaxSyclTableMegabytes) return false;
  LogDevice* d = out.device(fmt::format("SYCL{}", *index));
  if (d == nullptr) return true;
  if (d->name.empty()) d->name = std::string(fields[2]);
  if (!d->total_bytes) d->total_bytes = *megabytes * 1000 * 1000;
  return true;
}

// ggml's device listings: "ggml_cuda_init: found 2 ROCm devices:" then
// "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 ..."; "ggml_vulkan: 0 =
// NVIDIA GeForce RTX 3090 (NVIDIA) | uma: 0 | ..."; Metal's "GPU name:".
bool read_device_listing(std::string_view text, LlamaCppReadState& state, LogBuilder& out) {
  if (std::optional<std::string_view> rest = after(text, "ggml_cuda_init: found ")) {
    const std::vector<std::string_view> kinds = {"CUDA", "ROCm", "MUSA"};
    for (std::string_view kind : kinds) {
      if (contains(*rest, std::string(" ") + std::string(kind) + " device")) state.gpu_kind = kind;
    }
    return true;
  }
  // ggml-sycl's listing of early 2024 (print_sycl_devices, later
  // ggml_backend_sycl_print_sycl_devices): "found 4 SYCL devices:" then
  // "  Device 0: Intel(R) Arc(TM) A750 Graphics,\tcompute capability
  // 1.3," a device, CUDA's wording; device i is the backend's SYCL<i>.
  // Later builds print "Found N SYCL devices:" above a table
  // (read_sycl_device_row).
  if ((contains(text, "found ") || contains(text, "Found ")) && contains(text, " SYCL devices:")) {
    state.gpu_kind = "SYCL";
    return true;
  }
  // "Using device 0 (Intel(R) Arc(TM) A750 Graphics) as main device"
  // (ggml_sycl_set_main_device's, early 2024): g_main_device, the one
  // device the SYCL backend of those builds ran the model on.
  if (std::optional<std::string_view> main = after(text, "Using device "); main && contains(*main, " as main device")) {
    if (std::optional<uint64_t> index = leading_count(*main)) state.sycl_main_device = index;
    return true;
  }
  std::optional<std::string_view> rest = after(text, "Device ");
  // An excerpt may start below "found N CUDA devices": "compute
  // capability" is CUDA's wording.
  if (rest && state.gpu_kind.empty() && contains(text, "compute capability")) state.gpu_kind = "CUDA";
  if (rest && !state.gpu_kind.empty() &&
      (contains(text, "compute capability") || contains(text, "VMM:"))) {
    const std::optional<uint64_t> index = leading_count(*rest);
    const size_t colon = rest->find(": ");
    if (!index || colon == std::string_view::npos) return true;
    const std::string_view name = rest->substr(colon + 2, rest->find(',') - colon - 2);
    if (LogDevice* d = out.device(fmt::format("{}{}", state.gpu_kind, *index))) {
      if (d->name.empty()) d->name = std::string(trim(name));
    }
    return true;
  }
  // The Vulkan backend's listing of mid-2024 builds, before "ggml_vulkan:
  // 0 = ...": "Vulkan0: Intel(R) Arc(tm) A770 Graphics (DG2) (Intel
  // open-source Mesa driver) | uma: 0 | fp16: 1 | warp size: 32", the
  // device's name, then its driver's in parentheses. Those builds name the
  // device's buffers by its name (llamacpp_buffers.cc, vulkan_device_named).
  if (text.starts_with("Vulkan") && contains(text, " | uma: ")) {
    std::string_view index_text = text.substr(6);
    const std::optional<uint64_t> index = leading_count(index_text);
    const size_t colon = text.find(": ");
    if (!index || colon == std::string_view::npos) return true;
    const std::string_view name = trim(text.substr(colon + 2, text.find(" | ") - colon - 2));
    if (LogDevice* d = out.device(fmt::format("Vulkan{}", *index))) {
      if (d->name.empty()) d->name = std::string(name);
    }
    return true;
  }
  if ((rest = after(text, "ggml_vulkan: ")) && contains(*rest, " | ")) {
    const std::optional<uint64_t> index = leading_count(*rest);
    std::optional<std::string_view> name = after(*rest, " = ");
    if (!index || !name) return true;
    if (LogDevice* d = out.device(fmt::format("Vulkan{}", *index))) {
      if (d->name.empty()) d->name = std::string(trim(name->substr(0, name->find(" | "))));
    }
    return true;
  }
  if ((rest = after(text, "GPU name:")) && contains(text, "metal")) {
    read_metal_gpu_name(trim(*rest), out);
    return true;
  }
  return read_sycl_device_row(text, out);
}

// The graph reservation's summary, printed by llama_context's constructor
// and, from b7772, by sched_reserve (which runs again whenever the graph
// must be reserved anew: the first reservation is kept). The worst-case
// graph's tokens, min(n_ctx, n_ubatch), which the pricer takes for n_ubatch
// when no n_ubatch line is printed, appear in three forms:
//   worst-case: n_tokens = 128, n_seqs = 1, n_outputs = 1          (debug)
//   graph splits = 397 (with bs=512), 160 (with bs=1)               (to v0.4.0)
//   graph (pp bs=512, tg bs=1): nodes = 1234 / 1234, splits = 3 / 2,
//     input objects = 10 / 10, input tensors = 12 / 11              (v0.5.0 on)
// The last is sched_reserve's one line from #26625 ("llama-context : report
// graph inputs and input tensors during sched reserve"; v0.5.0's
// src/llama-context.cpp): "graph%s: nodes = %s, splits = %s, input objects
// = %s, input tensors = %s", the label " (pp bs=<n_tokens>, tg bs=<n_seqs>)"
// and "pp / tg" values only where the prompt and generation graphs differ
// in a count, "graph: nodes = N, splits = N, ..." (no tokens) where they do
// not. Either v0.5.0 form is kept as setting form_graph_summary_v050 (the
// pricer's kDatedLineForms). True when `rest` is one of these lines.
bool read_reserve_summary(std::string_view rest, LlamaCppReadState& state, LogBuilder& out) {
  if (auto worst = after(rest, "worst-case: n_tokens = ")) {
    std::optional<uint64_t> n = leading_count(*worst);
    if (n && state.contexts <= 1) out.setting("worst_case_tokens", std::to_string(*n));
    return true;
  }
  if (auto splits = after(rest, "graph splits = ")) {
    if (auto bs = after(*splits, "(with bs=")) {
      std::optional<uint64_t> n = leading_count(*bs);
      if (n && state.contexts <= 1) out.setting("worst_case_tokens", std::to_string(*n));
    }
    return true;
  }
  if (!rest.starts_with("graph") || !contains(rest, "input objects = ")) return false;
  out.setting("form_graph_summary_v050", "true");
  if (auto pp = after(rest, "graph (pp bs=")) {
    std::optional<uint64_t> n = leading_count(*pp);
    if (n && state.contexts <= 1) out.setting("worst_case_tokens", std::to_string(*n));
  }
  return true;
}

// llama_context's (llama_new_context_with_model's) "name = value" lines.
void read_context_setting(std::string_view rest, LlamaCppReadState& state, LogBuilder& out) {
  if (read_reserve_summary(rest, state, out)) return;
  // "pipeline parallelism enabled (n_copies=4)": the scheduler's copies of
  // the graph's split inputs, one per batch in flight.
  if (std::optional<std::string_view> copies = after(rest, "pipeline parallelism enabled (n_copies=")) {
    const std::string_view number = copies->substr(0, copies->find(')'));
    if (parse_count(number)) out.setting("n_copies", number);
    return;
  }
  // Newer builds print "pipeline parallelism enabled" without the count:
  // the scheduler then takes GGML_SCHED_MAX_COPIES (ggml-backend.cpp,
  // ggml_backend_sched_new: n_copies = parallel ? GGML_SCHED_MAX_COPIES :
  // 1), 4 unless the build set it otherwise.
  if (trim(rest) == "pipeline parallelism enabled") {
    out.setting("n_copies", "4");
    return;
  }
  const size_t eq = rest.find('=');
  if (eq == std::string_view::npos) {
    if (contains(rest, "Flash Attention was auto, set to ")) {
      out.setting("flash_attn_resolved", trim(*after(rest, "set to ")));
    }
    // "n_ctx_per_seq (70000) < n_ctx_train (262144) -- the full capacity
    // ...": the context per sequence, when the excerpt holds no n_ctx line.
    for (std::string_view name : {"n_ctx_per_seq (", "n_ctx_seq ("}) {
      if (!rest.starts_with(name)) continue;
      const std::string_view inner = rest.substr(name.size());
      const std::string_view number = inner.substr(0, inner.find(')'));
      if (parse_count(number)) out.setting("n_ctx_seq", number);
    }
    return;
  }
  std::string_view name = trim(rest.substr(0, eq));
  const std::string_view value = trim(rest.substr(eq + 1));
  if (name == "n_ctx") ++state.contexts;
  if (state.contexts > 1) {
    if (!state.context_noted) out.note("the log creates more than one context: the first is read");
    state.context_noted = true;
    return;
  }
  if (name == "n_ctx_per_seq") name = "n_ctx_seq";
  // ik_llama.cpp's own context parameters, which llama.cpp never printed
  // (ikawrakow/ik_llama.cpp, src/llama.cpp llama_new_context_with_model:
  // "mla_attn", "attn_max_b", "fused_moe", "ser"): the log is that fork's.
  if (name == "mla_attn" || name == "attn_max_b" || name == "fused_moe") out.setting("fork", "ik_llama.cpp");
  for (std::string_view known : {"n_seq_max", "n_ctx", "n_ctx_seq", "n_batch", "n_ubatch",
                                 "flash_attn", "kv_unified", "causal_attn", "n_outputs_max"}) {
    if (name == known) out.setting(name, value);
  }
  // The context's own count of sequences (the server's extra one in it,
  // llamacpp_pricer.cc: server_extra_sequence), as against -np's slots.
  if (name == "n_seq_max") out.setting("n_seq_max_printed", "true");
}

// The CPU features system_info prints, as the repack kernels llama.cpp
// picks from them (llamacpp.h: RepackCpu).
void read_system_info(std::string_view text, LogBuilder& out) {
  const char* repack = contains(text, "AVX512 = 1") || contains(text, "AMX_INT8 = 1") ? "x86-avx512"
                       : contains(text, "AVX2 = 1")                                  ? "x86-avx2"
                       : contains(text, "DOTPROD = 1")                               ? "arm"
                                                                                     : "none";
  out.setting("repack_cpu", repack);
}

// The CPU variant ggml loaded ("load_backend: loaded CPU backend from
// .../libggml-cpu-zen4.so"), as its repack kernels: the x86 variants are
// named for the microarchitecture their flags target (ggml's
// GGML_CPU_ALL_VARIANTS).
void read_cpu_variant(std::string_view rest, LogBuilder& out) {
  const std::string_view variant = rest.substr(0, rest.find('.'));
  for (std::string_view avx512 : {"skylakex", "cannonlake", "cascadelake", "icelake", "cooperlake",
                                  "zen4", "sapphirerapids"}) {
    if (variant == avx512) return out.setting("repack_cpu", "x86-avx512");
  }
  for (std::string_view avx2 : {"haswell", "alderlake"}) {
    if (variant == avx2) return out.setting("repack_cpu", "x86-avx2");
  }
  if (variant == "x64" || variant == "sse42" || variant == "sandybridge") out.setting("repack_cpu", "none");
}

// A load mode, as --load-mode takes it and load_tensors prints it
// ("loading model tensors, this can take a while... (load_mode = mmap)";
// v0.4.0's and v0.5.0's src/llama.cpp, llama_load_mode_name): "auto",
// "none", "mmap", "mlock", "mmap+mlock" or "dio". The loader maps the file
// only for mmap, mmap+mlock and auto (llama-model-loader.cpp: use_mmap;
// load_tensors prints auto as what it resolved to), so none, mlock and dio
// read the weights into buffers: setting no_mmap.
void read_load_mode(std::string_view mode, LogBuilder& out) {
  mode = trim(mode);
  if (mode == "none" || mode == "mlock" || mode == "dio") out.setting("no_mmap", "true");
}

// "offloaded 33/33 layers to GPU".
void read_offload(std::string_view rest, LogBuilder& out) {
  const std::optional<uint64_t> offloaded = leading_count(rest);
  const size_t slash = rest.find('/');
  if (!offloaded || slash == std::string_view::npos) return;
  out.setting("n_gpu_layers", std::to_string(*offloaded));
  if (std::optional<uint64_t> layers = leading_count(rest.substr(slash + 1))) {
    out.setting("n_layers_offloadable", std::to_string(*layers));
  }
}

// The weights a command line keeps off their layer's device, which the
// log does not print (llama.cpp names each overridden tensor only at
// verbose level): every -ot/--override-tensor PATTERN=DEVICE rule in the
// order given, as setting "override_tensor" (the rules joined by ","),
// --cpu-moe as the rule common/arg.cpp adds for it (every block's routed
// experts, LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate)_exps", to the CPU) after
// them, and -ncmoe/--n-cpu-moe N as setting "n_cpu_moe".
void read_tensor_overrides(std::string_view text, LogBuilder& out) {
  std::string rules;
  for (std::string_view rule : flag_values(text, {"-ot", "--override-tensor"})) {
    if (!rules.empty()) rules += ',';
    rules += rule;
  }
  if (flag_given(text, {"-cmoe", "--cpu-moe"})) {
    if (!rules.empty()) rules += ',';
    rules += "\\.ffn_(up|down|gate)_exps=CPU";
  }
  if (!rules.empty()) out.setting("override_tensor", rules);
  read_flags(text, {{{"-ncmoe", "--n-cpu-moe"}, "n_cpu_moe"}}, out);
}

// llama-server's (llama-cli's, ...) command line, when the log (or the
// caller: LogCheckOptions::command) shows it: what llama.cpp does not
// print (the tensor split, the split mode), read after the printed
// settings so theirs win.
void read_command(std::string_view text, LogBuilder& out) {
  // --reranking sets --embedding and rank pooling (llama.cpp's common/arg.cpp);
  // a reranker is priced with rank pooling whatever --pooling says beside
  // it: read first, as the first value read stays.
  // llama-embedding sets params.embedding (examples/embedding's main): an
  // embedding run whatever its flags say.
  const bool reranking = flag_given(text, {"--reranking", "--rerank"});
  if (reranking || contains(text, "llama-embedding ") || contains(text, "llama-embedding.exe ")) {
    out.setting("embedding", "true");
  }
  if (reranking) out.setting("pooling", "rank");
  read_flags(text,
             {{{"-ngl", "--n-gpu-layers", "--gpu-layers"}, "n_gpu_layers"},
              {{"-ts", "--tensor-split"}, "tensor_split"},
              {{"-sm", "--split-mode"}, "split_mode"},
              {{"-c", "--ctx-size"}, "n_ctx"},
              {{"-np", "--parallel"}, "n_seq_max"},
              {{"-b", "--batch-size"}, "n_batch"},
              {{"-ub", "--ubatch-size"}, "n_ubatch"},
              {{"-ctk", "--cache-type-k"}, "cache_type_k"},
              {{"-ctv", "--cache-type-v"}, "cache_type_v"},
              {{"-fa", "--flash-attn"}, "flash_attn"},
              {{"--pooling"}, "pooling"}},
             out);
  // --embedding(s) changes the output buffer and the graph
  // (docs/embedding-models.md).
  if (switch_on(text, {"--embedding", "--embeddings"})) out.setting("embedding", "true");
  if (flag_given(text, {"-fa", "--flash-attn"})) out.setting("flash_attn", "enabled");
  if (switch_on(text, {"-nkvo", "--no-kv-offload"})) out.setting("kv_offload", "false");
  if (switch_on(text, {"--no-mmap"})) out.setting("no_mmap", "true");
  // --load-mode MODE (-lm), which replaced --no-mmap by v0.5.0 (common/arg.cpp).
  for (std::string_view mode : flag_values(text, {"-lm", "--load-mode"})) read_load_mode(mode, out);
  read_tensor_overrides(text, out);
}

// Whether a word of `text` names one of llama.cpp's tools: a file name
// (after any directory) that starts with "llama-" (llama-server,
// llama-perplexity, llama-sweep-bench, the .exe of a Windows build), or
// the old ./main.
bool names_llama_tool(std::string_view text) {
  if (contains(text, "./main ")) return true;
  for (size_t at = text.find("llama-"); at != std::string_view::npos; at = text.find("llama-", at + 1)) {
    const bool word_start = at == 0 || text[at - 1] == ' ' || text[at - 1] == '/' || text[at - 1] == '\\';
    const size_t end = text.find(' ', at);
    if (word_start && end != std::string_view::npos && end > at + 6) return true;
  }
  return false;
}

bool is_command_line(std::string_view text) { return names_llama_tool(text) && contains(text, " -"); }

// The command of a line: an Ollama slog record that starts llama-server
// (msg="starting llama-server" cmd="/usr/lib/ollama/llama-server --model ...
// -b 512 -ub 512"; Ollama v0.30.0 on) holds it between the quotes of its
// cmd field, whose closing quote is no part of the last flag's value;
// any other line is its own command.
std::string_view quoted_command(std::string_view text) {
  std::optional<std::string_view> cmd = after(text, " cmd=\"");
  if (!cmd) return text;
  const size_t close = cmd->find('"');
  return close == std::string_view::npos ? *cmd : cmd->substr(0, close);
}

// A command the poster continued over lines with the shell's " \\"
// (ggml-org/llama.cpp#14201: llama-server's flags one a line, its
// --override-tensor on the last): the lines up to the one without it,
// joined, when they name a llama.cpp tool with flags. Each line is read
// on its own too (a log line that happens to end in a backslash is kept).
void read_continued_command(std::string_view text, LlamaCppReadState& state, LogBuilder& out) {
  const std::string_view line = trim(text);
  if (line.ends_with('\\')) {
    if (state.continued_command.size() < kMaxContinuedCommand) {
      state.continued_command.append(line.substr(0, line.size() - 1));
      state.continued_command.push_back(' ');
    }
    return;
  }
  if (state.continued_command.empty()) return;
  std::string joined = std::move(state.continued_command);
  state.continued_command.clear();
  joined.append(line);
  if (is_command_line(joined)) read_command(joined, out);
}

// A line only llama-server prints, kept as setting "llama_server": its
// thread line ("system info: n_threads = 24, n_threads_batch = 24,
// total_threads = 48"), its 2024 "build info" line (server_build_info),
// "HTTP server is listening" (2024) and "server is listening on" (later),
// and its slots' "initializing slots". The old server's extra sequence
// (llamacpp_pricer.cc, server_extra_sequence) is priced from it.
void read_server_line(std::string_view text, LogBuilder& out) {
  if (out.peek().runtime != "llamacpp") return;  // Ollama's runner: its own reader's
  const bool server = (contains(text, "system info: n_threads = ") && contains(text, ", total_threads = ")) ||
                      server_build_info(text).has_value() || contains(text, "HTTP server is listening") ||
                      contains(text, "server is listening on") || contains(text, "initializing slots");
  if (server) out.setting("llama_server", "true");
}

// Line forms that date a log printing no build (the pricer's
// kDatedLineForms, llamacpp_pricer.cc): sched_reserve's probe of the fused
// Gated Delta Net ops ("sched_reserve: resolving fused Gated Delta Net
// support:") and llama-server's thread line ("system info: n_threads = 24,
// n_threads_batch = 24, total_threads = 48"), the KV cache's lines under
// "llama_kv_cache_unified:", the context's "n_ctx_per_seq" (its later
// name is n_ctx_seq), llama-server's 2024 "build info" line
// (server_build_info) and the loader's buffer lines before they said
// "model" ("llm_load_tensors:      CUDA0 buffer size =  4156.00 MiB").
// Each is kept as a setting named after its form.
void read_dated_form(std::string_view text, LogBuilder& out) {
  read_server_line(text, out);
  if (contains(text, "sched_reserve: resolving fused Gated Delta Net support")) {
    out.setting("form_sched_reserve_gdn", "true");
  } else if (contains(text, "system info: n_threads = ") && contains(text, ", total_threads = ")) {
    out.setting("form_server_system_info", "true");
  } else if (contains(text, "llama_kv_cache_unified:")) {
    out.setting("form_kv_cache_unified", "true");
  } else if (contains(text, "llama_context: n_ctx_per_seq")) {
    out.setting("form_n_ctx_per_seq", "true");
  } else if (server_build_info(text) && out.peek().runtime == "llamacpp") {
    out.setting("form_server_build_info", "true");
  } else if (contains(text, "llm_load_tensors:") && contains(text, " buffer size =") &&
             !contains(text, " model buffer size")) {
    out.setting("form_loader_buffer_without_model", "true");
  }
}

// "tensor 'token_embd.weight' (q8_0) (and 36 others) cannot be used with
// preferred buffer type CPU_REPACK, using CPU instead" (llama-model.cpp,
// load_tensors, on a run whose CPU prefers CPU_REPACK): the first loaded
// tensor kept off the repack buffer, its type, and how many were in all
// (the others + 1): the settings repack_fallback_tensor, _type, _count.
void read_repack_fallback(std::string_view text, LogBuilder& out) {
  std::optional<std::string_view> rest = after(text, "tensor '");
  if (!rest) return;
  const size_t quote = rest->find('\'');
  if (quote == std::string_view::npos) return;
  const std::string_view name = rest->substr(0, quote);
  std::optional<std::string_view> type = after(rest->substr(quote), "' (");
  if (!type) return;
  const size_t close = type->find(')');
  if (close == std::string_view::npos) return;
  uint64_t count = 1;
  if (std::optional<std::string_view> others = after(type->substr(close), "(and ")) {
    const std::optional<uint64_t> n = leading_count(*others);
    if (!n || *n == UINT64_MAX) return;
    count = *n + 1;
  }
  out.setting("repack_fallback_tensor", name);
  out.setting("repack_fallback_type", type->substr(0, close));
  out.setting("repack_fallback_count", std::to_string(count));
}

// One line of the load read (lines_of_one_load); false when what follows
// is not read.
bool read_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out) {
  const std::string_view text = line.text;
  read_continued_command(text, state, out);
  read_build(text, out);
  read_dated_form(text, out);
  // "load_tensors: loading model tensors, this can take a while... (mmap =
  // false)": the loader's own word that the file is read, not mapped (the
  // host's model buffer is then its tensors alone: docs/check-log.md).
  // Builds with --load-mode print "(load_mode = none)" instead (read_load_mode).
  if (contains(text, "loading model tensors")) {
    if (contains(text, "(mmap = false)")) out.setting("no_mmap", "true");
    if (std::optional<std::string_view> mode = after(text, "(load_mode = ")) {
      read_load_mode(mode->substr(0, mode->find(')')), out);
    }
  }
  if (contains(text, "cannot be used with preferred buffer type CPU_REPACK")) read_repack_fallback(text, out);
  if (contains(text, "memory_breakdown") || contains(text, "memory breakdown")) {
    if (!state.fit_trials) return read_breakdown_line(line, out);
    out.note("the memory breakdowns are --fit's trial allocations: not read");
    return true;
  }
  if (read_fit_line(text, state)) return true;
  if (read_metadata_line(line, out) || read_print_info_line(line, state, out) ||
      read_buffer_line(line, state, out) || read_cache_line(line, state, out) ||
      read_device_listing(text, state, out)) {
    return true;
  }
  if (is_command_line(text) && !trim(text).ends_with('\\')) {  // a continued one is read whole
    read_command(quoted_command(text), out);
  } else if (auto rest = after(text, "using device ")) {
    read_using_device(*rest, out);
  } else if (auto offload = after(text, "offloaded "); offload && contains(text, "layers to GPU")) {
    read_offload(*offload, out);
  } else if (auto repeating = after(text, "offloading "); repeating && contains(text, "repeating layers to GPU")) {
    // "offloading 30 repeating layers to GPU": the blocks on the GPUs.
    if (std::optional<uint64_t> n = leading_count(*repeating)) out.setting("repeating_layers_offloaded", std::to_string(*n));
  } else if (auto variant = after(text, "libggml-cpu-")) {
    read_cpu_variant(*variant, out);
  } else if (contains(text, "system_info:")) {
    read_system_info(text, out);
  } else if (auto ctx = after(text, "llama_context: ")) {
    read_context_setting(*ctx, state, out);
  } else if (auto old = after(text, "llama_new_context_with_model: ")) {
    read_context_setting(*old, state, out);
  } else if (auto init = after(text, "llama_init_from_model: ")) {
    read_context_setting(*init, state, out);
  } else if (auto reserve = after(text, "sched_reserve: "); reserve && read_reserve_summary(*reserve, state, out)) {
    // Read above: the reservation's summary lines (read_reserve_summary).
  } else if (auto sched = after(text, "sched_reserve: "); sched && contains(*sched, "Flash Attention was auto, set to ")) {
    // Builds that reserve the graphs in sched_reserve (llama-context.cpp;
    // b7772's logs print it) resolve --flash-attn auto there and say so
    // under its name: "sched_reserve: Flash Attention was auto, set to
    // disabled" where a layer's FLASH_ATTN_EXT fell to another device (a
    // SYCL build before it ran the op), as llama_context said before.
    out.setting("flash_attn_resolved", trim(*after(*sched, "set to ")));
  } else if (contains(text, "Flash Attention enabled")) {
    out.setting("flash_attn_resolved", "enabled");
  } else if (contains(text, "Flash Attention not supported")) {
    out.setting("flash_attn_resolved", "disabled");
  }
  return true;
}

class LlamaCppReader final : public LogReader {
 public:
  std::string_view runtime() const override { return "llamacpp"; }
  bool recognises(std::span<const LogLine> lines) const override {
    for (std::string_view marker :
         {"llama_model_loader:", "load_tensors:", "llama_context:", "llama_new_context_with_model:",
          "llama_init_from_model:", "llama_kv_cache", "llama_memory_recurrent", "memory_breakdown",
          "ggml_cuda_init:", "ggml_vulkan:", "ggml_metal_init:"}) {
      if (any_line_contains(lines, marker)) return true;
    }
    return false;
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    read_llamacpp_lines(lines, out);
    out.set_backend("CPU");  // no GPU named: a CPU build
  }
};

// The lines of one load read as printed (read_llamacpp_lines).
void read_lines_with_points(std::span<const LogLine> lines, LogBuilder& out) {
  LlamaCppReadState state;
  state.fit_trials = any_line_contains(lines, "params_fit");
  for (const LogLine& line : lines_of_one_load(lines, out)) {
    if (!read_line(line, state, out)) break;
  }
  fill_cut_arrays(state, out);
  add_kv_total(state, out);
  add_fit_placement(state, out);
  out.settle_gpu_devices();
}

}  // namespace

void read_llamacpp_lines(std::span<const LogLine> lines, LogBuilder& out) {
  if (!prints_decimal_comma(lines)) return read_lines_with_points(lines, out);
  // A comma locale's log (decimal_comma.h): read with its decimal commas made
  // points; `texts` owns what the views of `pointed` see for the read.
  std::vector<std::string> texts;
  texts.reserve(lines.size());
  for (const LogLine& line : lines) texts.push_back(with_decimal_points(line.text));
  std::vector<LogLine> pointed;
  pointed.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) pointed.push_back(LogLine{texts[i], lines[i].number});
  out.note("the log prints its figures with decimal commas (printf under a comma LC_NUMERIC locale): "
           "each comma between two digits is read as the decimal point");
  read_lines_with_points(pointed, out);
}

const LogReader& llamacpp_log_reader() {
  static const LlamaCppReader reader;
  return reader;
}

}  // namespace memfit::logs
